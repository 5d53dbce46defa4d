"""Paper A, real data (Figure 8): how far private rankings move from non-private ones.

For a fixed win matrix (CEMS or immigration, :mod:`dprank.data.realdata`) and each
epsilon, ``reps`` independent releases are drawn (docs/papers/paper-a.md#fig8):

* perturbed MLE: ridge ``gamma = 8 kappa2 L / eps`` (``2L/eps``), Laplace
  ``8 kappa1 L / eps`` perturbation, sum-to-zero constraint (Proposition 3.1);
  compared with a non-private reference MLE;
* noisy counts: row sums plus ``Laplace(L / eps)`` (Algorithm 3), compared with
  the raw row sums;

and the metric is the mean absolute rank difference
(:func:`dprank.fit.metrics.mean_rank_difference`).

Protocols: ``authors`` takes as reference the MLE with the *same* ridge as the
private fit (so it changes with epsilon; docs/papers/paper-a.md#s0 item 9); ``paper``
takes the unpenalised MLE (``gamma = 0``), the non-private estimator the
figure's text describes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.base.seeding import Stream, cell_key, generator
from dprank.fit.metrics import mean_rank_difference
from dprank.fit.mle import fit_penalized_mle, fit_penalized_mle_batch
from dprank.fit.ranking import copeland_counts
from dprank.privacy.mechanisms import (
    individual_count_noise_scale,
    individual_gamma,
    individual_mle_noise_scale,
    standard_laplace,
)

__all__ = ["real_data_metrics"]


def _unit_noise(seed: int, dataset: str, key, reps: int, n: int, stream: Stream) -> np.ndarray:
    """``(reps, n)`` standard Laplace draws, replicate ``r`` from its own ``stream``."""
    return np.array(
        [standard_laplace(generator(seed, dataset, key, r, stream), n) for r in range(reps)]
    )


def _block(dataset: str, eps: float, reps: int, method: str, metric: str, values) -> pd.DataFrame:
    """The ``reps`` rows of one method's metric at one ``eps``."""
    return pd.DataFrame(
        {
            "dataset": dataset,
            "epsilon": eps,
            "replicate": np.arange(reps),
            "method": method,
            "metric": metric,
            "value": values,
        }
    )


def real_data_metrics(
    wins: np.ndarray,
    dataset: str,
    L: int,
    epsilons: Sequence[float],
    reps: int,
    seed: int,
    protocol: str,
    kappa1: float = 1.0,
    kappa2: float = 0.25,
    xtol: float = 1e-10,
    max_iter: int = 100,
) -> pd.DataFrame:
    """Per-replicate mean rank differences of both mechanisms at every epsilon.

    Returns
    -------
    DataFrame
        Columns ``dataset, epsilon, replicate, method, metric, value``;
        methods ``individual_mle`` and ``individual_counts_as_published``, metrics
        ``mean_rank_difference`` and (for the MLE) ``converged``.
    """
    _checks.win_matrix(wins, "wins", min_items=2)
    _checks.text(dataset, "dataset")
    _checks.count(L, "L", 1)
    epsilons = [_checks.positive(e, "epsilons") for e in _checks.sequence(epsilons, "epsilons")]
    _checks.count(reps, "reps", 1)
    _checks.count(seed, "seed")
    _checks.positive_finite(kappa1, "kappa1")
    _checks.positive_finite(kappa2, "kappa2")
    _checks.positive_finite(xtol, "xtol")
    _checks.count(max_iter, "max_iter", 1)
    if protocol not in ("paper", "authors"):
        raise ValueError(f"unknown protocol {protocol!r}")
    wins = np.asarray(wins, dtype=np.float64)
    n = wins.shape[0]
    counts = copeland_counts(wins)
    blocks = []
    for eps in epsilons:
        eps = float(eps)
        key = cell_key({"dataset": dataset, "eps": eps})
        mle_unit = _unit_noise(seed, dataset, key, reps, n, Stream.NOISE_MLE)
        count_unit = _unit_noise(seed, dataset, key, reps, n, Stream.NOISE_COUNT)
        gamma = individual_gamma(eps, L, kappa2)
        fit = fit_penalized_mle_batch(
            wins,
            gamma,
            individual_mle_noise_scale(eps, L, kappa1) * mle_unit,
            xtol=xtol,
            max_iter=max_iter,
        )
        ref_gamma = gamma if protocol == "authors" else 0.0
        reference = fit_penalized_mle(
            wins, ref_gamma, sum_zero=True, xtol=xtol, max_iter=max_iter, raise_on_failure=True
        ).theta
        release = counts + individual_count_noise_scale(eps, L) * count_unit
        for method, metric, values in (
            ("individual_mle", "mean_rank_difference", mean_rank_difference(fit.theta, reference)),
            ("individual_mle", "converged", fit.converged.astype(float)),
            (
                "individual_counts_as_published",
                "mean_rank_difference",
                mean_rank_difference(release, counts),
            ),
        ):
            blocks.append(_block(dataset, eps, reps, method, metric, values))
    return pd.concat(blocks, ignore_index=True)
