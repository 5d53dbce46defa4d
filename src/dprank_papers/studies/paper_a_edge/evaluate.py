"""Stage ``metrics``: tidy per-replicate errors of Paper A, section 4.1."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from dprank.data.simulate import top_k_size
from dprank.fit.metrics import log_rel_l2, log_rel_linf, rel_hamming, true_top_k


def metrics_chunk(
    theta: np.ndarray, replicates: np.ndarray, estimates: Mapping[str, np.ndarray], cell: Mapping
) -> pd.DataFrame:
    """One row per (replicate, epsilon, method, metric).

    Columns: ``n, p, epsilon, replicate, method, metric, value``. The perturbed
    MLE gets ``log_rel_l2``, ``log_rel_linf``, ``rel_hamming`` and
    ``converged`` (1 or 0); the top-k methods get ``rel_hamming``.
    """
    n, p = int(cell["n"]), float(cell["p"])
    k = top_k_size(n)
    eps = np.asarray(estimates["epsilon"], dtype=float)
    truth = np.array([true_top_k(t, k) for t in theta])[:, None, :]  # (R, 1, k)
    blocks = []

    def add(method, metric, values):
        values = np.asarray(values, dtype=float)  # (R, E)
        rep_grid, eps_grid = np.meshgrid(replicates, eps, indexing="ij")
        blocks.append(
            pd.DataFrame(
                {
                    "n": n,
                    "p": p,
                    "epsilon": eps_grid.ravel(),
                    "replicate": rep_grid.ravel(),
                    "method": method,
                    "metric": metric,
                    "value": values.ravel(),
                }
            )
        )

    if "theta_hat" in estimates:
        th = estimates["theta_hat"]
        add("edge_mle", "log_rel_l2", log_rel_l2(th, theta[:, None, :]))
        add("edge_mle", "log_rel_linf", log_rel_linf(th, theta[:, None, :]))
        add("edge_mle", "rel_hamming", rel_hamming(estimates["topk_edge_mle"], truth))
        add("edge_mle", "converged", estimates["converged"].astype(float))
    for method in ("edge_counts", "edge_one_shot"):
        if f"topk_{method}" in estimates:
            add(method, "rel_hamming", rel_hamming(estimates[f"topk_{method}"], truth))
    frame = pd.concat(blocks, ignore_index=True)
    return frame.sort_values(
        ["method", "metric", "epsilon", "replicate"], kind="stable"
    ).reset_index(drop=True)
