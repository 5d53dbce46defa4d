"""B2 Figure 10 (supplement S.3): computing time of ADRR against L and m.

Spec B2-Fig10 and A14: Scenario I's design (BTL, ``eps_l ~ U(1, 5)``,
``p = 0.5``). Per replicate the users' released data (RR outputs and
observation masks, ``(L, P)``) are generated chunk by chunk of users, so the
largest cell (``m = 160``, ``L = 3200``: 40.7 million comparisons) never holds
more than ``chunk_elements`` comparisons in memory. What is timed is the third
party's work from the released data to ``theta^``:

* ``seconds_aggregate``: the ADRR weights and the debiased, weighted
  per-pair sums ``S`` and ``N`` (:func:`dprank.privacy.ldp.add_rr_statistics`), summed
  over the user chunks, ``O(m^2 L)``;
* ``seconds_solve``: the Newton fit of objective (5), ``O(m^2)`` per iteration
  plus an ``O(m^3)`` factorisation;
* ``seconds_total``: their sum.

Data generation is not timed. The released outputs are drawn from their
marginal law: with one uniform ``u`` per comparison, ``a = [u < p]`` and
``y~ = [u < p q]``, ``q = p_eps + (1 - 2 p_eps) F(theta_i - theta_j)`` (Lemma 1),
which given ``a = 1`` is ``Bern(q)``, the law of RR applied to ``y ~ Bern(F)``.
Wall-clock times depend on the machine; the workflow runs this stage alone
(the rule takes every core) with one BLAS thread. The timed steps run in one
thread; the job's other cores only help generate the (untimed) released data
between them (``workers``; the same data for any number of threads).
"""

from __future__ import annotations

import itertools
import os
import platform
import time

import numpy as np

from dprank.base import checks as _checks
from dprank.base.seeding import Stream, uniforms
from dprank.data.models import BTL
from dprank.fit.weighted_mle import default_lambda, fit_weighted_mle
from dprank.privacy.ldp import (
    add_rr_statistics,
    adrr_weights,
    privacy_constant,
    rr_flip_probability,
)

from ._frames import Frame, frame
from .scenarios import Chunk, check_chunk, true_scores, user_budgets

__all__ = ["machine_info", "scaling_exponents", "time_cell"]


def _released_chunks(theta, eps, p, rng, chunk_elements, pool=None, workers=1):
    """Yield ``(users, y~, a)`` chunks of released RR data (marginal law, see module).

    The uniforms are drawn in one stream; with a thread ``pool`` they are drawn in blocks of
    that stream by ``workers`` threads (:func:`dprank.base.seeding.uniforms`) and the element-wise
    work that turns them into ``y~`` and ``a`` is split by rows over the threads (numpy
    releases the GIL), which changes no number. It finishes before a chunk is yielded, so the timed
    work that follows still runs alone.
    """
    iu, ju = np.triu_indices(theta.size, k=1)
    f = BTL.cdf(theta[iu] - theta[ju])
    step = max(1, int(chunk_elements) // iu.size)
    for start in range(0, eps.size, step):
        users = slice(start, min(eps.size, start + step))
        pe = rr_flip_probability(eps[users])[:, None]
        u = uniforms(rng, (users.stop - start, iu.size), pool, workers)
        parts = np.linspace(0, u.shape[0], min(workers, u.shape[0]) + 1).astype(int)
        if pool is None or len(parts) == 2:
            yt, a = u < p * (pe + (1.0 - 2.0 * pe) * f), u < p
        else:
            yt = np.empty(u.shape, dtype=bool)
            a = np.empty(u.shape, dtype=bool)

            def release(rows, u=u, pe=pe, yt=yt, a=a):
                np.less(u[rows], p * (pe[rows] + (1.0 - 2.0 * pe[rows]) * f), out=yt[rows])
                np.less(u[rows], p, out=a[rows])

            list(pool.map(release, [slice(lo, hi) for lo, hi in itertools.pairwise(parts)]))
        yield users, yt, a


def time_cell(
    chunk: Chunk,
    lambda_c: float = 1.0,
    gtol: float = 1e-8,
    max_iter: int = 100,
    chunk_elements: int = 4_000_000,
    workers: int = 1,
) -> Frame:
    """Timings of the ADRR aggregation and fit for the replicates of one ``(m, L)`` cell.

    ``chunk`` holds the cell, the replicates and where their draws come from. Returns tidy
    rows ``(model, m, L, replicate, method, metric, value)`` with metrics
    ``seconds_aggregate``, ``seconds_solve``, ``seconds_total``, the fit's
    ``l2_over_sqrt_m`` (a check that the timed work is the real estimator) and
    ``converged``. ``workers`` threads generate the (untimed) released data between the
    timed steps (same data for any number); what is timed runs in one thread.
    """
    from concurrent.futures import ThreadPoolExecutor

    cell, p, eps = check_chunk(chunk).cell, chunk.p, chunk.scheme()
    _checks.non_negative(lambda_c, "lambda_c")
    _checks.positive_finite(gtol, "gtol")
    _checks.count(max_iter, "max_iter", 1)
    _checks.count(chunk_elements, "chunk_elements", 1)
    _checks.count(workers, "workers")
    workers = max(1, int(workers))
    m, L = int(cell["m"]), int(cell["L"])
    rows = []
    with ThreadPoolExecutor(workers) as pool:  # threads start on first use (workers > 1)
        for r in chunk.replicates:
            theta = true_scores(cell, chunk.rng(r, Stream.THETA))
            budget = user_budgets(cell, eps, chunk.rng(r, Stream.EPSILON))
            rng = chunk.rng(r, Stream.RELEASE)
            P = m * (m - 1) // 2
            S, N = np.zeros(P), np.zeros(P)
            aggregate = 0.0
            t = time.perf_counter()
            w = adrr_weights(budget)
            B = privacy_constant(budget)
            aggregate += time.perf_counter() - t
            for users, yt, a in _released_chunks(
                theta, budget, p, rng, chunk_elements, pool, workers
            ):
                t = time.perf_counter()
                add_rr_statistics(S, N, yt, a, budget[users], w[users])
                aggregate += time.perf_counter() - t
            t = time.perf_counter()
            fit = fit_weighted_mle(
                S, N, m, default_lambda(L, B, lambda_c), BTL, gtol=gtol, max_iter=max_iter
            )
            solve = time.perf_counter() - t
            error = float(np.sqrt(np.mean((fit.theta - theta) ** 2)))
            for metric, value in (
                ("seconds_aggregate", aggregate),
                ("seconds_solve", solve),
                ("seconds_total", aggregate + solve),
                ("l2_over_sqrt_m", error),
                ("converged", float(fit.converged)),
            ):
                row = {"model": "btl", "m": m, "L": L, "replicate": int(r), "method": "local_adrr"}
                rows.append({**row, "metric": metric, "value": float(value)})
    return frame(rows)


def scaling_exponents(replicates: Frame) -> Frame:
    """Least-squares slopes of log median time on log L and log m (spec: ~1 and ~2).

    One row per timed metric: ``log t = c + a log L + b log m`` fitted to the
    cell medians (B2 S.3 claims time doubles with L and quadruples with m).
    """
    _checks.columns(replicates, "replicates", ("m", "L", "metric", "value"))
    rows = []
    for metric in ("seconds_aggregate", "seconds_solve", "seconds_total"):
        d = replicates[replicates["metric"] == metric]
        med = d.groupby(["m", "L"])["value"].median().reset_index()
        X = np.column_stack([np.ones(len(med)), np.log(med["L"]), np.log(med["m"])])
        coef, *_ = np.linalg.lstsq(X, np.log(med["value"]), rcond=None)
        rows.append({"metric": metric, "slope_log_L": coef[1], "slope_log_m": coef[2]})
    return frame(rows)


def machine_info(threads: int) -> dict:
    """What the timings were measured on (B2 Fig. 10 is hardware-specific)."""
    _checks.count(threads, "threads", 1)
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            names = [ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")]
        cpu = names[0] if names else cpu
    except OSError:
        pass
    return {
        "cpu": cpu,
        "logical_cpus": os.cpu_count(),
        "job_threads": int(threads),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "unset"),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "platform": platform.platform(),
    }
