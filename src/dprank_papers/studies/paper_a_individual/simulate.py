"""Stage ``simulate``: true scores and user comparison data of Paper A, section 4.2."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dprank.base.seeding import Stream, cell_key, generator
from dprank.data.simulate import sample_user_comparisons, theta_paper_a_individual


def simulate_chunk(
    seed: int, experiment: str, cell: Mapping, L: int, replicates: Sequence[int]
) -> dict[str, np.ndarray]:
    """Scores and aggregated win counts of the replicates ``replicates`` of one cell.

    Theta is redrawn for every replicate (as the authors did).

    Returns
    -------
    dict
        ``theta`` (R, n) uncentred true scores, ``wins`` (R, n, n) win counts,
        ``replicate`` (R,) replicate indices.
    """
    n, m = int(cell["n"]), int(cell["m"])
    key = cell_key({"role": "data", **cell})
    thetas, wins = [], []
    for r in replicates:
        theta = theta_paper_a_individual(n, generator(seed, experiment, key, r, Stream.THETA))
        thetas.append(theta)
        wins.append(
            sample_user_comparisons(theta, m, L, generator(seed, experiment, key, r, Stream.DATA))
        )
    return {
        "theta": np.array(thetas),
        "wins": np.array(wins, dtype=np.int64),
        "replicate": np.asarray(list(replicates), dtype=np.int64),
    }
