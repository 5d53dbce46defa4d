"""The authors' optimiser against the exact minimiser of Algorithm 1 (Paper A, eq. (2.2)).

The authors minimise (2.2) with R's ``optim(method = "BFGS")`` started at the true scores
(docs/papers/paper-a.md); the workflow solves it with Newton's method to a step of 1e-10 (the
exact minimiser). On 18 fits (n in {50, 100, 200}, p in {0.25, 1}, eps in {0.5, 2, inf}; one
replicate each: scores of Paper A's edge-DP design, an Erdos-Renyi graph, Algorithm 1's Laplace
noise and the authors' ridge ``gamma = 2 sqrt(n p log n)``), this prints for each fit the
max-norm distance of R's solution (:func:`dprank_papers.rbfgs.vmmin`, a port of R's ``vmmin``)
to ours, its objective minus ours, and how much it moves the metrics of the study (the
relative l2 and l_inf errors against the true scores, and the top-k set), then the largest of
each in a last line (the values docs/protocols.md quotes, ``authors_optimiser_*`` of
docs/includes/values.yaml; tests/test_docs_numbers.py checks them against that line).

Usage: ``python benchmarks/authors_optimiser.py [--seed S]``.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from dprank.data.simulate import sample_er_comparisons, theta_paper_a_edge, top_k_size
from dprank.fit.mle import fit_penalized_mle
from dprank.fit.ranking import top_k
from dprank.objective import DenseObjective, PairwiseData, edge_ridge
from dprank.privacy.mechanisms import edge_mle_noise_scale
from dprank_papers.rbfgs import vmmin

SIZES = (50, 100, 200)
DENSITIES = (0.25, 1.0)
EPSILONS = (0.5, 2.0, math.inf)


def errors(theta: np.ndarray, truth: np.ndarray) -> tuple[float, float]:
    """Relative l2 and l_inf errors of ``theta`` (both centred) against ``truth``."""
    d, t = theta - theta.mean(), truth - truth.mean()
    return float(np.linalg.norm(d - t) / np.linalg.norm(t)), float(
        np.abs(d - t).max() / np.abs(t).max()
    )


def compact(x: float, spec: str) -> str:
    """``x`` in ``spec`` without the exponent's leading zero (``1.3e-3``, as the docs write)."""
    return format(x, spec).replace("e-0", "e-").replace("e+0", "e+")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seed", type=int, default=20251129, help="the draws' seed")
    args = parser.parse_args(argv)
    print(f"{'n':>4} {'p':>5} {'eps':>5} {'max|R - ours|':>14} {'objective gap':>14} "
          f"{'d rel l2':>9} {'d rel linf':>10} {'top-k':>6}")  # fmt: skip
    dist, moves, lower, same = [], [], 0, 0
    for n in SIZES:
        for p in DENSITIES:
            for eps in EPSILONS:
                rng = np.random.default_rng([args.seed, n, int(100 * p), int(min(eps, 1e6))])
                truth = theta_paper_a_edge(n, rng)
                data = PairwiseData(sample_er_comparisons(truth, p, rng))
                gamma = edge_ridge(n, p)
                b = (
                    np.zeros(n)
                    if math.isinf(eps)
                    else edge_mle_noise_scale(eps) * rng.laplace(size=n)
                )
                ours = fit_penalized_mle(data, gamma, b, xtol=1e-10, solver="dense").theta
                prob = DenseObjective(data, gamma, b, sum_zero=False)
                theirs, _ = vmmin(
                    truth.astype(float), prob.value, lambda t: prob.gradient_and_weights(t)[0]
                )
                gap = prob.value(theirs) - prob.value(ours)
                e_ours, e_theirs = errors(ours, truth), errors(theirs, truth)
                move = max(abs(a - b) for a, b in zip(e_ours, e_theirs, strict=True))
                k = top_k_size(n)
                agree = set(top_k(ours, k).tolist()) == set(top_k(theirs, k).tolist())
                dist.append(float(np.abs(theirs - ours).max()))
                moves.append(move)
                lower += gap >= 0
                same += agree
                print(f"{n:>4} {p:>5g} {eps:>5g} {dist[-1]:>14.1e} {gap:>14.1e} "
                      f"{e_theirs[0] - e_ours[0]:>9.1e} {e_theirs[1] - e_ours[1]:>10.1e} "
                      f"{'same' if agree else 'other':>6}")  # fmt: skip
    print(
        f"# fits {len(dist)}; distance {compact(max(dist), '.1e')}; lower {lower} of "
        f"{len(dist)}; metrics {compact(max(moves), '.0e')}; same top-k {same} of {len(dist)}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
