"""The contract's setting: its constants, the tiny data and how a method is called (private).

See :mod:`dprank.testing`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..data.comparisons import Comparisons
from ..methods import Method, get_method

CHECKS = (
    "declaration",
    "rank_secure",
    "rank_seeded",
    "record",
    "command",
    "benchmark",
    "intervals",
    "bad_input",
    "privacy",
)

#: The public record's fields and their types (``None`` allowed where listed).
RECORD_FIELDS = {
    "mechanism": (str,),
    "description": (str,),
    "paper": (str,),
    "algorithm": (str,),
    "privacy": (str,),
    "privacy_unit": (str,),
    "trust_model": (str,),
    "private": (bool,),
    "epsilon": (float, type(None)),
    "delta": (float,),
    "max_per_user": (int, type(None)),
    "model": (str, type(None)),
    "top_k": (int, type(None)),
    "noise": (dict,),
    "public": (str,),
    "items": (str,),
}

#: Runs per data set of the privacy check's game (half choose each distinguisher's event,
#: half count it): enough to catch a release with no noise or far too little, at the
#: cost of a few seconds per method.
AUDIT_TRIALS = 100

#: The distinguishers of the privacy check (a cheap part of the harness's battery).
AUDIT_DISTINGUISHERS = ("threshold", "difference", "likelihood_ratio", "order", "ranking")

#: Privacy levels of :func:`dprank.rank`, the prefix of their methods' names, and the
#: ``(privacy_unit, trust_model)`` each prefix stands for.
LEVELS = {
    "edge": ("edge", ("comparison", "central")),
    "individual": ("individual", ("user", "central")),
    "local": ("local", ("user", "local")),
    "none": ("nonprivate", ("none", "none")),
}

#: The declared bound on one user's comparisons used under individual DP.
L = 3
#: The tiny data's items.
N_ITEMS = 4


class ContractError(AssertionError):
    """A method breaks its contract: the message names the method, the check and the fix."""


@dataclass(frozen=True)
class Check:
    """One check of the contract on one method: ``check()`` runs it (raises ContractError)."""

    method: str
    name: str
    run: Callable[[], None]

    def __call__(self) -> None:
        self.run()

    def __repr__(self) -> str:
        return f"Check({self.method!r}, {self.name!r})"


# --------------------------------------------------------------------------- the method's setting


def level_of(method: Method) -> str:
    for level, (prefix, _) in LEVELS.items():
        if method.name.startswith(prefix + "_"):
            return level
    raise ContractError(
        f"method {method.name}: its name must begin with its privacy level's prefix "
        "(edge_, individual_, local_ or nonprivate_), so that dprank rank --privacy LEVEL "
        "--method NAME finds it"
    )


def model_of(method: Method) -> str:
    """The comparison model the checks fit with."""
    if method.ties and "davidson" in method.models:
        return "davidson"
    return method.models[0] if method.models else "btl"


def short_name(method: Method) -> str:
    """The name the command takes after ``--method`` (the registry name less its prefix)."""
    return method.name.split("_", 1)[1]


def tiny_comparisons(method: Method | str, *, users: bool | None = None) -> Comparisons:
    """The tiny raw data the checks fit ``method`` on.

    Four items, every pair compared (once each for a method that needs a complete
    tournament, else twice, with upsets); users ``u0..u3`` (at most :data:`L` comparisons
    each) where the method needs them (or ``users=True``); votes with ties
    (``ties=True``: outcomes 1, 1/2, 0) for a ties method.
    """
    method = as_method(method)
    if users is not None and not isinstance(users, bool):
        raise TypeError(f"users must be True, False or None, got {users!r}")
    users = method.needs_users if users is None else users
    pairs = [(a, b) for a in range(N_ITEMS) for b in range(a + 1, N_ITEMS)]
    rounds = 1 if method.needs_complete_graph else 2
    i, j, y = [], [], []
    for r in range(rounds):
        for k, (a, b) in enumerate(pairs):
            i.append(a)
            j.append(b)
            if method.ties:
                y.append((1.0, 0.5, 1.0, 0.0)[(k + r) % 4])
            else:
                y.append(0.0 if (k + r) % 4 == 3 else 1.0)  # the lower index wins, with upsets
    n = len(i)
    user = np.arange(n) % N_ITEMS if users else None  # 4 users, 1 to 3 comparisons each
    return Comparisons(
        n_items=N_ITEMS,
        i=np.array(i, dtype=np.int64),
        j=np.array(j, dtype=np.int64),
        y=np.array(y),
        count=np.ones(n),
        user=None if user is None else user.astype(np.int64),
        labels=np.array([f"item{k}" for k in range(N_ITEMS)]),
        ties=bool(method.ties),
    )


def local_input(method: Method, raw: Comparisons, eps: float, rng) -> Comparisons:
    """The users' local release of ``raw`` that a local method ranks."""
    from ..privacy.noise import as_noise_source
    from ..privacy.release import local_release

    mechanism = method.release or "rr"
    if mechanism == "rr3" or raw.ties:
        mechanism = "rr"  # comparisons with ties: three-outcome randomized response
    return local_release(raw, np.full(raw.n_users, eps), as_noise_source(rng), mechanism)


def rank_args(method: Method, eps: float) -> dict:
    """The keyword arguments of :func:`dprank.rank` for ``method`` (data and rng apart)."""
    level = level_of(method)
    kw = {"privacy": level, "method": method.name, "model": model_of(method)}
    if level in ("edge", "individual"):
        kw["epsilon"] = eps
    if level == "individual":
        kw["max_per_user"] = L
    if level in ("individual", "local"):
        kw["items_from_data"] = True
    if method.needs_complete_graph:
        kw["top_k"] = 1
    return kw


def rank_with(method: Method, eps: float, rng, data: Comparisons | None = None):
    """:func:`dprank.rank` of ``method`` on its tiny data (a local release of it, seeded)."""
    from ..api import rank

    raw = tiny_comparisons(method) if data is None else data
    if level_of(method) == "local":
        raw = local_input(method, raw, eps, np.random.default_rng(7))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the as-published counts warn
        return rank(raw, rng=rng, **rank_args(method, eps))


def as_method(method) -> Method:
    if isinstance(method, Method):
        return method
    if isinstance(method, str):
        return get_method(method)
    raise TypeError(
        f"method must be a registry name (str) or a dprank.methods.Method, got "
        f"{type(method).__name__}"
    )


_NOISE_HINT = (
    "; under dprank.rank and the command rng is a dprank.privacy.noise.NoiseSource "
    "(exact samplers: "
    "rng.laplace_mechanism(values, sensitivity, eps, bound=...), rng.laplace(scale, size)), "
    "under the benchmark a numpy Generator: dprank.privacy.noise.as_noise_source(rng) turns either "
    "into a NoiseSource"
)


def fail(method: Method, check: str, what: str) -> ContractError:
    return ContractError(f"method {method.name}, check {check}: {what}")


def calling(method: Method, check: str, what: str, fn: Callable):
    """``fn()``; an exception becomes a ContractError naming the call (and the noise hint)."""
    try:
        return fn()
    except ContractError:
        raise
    except Exception as exc:
        hint = _NOISE_HINT if "NoiseSource" in str(exc) or "Generator" in str(exc) else ""
        raise fail(method, check, f"{what} raised {type(exc).__name__}: {exc}{hint}") from exc


def checked_epsilon(value, name: str) -> float:
    """``value`` as a positive, finite float; a TypeError or ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    out = float(value)
    if not 0 < out < math.inf:
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return out
