"""Stage ``privatize``: the noise draws of the edge-DP mechanisms.

All three mechanisms of Figures 1-4 add Laplace noise whose scale does not
depend on the data values (the one-shot scale does, so its draws are kept in
standard units). Every fit gets its own draw, keyed by (cell, epsilon,
replicate, stream), except the ``authors`` protocol's objective perturbation,
which is the fixed vector of R's ``set.seed(13); runif(n)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dprank.base.seeding import Stream, cell_key, generator
from dprank.privacy.mechanisms import edge_count_noise_scale, edge_mle_noise_scale, standard_laplace

from ...rrng import r_fixed_laplace


def privatize_chunk(
    seed: int,
    experiment: str,
    cell: Mapping,
    epsilons: Sequence[float],
    replicates: range,
    protocol: str,
    methods: Sequence[str],
    kappa1: float,
    r_seed: int,
) -> dict[str, np.ndarray]:
    """Noise arrays of shape (R, E, n) for the replicates and epsilons of one cell.

    Returns
    -------
    dict
        ``mle_noise``: ``b = lambda w`` of Algorithm 1, ``lambda = 8 kappa1/eps``;
        ``count_noise``: ``Laplace(2/eps)`` for Algorithm 2;
        ``oneshot_noise``: standard Laplace draws for the one-shot method;
        ``tie_keys``: uniform keys breaking ties (``paper`` protocol only);
        ``epsilon``: (E,) the epsilons.
    """
    if protocol not in ("paper", "authors"):
        raise ValueError(f"unknown protocol {protocol!r}")
    n = int(cell["n"])
    reps, eps_list = list(replicates), [float(e) for e in epsilons]
    shape = (len(reps), len(eps_list), n)
    out = {"epsilon": np.asarray(eps_list)}
    mle = np.zeros(shape)
    count = np.zeros(shape)
    oneshot = np.zeros(shape)
    ties = np.zeros(shape)
    fixed = r_fixed_laplace(n, r_seed) if protocol == "authors" else None
    for e, eps in enumerate(eps_list):
        key = cell_key({"role": "noise", **cell, "eps": eps})
        for i, r in enumerate(reps):
            if "edge_mle" in methods:
                unit = (
                    fixed
                    if fixed is not None
                    else standard_laplace(generator(seed, experiment, key, r, Stream.NOISE_MLE), n)
                )
                mle[i, e] = edge_mle_noise_scale(eps, kappa1) * unit
            if "edge_counts" in methods:
                rng = generator(seed, experiment, key, r, Stream.NOISE_COUNT)
                count[i, e] = edge_count_noise_scale(eps) * standard_laplace(rng, n)
            if "edge_one_shot" in methods:
                oneshot[i, e] = standard_laplace(
                    generator(seed, experiment, key, r, Stream.NOISE_ONESHOT), n
                )
            if protocol == "paper":
                ties[i, e] = generator(seed, experiment, key, r, Stream.TIEBREAK).random(n)
    out["mle_noise"] = mle
    out["count_noise"] = count
    out["oneshot_noise"] = oneshot
    if protocol == "paper":
        out["tie_keys"] = ties
    return out
