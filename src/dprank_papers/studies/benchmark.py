"""One benchmark for every private ranking method, and a slot for a new one (issue 19).

Every method of :mod:`dprank.methods` (both papers' mechanisms and the
non-private references), plus any method named in the config by import path
(``package.module:function``), ranks the same data at matched *user-level*
budgets:

* a **central** method with privacy unit ``"user"`` (Paper A, Algorithm 3)
  spends ``eps`` on each user's whole set of comparisons;
* a **central** method with privacy unit ``"comparison"`` (Paper A,
  Algorithms 1-2, the one-shot method, NoisyObj) runs at ``eps / L`` per
  comparison, ``L`` the most comparisons of any user: by group privacy an
  ``eps / L``-edge-DP release is ``eps``-DP for a user's ``L`` comparisons
  (for NoisyObj's ``(eps, delta)`` the ``delta`` grows to at most
  ``L e^eps delta``);
* a **local** method (Paper B) gives each of user ``l``'s ``S_l`` comparisons
  ``eps / S_l`` (accounting ``"user"``): randomized response is then
  ``eps``-LDP for the user's whole data (B2 supplement, section S.2). The
  per-comparison reading (accounting ``"comparison"``: ``eps`` per comparison,
  i.e. ``S_l eps`` per user) is the dashed variant of the figures.

Data: synthetic BTL data sets (``n`` items, ``users`` users with ``L``
comparisons each, pairs drawn uniformly with replacement, as in Paper A's
individual-DP design, scores from Paper B's ``U(-h, h)`` law), whose
reference is the true ``theta``, and the four real data sets (car preferences,
MovieLens as in B1, CEMS, immigration), whose reference is the non-private
MLE on all data. Every method sees the same data in a replicate; its noise
comes from :func:`dprank.base.seeding.generator` keyed by the data set, the method
name, the accounting, ``eps`` and the replicate.

Metrics (:mod:`dprank.fit.metrics_b`): normalised Kendall tau distance to the
reference ranking, top-``k`` Hamming error, and (synthetic data, methods that
estimate BTL scores) the ``l2`` error ``||theta_hat - theta||_2 / sqrt(n)`` of
the centred scores.

The functions here are pure; ``scripts/benchmark_*.py`` read and write files.
The summaries, findings and printed tables (:func:`summarise`,
:func:`threshold_table`, :func:`finding`, ...) live in the private module
``_benchmark_report`` and are imported from here.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from dprank.base import checks as _checks
from dprank.base.seeding import SHARED, Stream, cell_key, generator
from dprank.data.comparisons import Comparisons
from dprank.fit.metrics_b import kendall_distance, rms_error, top_k_hamming
from dprank.methods import Fit, Method, MethodInputError, get_method, method_from_path

from ._benchmark_report import (  # the report's public names are re-exported here
    ACCOUNTING,  # noqa: F401
    CELL_KEYS,
    METRICS,
    TABLE_HEADERS,  # noqa: F401
    finding,
    method_labels,
    summarise,
    threshold_markdown_frame,
    threshold_table,
    timing_frame,
)
from .paper_b2.scenarios import true_scores

__all__ = [
    "EXPERIMENT",
    "BenchmarkData",
    "MethodFailure",
    "accountings",
    "finding",
    "load_method",
    "method_labels",
    "plugin_methods",
    "real_comparisons",
    "run_method",
    "summarise",
    "synthetic_replicate",
    "threshold_markdown_frame",
    "threshold_table",
    "timing_frame",
    "user_budgets",
]

EXPERIMENT = "benchmark"
REAL = ("car_preferences", "movielens", "cems", "immig")


class MethodFailure(RuntimeError):
    """A method raised, or returned scores of the wrong shape or non-finite values."""


@dataclass(frozen=True)
class BenchmarkData:
    """One replicate's data of a benchmark data set.

    Attributes
    ----------
    comparisons : Comparisons
        The raw comparisons with users.
    reference : (n,) numpy.ndarray
        Reference scores (true ``theta`` or the non-private fit on all data).
    k : int
        Size of the top set of the Hamming error.
    synthetic : bool
        Whether ``reference`` is the true ``theta`` (then the ``l2`` error is reported).
    """

    comparisons: Comparisons
    reference: np.ndarray
    k: int
    synthetic: bool


# --------------------------------------------------------------------------- methods


def load_method(name: str, entry: Mapping) -> Method:
    """A plug-in method from its config entry (the slot for a new method).

    Parameters
    ----------
    name : str
        The method's name in the benchmark (config key).
    entry : mapping
        ``function`` (``package.module:function``), ``privacy_unit``
        (``comparison`` or ``user``), ``trust_model`` (``central`` or
        ``local``) and optionally ``release`` (``rr`` or ``laplace``: the
        users' release a local method's ``fit`` takes), ``description``, ``label``
        (its name in legends and tables; default ``name``).

    Raises
    ------
    ValueError
        If the path is not ``package.module:function``, the module cannot be
        imported or has no such function (the message names the method).
    """
    _checks.text(name, "name")
    _checks.mapping(entry, "entry")
    missing = [k for k in ("privacy_unit", "trust_model") if k not in entry]
    if missing:
        raise ValueError(f"benchmark method {name!r}: entry lacks {missing}")
    spec = str(entry.get("function", ""))
    try:
        method = method_from_path(
            spec,
            name,
            entry["privacy_unit"],
            entry["trust_model"],
            needs_users=True,
            release=entry.get("release", "rr") if entry["trust_model"] == "local" else None,
            description=entry.get("description", ""),
            label=entry.get("label", ""),
        )
    except (ImportError, AttributeError, ValueError) as exc:
        cause = exc if isinstance(exc, (ImportError, AttributeError)) else exc.__cause__
        if isinstance(cause, (ImportError, AttributeError)):
            raise ValueError(
                f"benchmark method {name!r}: cannot load {spec!r} "
                f"({type(cause).__name__}: {cause}); "
                "expected 'package.module:function' importable from the project root"
            ) from None
        raise ValueError(f"benchmark method {name!r}: {exc}") from None
    if not callable(method.fit):
        raise ValueError(f"benchmark method {name!r}: {spec!r} is not callable")
    return method


def plugin_methods(config: Mapping) -> dict[str, Mapping]:
    """The config's plug-in entries (``benchmark.plugins``) that are switched on."""
    return {
        name: entry
        for name, entry in (config.get("plugins") or {}).items()
        if entry.get("enabled", True)
    }


def resolve_method(name: str, config: Mapping) -> Method:
    """A registered method, or a plug-in of ``config`` (the ``benchmark`` section)."""
    plugins = plugin_methods(config)
    if name in plugins:
        return load_method(name, plugins[name])
    return get_method(name)


def accountings(method: Method) -> tuple[str, ...]:
    """The budget accountings a method runs under.

    ``("user",)`` for central methods (their budget is per user by design or by
    group privacy), ``("user", "comparison")`` for local methods (``eps / S_l``
    per comparison, and the dashed per-comparison reading ``eps``), ``("none",)``
    for the non-private references.
    """
    if method.trust_model == "none":
        return ("none",)
    if method.trust_model == "local":
        return ("user", "comparison")
    return ("user",)


def user_budgets(method: Method, comparisons: Comparisons, eps: float, accounting: str):
    """What ``method.run`` gets as ``eps`` for a user-level budget ``eps``.

    Parameters
    ----------
    method : Method
    comparisons : Comparisons
        Raw comparisons with users.
    eps : float
        The user-level budget.
    accounting : {"user", "comparison", "none"}
        See the module docstring.

    Returns
    -------
    float or (n_users,) numpy.ndarray
        ``eps`` (central, user unit), ``eps / L`` (central, comparison unit,
        ``L`` the most comparisons of a user), ``eps / S_l`` per user (local,
        ``"user"``), ``eps`` for every user (local, ``"comparison"``), ``inf``
        (non-private).
    """
    if accounting not in ("user", "comparison", "none"):
        raise ValueError(f"accounting must be 'user', 'comparison' or 'none', got {accounting!r}")
    if accounting == "none" or method.trust_model == "none":
        return math.inf
    counts = comparisons.per_user_counts()
    if method.trust_model == "local":
        if accounting == "comparison":
            return np.full(counts.size, float(eps))
        return float(eps) / np.maximum(counts, 1.0)
    if method.privacy_unit == "comparison":
        return float(eps) / float(np.max(counts))
    return float(eps)


def _check_fit(out, n: int, name: str) -> tuple[np.ndarray, np.ndarray | None]:
    fit = out if isinstance(out, Fit) else Fit(scores=np.asarray(out, dtype=np.float64))
    scores = np.asarray(fit.scores, dtype=np.float64)
    if scores.shape != (n,):
        raise MethodFailure(
            f"method {name!r} returned scores of shape {scores.shape}, expected ({n},)"
        )
    if not np.all(np.isfinite(scores)):
        raise MethodFailure(
            f"method {name!r} returned {int(np.sum(~np.isfinite(scores)))} non-finite "
            f"score(s) of {n}"
        )
    ranks = None if fit.ranks is None else np.asarray(fit.ranks)
    if ranks is not None and ranks.shape != (n,):
        raise MethodFailure(f"method {name!r} returned ranks of shape {ranks.shape}")
    return scores, ranks


# --------------------------------------------------------------------------- data


def _cell(dataset: str) -> int:
    return cell_key({"dataset": dataset})


def synthetic_replicate(
    dataset: str, spec: Mapping, seed: int, replicate: int
) -> tuple[Comparisons, np.ndarray]:
    """One replicate of a synthetic BTL data set.

    ``theta`` follows Paper B's law ``U(-h, h)`` centred
    (:func:`dprank_papers.studies.paper_b2.scenarios.true_scores`, ``theta_law``);
    each of ``users`` users draws ``L`` pairs uniformly with replacement from
    the ``n (n - 1) / 2`` pairs (Paper A section 3, individual DP) and ``i``
    beats ``j`` with probability ``1 / (1 + e^{theta_j - theta_i})``.

    Parameters
    ----------
    dataset : str
        Name of the data set (keys the random streams).
    spec : mapping
        ``n``, ``users``, ``L`` and ``theta_law``.
    seed : int
        Root seed.
    replicate : int

    Returns
    -------
    (Comparisons, numpy.ndarray)
        The comparisons (with users) and ``theta``.
    """
    n, users, L = int(spec["n"]), int(spec["users"]), int(spec["L"])
    cell = _cell(dataset)
    theta = true_scores(
        {"m": n}, generator(seed, EXPERIMENT, cell, replicate, Stream.THETA), spec["theta_law"]
    )
    rng = generator(seed, EXPERIMENT, cell, replicate, Stream.DATA)
    P = n * (n - 1) // 2
    k = rng.integers(0, P, size=users * L)
    iu, ju = np.triu_indices(n, k=1)
    a, b = iu[k], ju[k]
    p = 1.0 / (1.0 + np.exp(theta[b] - theta[a]))
    y = (rng.random(k.size) < p).astype(np.float64)
    user = np.repeat(np.arange(users, dtype=np.int64), L)
    return Comparisons(n_items=n, i=a, j=b, y=y, count=np.ones(k.size), user=user), theta


def _from_frame(frame: pd.DataFrame) -> Comparisons:
    """``winner, loser, user`` rows as comparisons (items and users numbered in sorted order)."""
    labels = np.array(sorted(set(frame["winner"]) | set(frame["loser"])))
    index = {v: k for k, v in enumerate(labels)}
    users = pd.factorize(frame["user"], sort=False)[0]
    return Comparisons.from_winner_loser(
        frame["winner"].map(index).to_numpy(),
        frame["loser"].map(index).to_numpy(),
        user=users,
        labels=labels,
    )


def real_comparisons(dataset: str, files: Sequence[str], spec: Mapping, seed: int) -> Comparisons:
    """The comparisons of a real data set, with users.

    * ``cems``, ``immig``: the decided comparisons of Paper A's Figure 8
      (:func:`dprank.data.realdata.cems_comparisons`,
      :func:`~dprank.data.realdata.immig_comparisons`);
    * ``car_preferences``: B2 section 5.2's 60 users' answers of the 45 pairs
      of 10 cars (the 25 missing ones left out);
    * ``movielens``: B1 section 5.3's comparisons of the ``n_movies`` most-rated
      movies by every user (ratings decide, coin flips otherwise; the flips are
      one fixed draw keyed by the data set, replicate :data:`SHARED`).
    """
    _checks.text(dataset, "dataset")
    if dataset not in REAL:
        raise ValueError(
            f"dataset: unknown benchmark data set {dataset!r}; known: {', '.join(REAL)}"
        )
    files = _checks.sequence(files, "files")
    if not files:
        raise ValueError("files must name the data set's files, got none")
    _checks.path(files[0], "files")
    _checks.mapping(spec, "spec")
    _checks.count(seed, "seed")
    if dataset == "cems":
        from dprank.data.realdata import cems_comparisons, read_cems

        return _from_frame(cems_comparisons(read_cems(files[0])))
    if dataset == "immig":
        from dprank.data.realdata import immig_comparisons, read_immig

        return _from_frame(immig_comparisons(read_immig(files[0])))
    if dataset == "car_preferences":
        from .paper_b2_car import read_car_data

        data = read_car_data(Path(files[0]).parent, allow_missing=True)
        u, k = np.nonzero(data.observed)
        iu, ju = np.triu_indices(data.m, k=1)
        return Comparisons(
            n_items=data.m,
            i=iu[k],
            j=ju[k],
            y=data.y[u, k].astype(np.float64),
            count=np.ones(u.size),
            user=u,
            labels=np.asarray([str(c) for c in data.item_ids]),
        )
    if dataset == "movielens":
        from .paper_b1_movielens import read_ratings, user_comparisons

        ratings = read_ratings(files[0], int(spec.get("n_movies", 40)))
        rng = generator(seed, EXPERIMENT, _cell(dataset), SHARED, Stream.DATA)
        y = user_comparisons(ratings.ratings, rng)
        U, P = y.shape
        iu, ju = np.triu_indices(ratings.m, k=1)
        return Comparisons(
            n_items=ratings.m,
            i=np.tile(iu, U),
            j=np.tile(ju, U),
            y=y.ravel().astype(np.float64),
            count=np.ones(U * P),
            user=np.repeat(np.arange(U, dtype=np.int64), P),
            labels=np.asarray([str(v) for v in ratings.movie_ids]),
        )
    raise ValueError(f"unknown benchmark data set {dataset!r}; known: {', '.join(REAL)}")


def top_k(spec: Mapping, n: int) -> int:
    """``k`` of the top-k Hamming error: the spec's ``k``, else ``max(1, round(n/4))`` (A)."""
    return int(spec.get("k") or max(1, round(n / 4)))


def reference_scores(comparisons: Comparisons) -> np.ndarray:
    """The non-private MLE on all data (registry ``nonprivate_mle``), the real-data reference."""
    fit = get_method("nonprivate_mle").fit(comparisons, math.inf, np.random.default_rng(0))
    return np.asarray(fit.scores, dtype=np.float64)


# --------------------------------------------------------------------------- running


def run_method(
    method: Method,
    dataset: str,
    replicates: Sequence[BenchmarkData] | None,
    epsilon: Sequence[float],
    seed: int,
    *,
    data_of=None,
    reps: int | None = None,
) -> pd.DataFrame:
    """Every ``(accounting, eps, replicate)`` fit of one method on one data set.

    Parameters
    ----------
    method : Method
    dataset : str
    replicates : sequence of BenchmarkData, optional
        The data of every replicate (or ``data_of`` and ``reps``).
    epsilon : sequence of float
        User-level budgets.
    seed : int
        Root seed.
    data_of : callable, optional
        ``data_of(replicate) -> BenchmarkData`` (built lazily, one at a time).
    reps : int, optional
        Number of replicates with ``data_of``.

    Returns
    -------
    pandas.DataFrame
        One row per fit: ``dataset, method, trust_model, privacy_unit,
        accounting, eps, replicate, kendall, top_k, l2, seconds``. The
        non-private references run once per replicate (``eps = inf``).

    Raises
    ------
    MethodInputError
        The method cannot run on this data (e.g. the one-shot method without a
        complete tournament): a note, not a failure.
    MethodFailure
        The method raised anything else or returned bad scores; the message names it.
    """
    if not isinstance(method, Method):
        raise TypeError(f"method must be a dprank.methods.Method, got {type(method).__name__}")
    _checks.text(dataset, "dataset")
    epsilon = [_checks.positive(e, "epsilon") for e in _checks.sequence(epsilon, "epsilon")]
    _checks.count(seed, "seed")
    if data_of is None:
        if isinstance(replicates, (str, bytes)) or not isinstance(replicates, Sequence):
            raise TypeError(
                f"replicates must be a sequence of BenchmarkData (or pass data_of and reps), "
                f"got {type(replicates).__name__}"
            )
        if not all(isinstance(d, BenchmarkData) for d in replicates):
            raise TypeError("replicates must hold BenchmarkData")
        data = list(replicates)
        data_of, reps = (lambda r: data[r]), len(data)
    elif not callable(data_of):
        raise TypeError(f"data_of must be callable, got {type(data_of).__name__}")
    _checks.count(reps, "reps")
    rows = []
    for r in range(int(reps)):
        d = data_of(r)
        c, n = d.comparisons, d.comparisons.n_items
        for acc in accountings(method):
            grid = [math.inf] if acc == "none" else list(epsilon)
            for eps in grid:
                key = cell_key({"dataset": dataset, "method": method.name, "acc": acc, "eps": eps})
                rng = generator(seed, EXPERIMENT, key, r, Stream.NOISE_MLE)
                budget = user_budgets(method, c, eps, acc)
                t0 = time.perf_counter()
                try:
                    out = method.run(c, budget, rng)
                except MethodInputError:
                    raise
                except Exception as exc:
                    raise MethodFailure(
                        f"method {method.name!r} failed on {dataset} (eps = {eps}, replicate "
                        f"{r}): {type(exc).__name__}: {exc}"
                    ) from exc
                seconds = time.perf_counter() - t0
                scores, ranks = _check_fit(out, n, method.name)
                est = scores if ranks is None else -ranks.astype(np.float64)
                l2 = math.nan
                if d.synthetic and method.models and ranks is None:
                    l2 = float(rms_error(scores - scores.mean(), d.reference - d.reference.mean()))
                rows.append(
                    {
                        "dataset": dataset,
                        "method": method.name,
                        "trust_model": method.trust_model,
                        "privacy_unit": method.privacy_unit,
                        "accounting": acc,
                        "eps": eps,
                        "replicate": r,
                        "kendall": float(kendall_distance(est, d.reference)),
                        "top_k": float(top_k_hamming(est, d.reference, d.k)),
                        "l2": l2,
                        "seconds": seconds,
                    }
                )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------- data sets


def is_synthetic(spec: Mapping) -> bool:
    """Whether a data set's config entry describes a synthetic BTL design."""
    return "n" in spec


def data_source(dataset: str, spec: Mapping, files: Sequence[str], seed: int):
    """``data_of(replicate) -> BenchmarkData`` for one data set.

    Synthetic: fresh data every replicate (:func:`synthetic_replicate`), the
    true ``theta`` as reference. ``movielens``: B1's protocol, ``users`` users
    drawn with replacement every replicate and their comparisons with fresh
    coin flips (:func:`dprank_papers.studies.paper_b1_movielens.user_comparisons`),
    B1's non-private fit on all users as reference
    (:func:`~dprank_papers.studies.paper_b1_movielens.reference_theta`). The other
    real data sets: the same comparisons every replicate (only the noise
    changes), the non-private MLE on them as reference.
    """
    if is_synthetic(spec):
        k = top_k(spec, int(spec["n"]))

        def synthetic(r: int) -> BenchmarkData:
            c, theta = synthetic_replicate(dataset, spec, seed, r)
            return BenchmarkData(c, theta, k, True)

        return synthetic
    if dataset == "movielens":
        from .paper_b1_movielens import read_ratings, reference_theta, user_comparisons

        ratings = read_ratings(files[0], int(spec.get("n_movies", 40)))
        ref = reference_theta(ratings.ratings)
        m, users = ratings.m, int(spec["users"])
        k = top_k(spec, m)
        iu, ju = np.triu_indices(m, k=1)
        P = iu.size

        def movielens(r: int) -> BenchmarkData:
            rng = generator(seed, EXPERIMENT, _cell(dataset), r, Stream.DATA)
            rows = rng.integers(0, ratings.n_users, size=users)
            y = user_comparisons(ratings.ratings[rows], rng)
            c = Comparisons(
                n_items=m,
                i=np.tile(iu, users),
                j=np.tile(ju, users),
                y=y.ravel().astype(np.float64),
                count=np.ones(users * P),
                user=np.repeat(np.arange(users, dtype=np.int64), P),
            )
            return BenchmarkData(c, ref, k, False)

        return movielens
    c = real_comparisons(dataset, files, spec, seed)
    fixed = BenchmarkData(c, reference_scores(c), top_k(spec, c.n_items), False)
    return lambda r: fixed


def describe(dataset: str, spec: Mapping, data: BenchmarkData) -> dict:
    """Sizes of a data set (items, users, comparisons, ``L`` = most per user) for the notes."""
    c = data.comparisons
    counts = c.per_user_counts()
    return {
        "dataset": dataset,
        "items": int(c.n_items),
        "users": int(c.n_users),
        "comparisons": int(c.n_comparisons),
        "L": int(np.max(counts)),
        "mean_per_user": float(np.mean(counts)),
        "k": int(data.k),
        "reference": "true theta" if data.synthetic else "non-private fit on all data",
    }


def empty_rows() -> pd.DataFrame:
    """The (empty) rows of a method that did not run."""
    cols = [*CELL_KEYS, "replicate", *METRICS, "seconds"]
    return pd.DataFrame({c: pd.Series(dtype=object if c in CELL_KEYS[:5] else float) for c in cols})
