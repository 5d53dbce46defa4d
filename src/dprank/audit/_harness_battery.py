"""The privacy harness's battery of distinguishers and the attacker's model of each path.

Each distinguisher is registered with :func:`register_distinguisher`. Private: see
:mod:`dprank.audit.harness`.
"""

from __future__ import annotations

import hashlib
import itertools
import math
import re
from collections.abc import Callable, Sequence

import numpy as np

from ..data.comparisons import Comparisons
from ._harness_core import Distinguisher, Game, register_distinguisher, statistic

# --------------------------------------------------------------------------- the attacker's model


def grid_exponent(scale: float, bits: int = 30) -> int:
    """``floor(log2 scale) - bits``: a grid ``bits`` binary orders below ``scale``."""
    return math.frexp(scale)[1] - 1 - bits


def _values(outputs) -> np.ndarray:
    return np.vstack([o.values for o in outputs]).astype(np.float64)


def _ranks(outputs) -> np.ndarray:
    return np.vstack([o.ranks for o in outputs]).astype(np.float64)


def _incidence(c: Comparisons) -> np.ndarray:
    inc = np.zeros((c.n_records, c.n_items))
    r = np.arange(c.n_records)
    inc[r, c.i] += 1.0
    inc[r, c.j] -= 1.0
    return inc


def _data_gradient(c: Comparisons, X: np.ndarray, y=None) -> np.ndarray:
    """``grad L(x; c)`` of the BTL loss for each row of ``X`` (outcomes ``y``, default ``c.y``)."""
    y = c.y if y is None else y
    d = X[:, c.i] - X[:, c.j]
    with np.errstate(over="ignore"):
        s = 1.0 / (1.0 + np.exp(-d))
    return (c.count * (s - y)) @ _incidence(c)


def _mle_model(game: Game) -> dict:
    """What the attacker knows of the MLE paths: ridge, noise scale, noise grids."""
    from .. import methods
    from ..fit.weighted_mle import noisy_obj_calibration
    from ..privacy.mechanisms import individual_gamma, individual_mle_noise_scale
    from ..privacy.noise import laplace_scale

    kind, eps, d0 = game.path.kind, game.eps, game.neighbours.d0
    if kind == "mle_edge":
        gamma = methods.data_edge_gamma(d0, eps, 2.0, 0.25)
        lam = laplace_scale(2.0, eps / 4.0)
    elif kind == "mle_individual":
        L = int(game.path.options["max_per_user"])
        gamma, lam = individual_gamma(eps, L), individual_mle_noise_scale(eps, L)
    elif kind == "noisy_obj":
        gamma, lam = noisy_obj_calibration(eps, 1e-6)
    else:
        raise ValueError(kind)
    return {
        "gamma": gamma,
        "lam": lam,
        "grids": sorted({grid_exponent(lam), grid_exponent(lam, 50)}),
    }


def _record_grids(outputs, fallback: Sequence[int]) -> list[int]:
    ks = set(fallback)
    for o in outputs[:1]:
        noise = o.record.get("noise", {}) if o.record else {}
        if "grid_exponent" in noise:
            ks.add(int(noise["grid_exponent"]))
    return sorted(ks)


def _implied_wins(game: Game, X: np.ndarray, model: dict) -> np.ndarray:
    """The noisy win totals an edge-DP MLE release implies: ``grad G(x) + N/2 + gamma x``."""
    c = game.neighbours.d0
    half = np.full(c.n_records, 0.5)
    n_per = np.bincount(c.i, c.count, c.n_items) + np.bincount(c.j, c.count, c.n_items)
    return _data_gradient(c, X, half) + 0.5 * n_per + model["gamma"] * X


def _wins(c: Comparisons) -> np.ndarray:
    from ..fit.ranking import copeland_counts

    return copeland_counts(c)


def _grid_distance(x: np.ndarray, k: int) -> np.ndarray:
    z = np.ldexp(x, -k)
    with np.errstate(invalid="ignore"):
        return np.abs(z - np.rint(z))


def _is_mle(game: Game) -> bool:
    return game.path.kind in ("mle_edge", "mle_individual", "noisy_obj")


#: The paths whose output is a local release's outcomes (no ranks).
_LOCAL_OUTCOMES = ("local_rr", "local_laplace", "local_rr3")


def _real_values(game: Game) -> bool:
    return game.path.kind not in ("top_k", "local_rr", "local_rr3")


def _individual(game: Game) -> bool:
    return game.path.kind in ("mle_individual", "counts") and bool(game.neighbours.target0)


# --------------------------------------------------------------------------- the battery


def _threshold(game, sel0, sel1):
    n_val = sel0[0].values.size
    has_ranks = sel0[0].ranks is not None

    def stat(outputs):
        cols = [_values(outputs)]
        if has_ranks:
            cols.append(_ranks(outputs))
        return np.hstack(cols)

    names = [f"value[{k}]" for k in range(n_val)]
    if has_ranks:
        names += [f"rank[{k}]" for k in range(sel0[0].ranks.size)]
    return statistic(stat, names)


def _difference(game, sel0, sel1):
    n = sel0[0].values.size
    pairs = list(itertools.combinations(range(n), 2))

    def stat(outputs):
        X = _values(outputs)
        return np.column_stack([X[:, a] - X[:, b] for a, b in pairs])

    return statistic(stat, [f"value[{a}] - value[{b}]" for a, b in pairs])


def _likelihood_ratio(game, sel0, sel1):
    """``log f1(x) - log f0(x)`` where the output law is known (larger: ``D1``)."""
    kind, nb = game.path.kind, game.neighbours
    w0, w1 = _wins(nb.seen0), _wins(nb.seen1)
    if kind == "counts":

        def stat(outputs):
            X = _values(outputs)
            scale = float(outputs[0].record["noise"]["noise_scale"])
            return (np.abs(X - w0).sum(1) - np.abs(X - w1).sum(1)) / scale

    elif kind == "mle_edge":
        model = _mle_model(game)

        def stat(outputs):
            W = _implied_wins(game, _values(outputs), model)
            return (np.abs(W - w0).sum(1) - np.abs(W - w1).sum(1)) / model["lam"]

    elif kind == "noisy_obj":
        model = _mle_model(game)

        def stat(outputs):
            W = _implied_wins(game, _values(outputs), model)
            P = lambda v: v - v.mean(axis=-1, keepdims=True)  # noqa: E731  (the mean is lost)
            sq = lambda v: (P(v) ** 2).sum(-1)  # noqa: E731
            return (sq(W - w0) - sq(W - w1)) / (2 * model["lam"] ** 2)

    elif kind == "mle_individual":
        from . import constrained_perturbed_mle_log_density as density

        model = _mle_model(game)
        m0, m1 = nb.seen0.to_wins(), nb.seen1.to_wins()

        def stat(outputs):
            X = _values(outputs)
            X = X - X.mean(axis=1, keepdims=True)
            g, lam = model["gamma"], model["lam"]
            return np.round(density(X, m1, g, lam) - density(X, m0, g, lam), 9)

    elif kind in ("local_rr", "local_laplace"):
        y0 = _local_outcomes(nb.seen0)
        y1 = _local_outcomes(nb.seen1)
        target = np.flatnonzero(y0 != y1)

        def stat(outputs):
            X = _values(outputs)[:, target]
            return np.abs(X - y0[target]).sum(1) - np.abs(X - y1[target]).sum(1)

    elif kind == "local_rr3":  # three outcomes: the log ratio is eps per target vote
        y0 = _local_outcomes(nb.seen0)
        y1 = _local_outcomes(nb.seen1)
        target = np.flatnonzero(y0 != y1)

        def stat(outputs):
            X = _values(outputs)[:, target]
            return (X == y1[target]).sum(1) - (X == y0[target]).sum(1)

    else:
        return statistic(lambda outputs: np.zeros((len(outputs), 0)))
    return statistic(stat, ["log-likelihood ratio"])


def _local_outcomes(c: Comparisons) -> np.ndarray:
    """Outcomes in the canonical order of a local release (user, first item, second item)."""
    i, j = np.minimum(c.i, c.j), np.maximum(c.i, c.j)
    y = np.where(c.i < c.j, c.y, 1.0 - c.y)
    order = np.lexsort((j, i, c.user))
    return y[order]


def _float_bits(game, sel0, sel1):
    def stat(outputs):
        X = _values(outputs)
        m = np.where(np.isfinite(X), X, 0.0).view(np.int64) & ((1 << 52) - 1)
        lowest = m & -m  # the lowest set bit of each mantissa
        with np.errstate(divide="ignore"):
            tz = np.where(m == 0, 52.0, np.log2(lowest.astype(np.float64)))
        low = (m & 1).astype(np.float64)
        return np.column_stack([tz.sum(1), low.sum(1), tz, low])

    n = sel0[0].values.size
    names = ["trailing zeros (sum)", "lowest bits (sum)"]
    names += [f"trailing zeros[{k}]" for k in range(n)] + [f"lowest bit[{k}]" for k in range(n)]
    return statistic(stat, names)


def _gradients(game, X, model, data: Comparisons) -> np.ndarray:
    return _data_gradient(data, X) + model["gamma"] * X


def _grid_residue(game, sel0, sel1):
    """Distance to the noise grid of what the release determines, under each data set."""
    kind, nb = game.path.kind, game.neighbours
    if kind in ("counts", "local_laplace"):
        ref0 = _wins(nb.seen0) if kind == "counts" else _local_outcomes(nb.seen0)
        ref1 = _wins(nb.seen1) if kind == "counts" else _local_outcomes(nb.seen1)

        def stat(outputs):
            X = _values(outputs)
            ks = _record_grids(outputs, [grid_exponent(1.0 / game.eps)] if kind != "counts" else [])
            cols = []
            for k in ks:
                cols.append(_grid_distance(X - ref0, k).sum(1) - _grid_distance(X - ref1, k).sum(1))
            return np.column_stack(cols) if cols else np.zeros((len(outputs), 0))

        return statistic(stat, ["residue(D0) - residue(D1)"])
    model = _mle_model(game)

    def stat(outputs):
        X = _values(outputs)
        ks = _record_grids(outputs, model["grids"])
        cols = []
        if kind == "mle_individual":
            g0, g1 = _gradients(game, X, model, nb.seen0), _gradients(game, X, model, nb.seen1)
            # sum-to-zero: the noise is determined up to a multiple of 1: take differences
            d0, d1 = g0 - g0[:, :1], g1 - g1[:, :1]
        else:
            W = _implied_wins(game, X, model)
            d0, d1 = W - _wins(nb.seen0), W - _wins(nb.seen1)
            if kind == "noisy_obj":
                d0, d1 = d0 - d0[:, :1], d1 - d1[:, :1]
        for k in ks:
            cols.append(_grid_distance(d0, k).sum(1) - _grid_distance(d1, k).sum(1))
        return np.column_stack(cols)

    return statistic(
        stat, [f"gradient residue on grid 2^k, k in {model['grids']} and the record's"]
    )


def _gradient_norm(game, sel0, sel1):
    """``||grad R(x; D1)||_1 - ||grad R(x; D0)||_1`` (up to a multiple of 1 under sum-to-zero)."""
    model = _mle_model(game)
    nb = game.neighbours

    def norm(g):
        if game.path.kind == "mle_edge":
            return np.abs(g).sum(1)
        return np.abs(g - np.median(g, axis=1, keepdims=True)).sum(1)

    def stat(outputs):
        X = _values(outputs)
        if game.path.kind == "mle_individual":
            g0, g1 = _gradients(game, X, model, nb.seen0), _gradients(game, X, model, nb.seen1)
        else:
            W = _implied_wins(game, X, model)
            g0, g1 = W - _wins(nb.seen0), W - _wins(nb.seen1)
        return norm(g0) - norm(g1)

    return statistic(stat, ["gradient l1 norm difference"])


def _candidate_sets(n: int, size: int) -> list[tuple]:
    comparisons = [(w, lo) for w in range(n) for lo in range(n) if w != lo]
    return list(itertools.combinations_with_replacement(comparisons, size))


def _pair_set_search(game, sel0, sel1):
    """The attacker knows everyone else; guess the target's comparisons among all candidates.

    Candidates: every multiset of the target's size of ``(winner, loser)`` comparisons.
    By grid residue (the noise grid of the record and the paper's): the candidates
    whose data determine the smallest distance to the grid; flipping an outcome moves
    the gradient by a whole vector, so these identify the *pairs* compared, and the
    verdict compares pair sets. By likelihood (the exact output density, or the
    Laplace law of the counts): the most likely candidate, outcomes included.
    Each column is ``+1`` where the guess is ``D1``'s target, ``-1`` where ``D0``'s.
    """
    nb = game.neighbours
    n = nb.seen0.n_items
    cands = _candidate_sets(n, len(nb.target0))

    def pairs_of(cand):
        return tuple(sorted(tuple(sorted(p)) for p in cand))

    pair_sets = [pairs_of(c) for c in cands]
    exact0, exact1 = tuple(sorted(nb.target0)), tuple(sorted(nb.target1))
    set0, set1 = pairs_of(nb.target0), pairs_of(nb.target1)
    is1 = np.array([c == exact1 for c in cands])
    pair0 = np.array([p == set0 for p in pair_sets])
    pair1 = np.array([p == set1 for p in pair_sets])
    exact0_mask = np.array([c == exact0 for c in cands])

    def verdict_exact(best):
        return is1[best].astype(float) - exact0_mask[best].astype(float)

    def verdict_pairs(best):
        if set0 == set1:  # the same pairs: only outcomes differ
            return np.zeros(best.size)
        return pair1[best].astype(float) - pair0[best].astype(float)

    comp = np.array([[w, lo] for w in range(n) for lo in range(n) if w != lo])
    comp_index = {tuple(p): k for k, p in enumerate(comp.tolist())}
    onehot = np.zeros((len(cands), comp.shape[0]))
    for r, cand in enumerate(cands):
        for p in cand:
            onehot[r, comp_index[p]] += 1.0
    others = nb.others

    if game.path.kind == "counts":
        wins_comp = np.zeros((comp.shape[0], n))
        wins_comp[np.arange(comp.shape[0]), comp[:, 0]] = 1.0
        w_cand = _wins(others) + onehot @ wins_comp  # (C, n)
        ks = _record_grids(sel0, [])

        def stat(outputs):
            X = _values(outputs)
            scale = float(outputs[0].record["noise"]["noise_scale"])
            diff = X[:, None, :] - w_cand[None]
            cols = [verdict_exact(_grid_distance(diff, k).sum(-1).argmin(1)) for k in ks]
            cols.append(verdict_exact((np.abs(diff).sum(-1) / scale).argmin(1)))
            return np.column_stack(cols)

        names = [f"best candidate by residue on 2^{k}" for k in ks] + ["by likelihood"]
        return statistic(stat, names)

    model = _mle_model(game)
    gamma, lam = model["gamma"], model["lam"]
    ks = _record_grids(sel0, model["grids"])
    from ._perturbed_mle import log_line_integral, sum_zero_basis

    basis = sum_zero_basis(n)
    K = np.arange(comp.shape[0])
    dvec = np.zeros((comp.shape[0], n))
    dvec[K, comp[:, 0]], dvec[K, comp[:, 1]] = 1.0, -1.0
    proj = dvec @ basis  # (K, n-1)
    outer = np.einsum("ka,kb->kab", proj, proj)

    def stat(outputs):
        X = _values(outputs)
        X = X - X.mean(axis=1, keepdims=True)
        g_base = _data_gradient(others, X) + gamma * X  # (T, n)
        d = X[:, comp[:, 0]] - X[:, comp[:, 1]]  # (T, K)
        with np.errstate(over="ignore"):
            s = 1.0 / (1.0 + np.exp(-d))
        contrib = np.zeros((X.shape[0], comp.shape[0], n))
        contrib[:, K, comp[:, 0]] = s - 1.0
        contrib[:, K, comp[:, 1]] = 1.0 - s
        g = g_base[:, None, :] + np.einsum("ck,tkn->tcn", onehot, contrib)  # (T, C, n)
        diffs = g - g[:, :, :1]
        cols = [verdict_pairs(_grid_distance(diffs, k).sum(-1).argmin(1)) for k in ks]
        # likelihood of the exact minimiser: log det(B^T H B) + log I(g)
        v = s * (1.0 - s)  # (T, K) curvature of each candidate comparison
        H = _others_hessian(others, X, basis, gamma)[:, None] + np.einsum(
            "ck,tk,kab->tcab", onehot, v, outer
        )
        _, logdet = np.linalg.slogdet(H)
        cols.append(verdict_exact((logdet + log_line_integral(g, lam)).argmax(1)))
        return np.column_stack(cols)

    names = [f"best pair set by gradient residue on 2^{k}" for k in ks] + ["by likelihood"]
    return statistic(stat, names)


def _others_hessian(others: Comparisons, X: np.ndarray, basis: np.ndarray, gamma: float):
    d = X[:, others.i] - X[:, others.j]
    with np.errstate(over="ignore"):
        s = 1.0 / (1.0 + np.exp(-d))
    v = others.count * s * (1.0 - s)
    proj = _incidence(others) @ basis  # (m, n-1)
    H = np.einsum("tm,ma,mb->tab", v, proj, proj)
    return H + gamma * np.eye(basis.shape[1])


def _order(game, sel0, sel1):
    n = sel0[0].ranks.size
    pairs = list(itertools.combinations(range(n), 2))

    def stat(outputs):
        R = _ranks(outputs)
        return np.column_stack([(R[:, a] < R[:, b]).astype(float) for a, b in pairs])

    return statistic(stat, [f"rank[{a}] < rank[{b}]" for a, b in pairs])


def _categorical(key: Callable) -> Callable:
    """A learned attack on a discrete feature: log ratio of its frequencies in the first half."""

    def build(game, sel0, sel1):
        c0, c1 = {}, {}
        for o in sel0:
            c0[key(o)] = c0.get(key(o), 0) + 1
        for o in sel1:
            c1[key(o)] = c1.get(key(o), 0) + 1

        def stat(outputs):
            return np.array(
                [math.log((c1.get(key(o), 0) + 0.5) / (c0.get(key(o), 0) + 0.5)) for o in outputs]
            )

        return statistic(stat, ["log frequency ratio"])

    return build


def _classifier(game, sel0, sel1):
    """Logistic regression on the values and their differences, trained on the first half."""
    n = sel0[0].values.size
    pairs = list(itertools.combinations(range(n), 2))

    def features(outputs):
        X = np.nan_to_num(_values(outputs), nan=0.0)
        F = [X] + ([np.column_stack([X[:, a] - X[:, b] for a, b in pairs])] if pairs else [])
        if outputs[0].ranks is not None:
            F.append(_ranks(outputs))
        return np.hstack(F)

    A = np.vstack([features(sel0), features(sel1)])
    y = np.concatenate([np.zeros(len(sel0)), np.ones(len(sel1))])
    mu, sd = A.mean(0), A.std(0)
    sd[sd == 0] = 1.0
    Z = np.column_stack([np.ones(A.shape[0]), (A - mu) / sd])
    w = np.zeros(Z.shape[1])
    for _ in range(25):
        p = 1.0 / (1.0 + np.exp(-np.clip(Z @ w, -30, 30)))
        H = (Z * (p * (1 - p))[:, None]).T @ Z + 1e-2 * np.eye(Z.shape[1])
        step = np.linalg.solve(H, Z.T @ (y - p) - 1e-2 * w)
        w += step
        if np.max(np.abs(step)) < 1e-8:
            break

    def stat(outputs):
        Zt = np.column_stack([np.ones(len(outputs)), (features(outputs) - mu) / sd])
        return Zt @ w

    return statistic(stat, ["logistic score"])


_NUMBER = re.compile(rb"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_WORD = re.compile(rb"[^\s,;:()\[\]]+")


def _unmasked(game: Game) -> bool:
    """Paths whose messages carry numbers that are functions of the release (``rank
    --intervals``' note): their text is also distinguished with the numbers kept."""
    return bool(game.path.options.get("unmasked_channels"))


def _words(key: Callable) -> Callable:
    """A text channel's words (numbers kept) as columns, each present or not: the threshold
    on each finds one data-dependent word however the rest of the text varies."""

    def build(game, sel0, sel1):
        vocab = sorted({w for o in [*sel0, *sel1] for w in _WORD.findall(key(o))})

        def stat(outputs):
            found = [set(_WORD.findall(key(o))) for o in outputs]
            return np.array([[w in f for w in vocab] for f in found], dtype=float).reshape(
                len(outputs), len(vocab)
            )

        return statistic(stat, [w.decode("utf-8", "replace") for w in vocab])

    return build


def _masked(data: bytes) -> str:
    """``data`` with every number replaced by ``#`` (released values and timings differ by run)."""
    return hashlib.sha256(_NUMBER.sub(b"#", data)).hexdigest()


for _d in (
    Distinguisher("threshold", _threshold),
    Distinguisher("difference", _difference, lambda g: _real_values(g) and g.path.kind != "top_k"),
    Distinguisher(
        "likelihood_ratio",
        _likelihood_ratio,
        lambda g: (
            g.path.kind
            in (
                "counts",
                "mle_edge",
                "noisy_obj",
                "mle_individual",
                "local_rr",
                "local_laplace",
                "local_rr3",
            )
        ),
    ),
    Distinguisher("float_bits", _float_bits, _real_values),
    Distinguisher(
        "grid_residue",
        _grid_residue,
        lambda g: _is_mle(g) or g.path.kind in ("counts", "local_laplace"),
    ),
    Distinguisher("gradient_norm", _gradient_norm, _is_mle),
    Distinguisher("pair_set_search", _pair_set_search, _individual),
    Distinguisher("order", _order, lambda g: g.path.kind not in _LOCAL_OUTCOMES),
    Distinguisher(
        "ranking",
        _categorical(lambda o: tuple(o.ranks.tolist())),
        lambda g: g.path.kind not in _LOCAL_OUTCOMES,
    ),
    Distinguisher("classifier", _classifier, lambda g: g.path.kind != "top_k"),
    Distinguisher(
        "exit_status",
        lambda game, s0, s1: statistic(
            lambda outs: np.array([o.channel.exit_status for o in outs]), ["exit status"]
        ),
        channel=True,
    ),
    Distinguisher("stdout", _categorical(lambda o: _masked(o.channel.stdout)), channel=True),
    Distinguisher("stderr", _categorical(lambda o: _masked(o.channel.stderr)), channel=True),
    Distinguisher(
        "stdout_unmasked",
        _categorical(lambda o: hashlib.sha256(o.channel.stdout).hexdigest()),
        _unmasked,
        channel=True,
    ),
    Distinguisher(
        "stderr_unmasked",
        _categorical(lambda o: hashlib.sha256(o.channel.stderr).hexdigest()),
        _unmasked,
        channel=True,
    ),
    Distinguisher("stderr_words", _words(lambda o: o.channel.stderr), _unmasked, channel=True),
    Distinguisher(
        "public_files",
        _categorical(
            lambda o: _masked(b"\0".join(k.encode() + b"=" + v for k, v in o.channel.files.items()))
        ),
        channel=True,
    ),
):
    register_distinguisher(_d)
del _d
