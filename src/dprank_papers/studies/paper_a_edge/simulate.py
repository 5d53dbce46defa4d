"""Stage ``simulate``: latent scores and Erdos-Renyi comparison data of Paper A, section 4.1."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from dprank.base.seeding import SHARED, Stream, cell_key, generator
from dprank.data.simulate import sample_er_comparisons, theta_paper_a_edge


def theta_key(cell: Mapping, theta_per: Sequence[str], replicate: int) -> tuple[int, int]:
    """``(cell id, replicate)`` keying the theta draw of a replicate.

    ``theta_per`` names the grid keys theta changes with: the authors drew one
    theta per ``n`` (Experiments 1-3: ``["n"]``) or per grid row
    (Experiment 4: ``["n", "eps"]``); adding ``"replicate"`` redraws it for
    every replicate.
    """
    params = {"role": "theta", **{k: cell[k] for k in theta_per if k != "replicate"}}
    return cell_key(params), (replicate if "replicate" in theta_per else SHARED)


def simulate_chunk(
    seed: int, experiment: str, cell: Mapping, theta_per: Sequence[str], replicates: range
) -> dict[str, np.ndarray]:
    """Scores and win matrices of the replicates ``replicates`` of one cell.

    Returns
    -------
    dict
        ``theta`` (R, n) centred true scores, ``wins`` (R, n, n) uint8 win
        matrices, ``replicate`` (R,) replicate indices.
    """
    n, p = int(cell["n"]), float(cell["p"])
    data_id = cell_key({"role": "data", **cell})
    thetas, wins = [], []
    for r in replicates:
        t_cell, t_rep = theta_key(cell, theta_per, r)
        theta = theta_paper_a_edge(n, generator(seed, experiment, t_cell, t_rep, Stream.THETA))
        data_rng = generator(seed, experiment, data_id, r, Stream.DATA)
        thetas.append(theta)
        wins.append(sample_er_comparisons(theta, p, data_rng))
    return {
        "theta": np.array(thetas),
        "wins": np.array(wins, dtype=np.uint8),
        "replicate": np.asarray(list(replicates), dtype=np.int64),
    }
