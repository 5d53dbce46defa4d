"""Stage ``privatize``: noise draws of the individual-DP mechanisms (Algorithm 3, Prop. 3.1)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dprank.base.seeding import Stream, cell_key, generator
from dprank.privacy.mechanisms import (
    individual_count_noise_scale,
    individual_mle_noise_scale,
    standard_laplace,
)


def privatize_chunk(
    seed: int,
    experiment: str,
    cell: Mapping,
    L: int,
    kappa1: float,
    replicates: Sequence[int],
    protocol: str,
) -> dict[str, np.ndarray]:
    """Scaled noise for every replicate of one cell (fresh draws in both protocols).

    Returns
    -------
    dict
        ``mle_noise`` (R, n): ``Laplace(8 kappa1 L / eps)``, the objective
        perturbation; ``count_noise`` (R, n): ``Laplace(L / eps)`` for the noisy
        counts; ``tie_keys`` (R, n): uniform keys that break ties among counts
        (``paper`` protocol; zeros otherwise); ``epsilon`` (1,).
    """
    if protocol not in ("paper", "authors"):
        raise ValueError(f"unknown protocol {protocol!r}")
    n, eps = int(cell["n"]), float(cell["eps"])
    key = cell_key({"role": "noise", **cell})
    mle, count, ties = (np.zeros((len(replicates), n)) for _ in range(3))
    for i, r in enumerate(replicates):
        unit = standard_laplace(generator(seed, experiment, key, r, Stream.NOISE_MLE), n)
        mle[i] = individual_mle_noise_scale(eps, L, kappa1) * unit
        unit = standard_laplace(generator(seed, experiment, key, r, Stream.NOISE_COUNT), n)
        count[i] = individual_count_noise_scale(eps, L) * unit
        if protocol == "paper":
            ties[i] = generator(seed, experiment, key, r, Stream.TIEBREAK).random(n)
    return {"mle_noise": mle, "count_noise": count, "tie_keys": ties, "epsilon": np.array([eps])}
