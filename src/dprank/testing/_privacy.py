"""The contract's privacy check: the claim against the privacy harness's lower bound (private;
see :mod:`dprank.testing`)."""

from __future__ import annotations

import dataclasses

import numpy as np

from ..data.comparisons import Comparisons
from ..methods import Method
from ._setting import (
    AUDIT_DISTINGUISHERS,
    AUDIT_TRIALS,
    N_ITEMS,
    L,
    as_method,
    calling,
    checked_epsilon,
    fail,
    level_of,
    model_of,
    rank_with,
    short_name,
)

# --------------------------------------------------------------------------- privacy


def claimed_loss(method: Method, eps: float) -> tuple[float, float] | None:
    """``(epsilon, delta)`` of the method's privacy map at ``eps``, or None without one."""
    loss = getattr(method, "privacy_loss", None)
    if not callable(loss):
        return None
    declared = {"n_items": N_ITEMS, "L": L, "max_per_user": L, "k": 1, "top_k": 1}
    out = loss(eps, **declared)
    return float(out.epsilon), float(out.delta)


def audit_claim(method: Method | str, eps: float = 1.0) -> tuple[float, float]:
    """The ``(epsilon, delta)`` that ``method`` claims at budget ``eps`` on the tiny data.

    :meth:`Method.privacy_loss` where the method has one (its privacy map); otherwise
    the record of a release: its ``epsilon`` and ``delta`` (for a local method, whose
    record states no epsilon, ``eps`` per comparison and the record's ``delta``).
    """
    method = as_method(method)
    eps = checked_epsilon(eps, "eps")
    loss = claimed_loss(method, eps)
    if loss is not None:
        return loss
    record = rank_with(method, eps, 0).record()
    claimed = record["epsilon"] if record["epsilon"] is not None else float(eps)
    return float(claimed), float(record["delta"])


def _shipped_path(method: Method):
    """The privacy harness's own release path of ``method``, if it has one."""
    from ..api import method_name
    from ..audit import harness

    for path in harness.PATHS.values():
        opts = path.options
        if "privacy" not in opts or "method" not in opts:
            continue
        try:
            name = method_name(
                opts["privacy"],
                opts["method"],
                as_published=bool(opts.get("as_published")),
                model=opts.get("model", "btl"),
            )
        except ValueError:
            continue
        if name == method.name:
            return path
    return None


def _template_path(method: Method):
    """A shipped path of the same privacy level, outcomes and release: its neighbours."""
    from ..audit import harness

    level = level_of(method)
    if level == "edge":
        name = (
            "rank --privacy edge --model davidson (edge_ties)"
            if method.ties
            else "rank --privacy edge --method counts"
        )
    elif level == "individual":
        name = (
            "rank --privacy individual --model davidson --max-per-user 2 (individual_ties)"
            if method.ties
            else "rank --privacy individual --method counts --max-per-user 2"
        )
    elif method.ties or method.release == "rr3":
        name = "privatize (votes with ties) | rank --privacy local --model davidson (local_ties)"
    else:
        mechanism = "laplace" if method.release == "laplace" else "rr"
        name = f"privatize --mechanism {mechanism} | rank --privacy local --method " + (
            "laplace" if mechanism == "laplace" else "adrr"
        )
    return harness.PATHS[name]


def audit_path(method: Method | str, claim: tuple[float, float] | None = None):
    """The release path the contract's privacy check plays for ``method``.

    The privacy harness's own path of the method (:data:`dprank.audit.harness.PATHS`)
    where it has one, else the neighbours of a shipped path of its privacy level and
    outcomes (edge, individual, local; two or three outcomes) with the method run
    through :func:`dprank.rank` (a local method on the users' release). Its claim is
    ``claim``, by default :func:`audit_claim` at each budget.

    Returns
    -------
    dprank.audit.harness.ReleasePath
    """
    from ..api import rank
    from ..audit import harness
    from ..privacy.noise import NoiseSource
    from ..privacy.release import local_release

    method = as_method(method)
    if not method.private:
        raise ValueError(f"method {method.name} is not private: it has no privacy claim to audit")
    if claim is not None:
        if not isinstance(claim, tuple) or len(claim) != 2:
            raise TypeError(f"claim must be a pair (epsilon, delta) or None, got {claim!r}")
        claim = (checked_epsilon(claim[0], "claim"), float(claim[1]))
        if not 0.0 <= claim[1] < 1.0:
            raise ValueError(f"claim's delta must be in [0, 1), got {claim[1]!r}")

    def claimed(eps):
        return audit_claim(method, eps) if claim is None else claim

    shipped = _shipped_path(method)
    if shipped is not None:
        return dataclasses.replace(shipped, claim=claimed)
    template = _template_path(method)
    level = level_of(method)
    opts = dict(template.options)
    mechanism = {"rr3": "rr"}.get(opts.get("mechanism", "rr"), opts.get("mechanism", "rr"))

    def api(data: Comparisons, eps: float, noise: NoiseSource):
        kw = {"method": method.name, "model": model_of(method)}
        if level in ("edge", "individual"):
            kw["epsilon"] = eps
        if level == "individual":
            kw["max_per_user"] = int(opts.get("max_per_user", 2))
        kw["items"] = list(np.asarray(data.labels).astype(str))
        if level == "local":
            data = local_release(data, np.full(data.n_users, eps), noise, mechanism)
        r = rank(data, privacy=level, rng=noise, **kw)
        values = np.asarray(r.scores, dtype=np.float64).copy()
        ranks = np.asarray(r.ranks, dtype=np.float64)
        if not r.fit.scores_released:
            values[:] = np.nan
        return harness.Output(values, ranks, r.record())

    return harness.ReleasePath(
        f"contract: {method.name}",
        "scores",
        template.relation,
        template.neighbours,
        claimed,
        None,
        api,
        options={**opts, "method": short_name(method), "privacy": level},
    )


def check_privacy(method: Method, eps: float, trials: int = AUDIT_TRIALS) -> None:
    if not method.private:
        return
    from ..audit import harness

    claim = calling(method, "privacy", "the claimed privacy loss", lambda: audit_claim(method, eps))
    path = audit_path(method, claim)
    rng = np.random.default_rng(20_531)
    results = calling(
        method,
        "privacy",
        "the privacy harness's game",
        lambda: harness.play(
            path, eps, trials, rng, distinguishers=list(AUDIT_DISTINGUISHERS), alpha=0.05
        ),
    )
    for res in results:
        if res.eps_lower_bound > claim[0] + 1e-9:
            top = max(res.results, key=lambda r: r["eps_lower"])
            raise fail(
                method,
                "privacy",
                f"the audit's lower bound on epsilon, {res.eps_lower_bound:.3f} (distinguisher "
                f"{top['distinguisher']}: {top['event']}; neighbours {res.neighbours}, "
                f"{trials} runs per side), exceeds the claimed epsilon {claim[0]:.3f} "
                f"(delta {claim[1]:g}) at a requested {eps:g}: the release leaks more than it "
                "claims",
            )
