"""Stage ``metrics``: tidy per-replicate errors of Paper A, section 4.2 (Figures 5-7)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd

from dprank.data.simulate import top_k_size_individual
from dprank.fit.metrics import log_rel_l2, log_rel_linf, rel_hamming

from .estimate import select_top_k


def metrics_chunk(
    theta: np.ndarray,
    replicates: np.ndarray,
    estimates: Mapping[str, np.ndarray],
    cell: Mapping,
    protocol: str,
) -> pd.DataFrame:
    """One row per (replicate, method, metric).

    ``authors``: errors against the uncentred truth and top-k sets by
    argpartition (docs/papers/paper-a.md#s2-5); ``paper``: the centred truth and the true
    top-k set (the first ``k`` items).
    """
    n, m, eps = int(cell["n"]), int(cell["m"]), float(cell["eps"])
    k = top_k_size_individual(n)
    if protocol == "authors":
        truth_theta = theta
        truth = np.array([select_top_k(t, k, "authors") for t in theta])
    else:
        truth_theta = theta - theta.mean(axis=1, keepdims=True)
        truth = np.broadcast_to(np.arange(k), (theta.shape[0], k))
    th = estimates["theta_hat"][:, 0, :]
    values = {
        ("individual_mle", "log_rel_l2"): log_rel_l2(th, truth_theta),
        ("individual_mle", "log_rel_linf"): log_rel_linf(th, truth_theta),
        ("individual_mle", "rel_hamming"): rel_hamming(
            estimates["topk_individual_mle"][:, 0], truth
        ),
        ("individual_mle", "converged"): estimates["converged"][:, 0].astype(float),
        ("individual_counts_as_published", "rel_hamming"): rel_hamming(
            estimates["topk_individual_counts_as_published"][:, 0], truth
        ),
    }
    frame = pd.concat(
        [
            pd.DataFrame(
                {
                    "n": n,
                    "m": m,
                    "epsilon": eps,
                    "replicate": replicates,
                    "method": method,
                    "metric": metric,
                    "value": np.asarray(v, dtype=float),
                }
            )
            for (method, metric), v in values.items()
        ],
        ignore_index=True,
    )
    return frame.sort_values(["method", "metric", "replicate"], kind="stable").reset_index(
        drop=True
    )
