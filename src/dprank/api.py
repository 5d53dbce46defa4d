"""The public ranking function: ``dprank.rank(comparisons, privacy=..., epsilon=...)``.

A thin layer over the method registry (:mod:`dprank.methods`): it turns a data
frame, arrays or a :class:`~dprank.comparisons.Comparisons` into comparisons,
picks the registered method for the privacy setting, fits it and returns a
:class:`Ranking`. The ``dprank rank`` command calls it.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .comparisons import Comparisons
from .inputs import comparisons_from_frame
from .methods import Fit, Method, all_methods, get_method
from .metrics_b import ranks as rank_scores
from .models import LINKS

__all__ = [
    "DEFAULT_METHOD",
    "PRIVACY",
    "DisconnectedWarning",
    "Ranking",
    "method_name",
    "rank",
]

#: ``privacy`` values and the prefix of their methods' registry names.
PRIVACY = {"edge": "edge", "individual": "individual", "local": "local", "none": "nonprivate"}
#: The method used when ``method`` is not given.
DEFAULT_METHOD = {"edge": "mle", "individual": "mle", "local": "adrr", "none": "mle"}


class DisconnectedWarning(UserWarning):
    """Some items never meet the rest: the ranking across components rests on the ridge."""


@dataclass(frozen=True, eq=False)
class Ranking:
    """A fitted ranking and everything needed to report and reproduce it.

    Attributes
    ----------
    items : (n,) numpy.ndarray of str
        Item labels, in item-index order.
    scores : (n,) numpy.ndarray
        Higher is better.
    ranks : (n,) numpy.ndarray of int64
        1 = best; ties in the scores go to the lower item index unless the
        method breaks them itself.
    top_k : int or None
    method : Method
        The registered method used.
    epsilon : float or None
        The budget (``None`` for local DP, whose budgets are the users', and
        for the non-private fit).
    model : str
    fit : Fit
        What the method returned (convergence, calibration details).
    n_items, n_users, n_comparisons, n_components : int
        ``n_users`` is 0 when the input has no users; ``n_comparisons`` counts
        the ``count`` multiplicities.
    L : int or None
        The largest number of comparisons of one user (when users are given).
    """

    items: np.ndarray
    scores: np.ndarray
    ranks: np.ndarray
    top_k: int | None
    method: Method
    epsilon: float | None
    model: str
    fit: Fit
    n_items: int
    n_users: int
    n_comparisons: int
    n_components: int
    L: int | None

    @property
    def order(self) -> np.ndarray:
        """Item labels, best first."""
        return self.items[np.argsort(self.ranks, kind="stable")]

    @property
    def in_top_k(self) -> np.ndarray | None:
        """Whether each item is among the top ``k`` (None without ``top_k``)."""
        return None if self.top_k is None else self.ranks <= self.top_k

    @property
    def delta(self) -> float:
        """The ``delta`` of the guarantee (0 for pure ``eps``-DP)."""
        return float(self.fit.details.get("delta", self.method.delta))

    def to_frame(self) -> pd.DataFrame:
        """``item, score, rank`` (and ``in_top_k``), one row per item, sorted by rank."""
        order = np.argsort(self.ranks, kind="stable")
        frame = pd.DataFrame(
            {
                "item": self.items[order],
                "score": self.scores[order],
                "rank": self.ranks[order],
            }
        )
        if self.top_k is not None:
            frame["in_top_k"] = self.in_top_k[order]
        return frame


def method_name(privacy: str, method: str | None = None, *, as_published: bool = False) -> str:
    """The registry name of ``method`` under ``privacy`` (``"edge", "mle"`` -> ``edge_mle``).

    A full registry name is accepted as ``method`` if it belongs to ``privacy``.
    """
    if privacy not in PRIVACY:
        raise ValueError(f"privacy must be one of {list(PRIVACY)}, got {privacy!r}")
    prefix = PRIVACY[privacy]
    m = DEFAULT_METHOD[privacy] if method is None else str(method)
    name = m if m.startswith(prefix + "_") else f"{prefix}_{m}"
    if as_published:
        if name != "individual_counts":
            raise ValueError("as_published applies only to individual-DP noisy counts")
        name = "individual_counts_as_published"
    try:
        get_method(name)
    except KeyError:
        known = [
            x.name.removeprefix(prefix + "_") for x in all_methods() if x.name.startswith(prefix)
        ]
        raise ValueError(
            f"no method {m!r} for privacy {privacy!r}; choose one of {known}"
        ) from None
    return name


def _as_comparisons(comparisons, method: Method, real_outcomes: bool) -> Comparisons:
    if isinstance(comparisons, Comparisons):
        return comparisons
    if (
        isinstance(comparisons, np.ndarray)
        and comparisons.ndim == 2
        and (comparisons.shape[0] == comparisons.shape[1])
    ):
        return Comparisons.from_wins(comparisons)
    if isinstance(comparisons, Mapping):
        comparisons = pd.DataFrame(dict(comparisons))
    elif isinstance(comparisons, (tuple, list)) and len(comparisons) == 2:
        comparisons = pd.DataFrame({"winner": comparisons[0], "loser": comparisons[1]})
    if not isinstance(comparisons, pd.DataFrame):
        raise TypeError(
            "comparisons must be a pandas DataFrame, a dict of columns, a (winner, loser) "
            "pair of arrays, a square win matrix or a Comparisons"
        )
    return comparisons_from_frame(
        comparisons,
        need_users=method.needs_users,
        need_epsilon=method.trust_model == "local",
        real_outcomes=real_outcomes,
    ).comparisons


def _check_epsilon(epsilon, privacy: str) -> float | None:
    if privacy in ("none", "local"):
        return None
    if epsilon is None:
        raise ValueError(f"privacy {privacy!r} needs epsilon")
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise ValueError(f"epsilon must be a number, got {epsilon!r}") from None
    if not eps > 0 or math.isnan(eps) or math.isinf(eps):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon!r}")
    return eps


def rank(
    comparisons,
    privacy: str = "edge",
    epsilon: float | None = None,
    method: str | None = None,
    model: str = "btl",
    top_k: int | None = None,
    rng: np.random.Generator | int | None = None,
    *,
    as_published: bool = False,
    options: Mapping[str, Any] | None = None,
) -> Ranking:
    """Rank items from pairwise comparisons under differential privacy.

    Parameters
    ----------
    comparisons : pandas.DataFrame, dict, tuple, numpy.ndarray or Comparisons
        A table in the input format of :mod:`dprank.inputs` (columns
        ``winner, loser`` or ``item_a, item_b, outcome``; optional ``user``,
        ``count``, ``epsilon``), a dict of such columns, a ``(winners, losers)``
        pair of arrays, a square win matrix (``wins[i, j]`` = times ``i`` beat
        ``j``), or a :class:`~dprank.comparisons.Comparisons`.
    privacy : {"edge", "individual", "local", "none"}
        What is protected. ``edge``: one comparison (Paper A, Algorithm 1 or 2).
        ``individual``: all comparisons of one user, at a trusted curator
        (Paper A, Algorithm 3; ``L`` = the most comparisons any user made).
        ``local``: the input is already released by its users with randomized
        response (``dprank privatize``) and carries each user's budget; it is
        estimated with Paper B's ADRR (B2 eq. (3)-(5)) or another plug-in.
        ``none``: the non-private fit.
    epsilon : float
        The privacy budget (``edge`` and ``individual``; positive, finite).
    method : str, optional
        ``mle`` or ``counts`` (edge, individual, none; edge also ``one_shot``
        and ``noisy_obj``); ``adrr`` (default), ``debiased_rr``, ``classic_rr``,
        ``laplace`` or ``count`` (local). Default: the MLE (ADRR for local).
    model : {"btl", "tm"}
        Comparison model of the likelihood methods (Bradley-Terry-Luce or
        Thurstone). Paper A's perturbed MLE needs ``btl``.
    top_k : int, optional
        Also report which items are among the top ``k`` (and the ``k`` of the
        one-shot method).
    rng : numpy.random.Generator or int, optional
        Source of the privacy noise (an int seeds a new generator). Give one
        for reproducible output; never publish it with a private ranking.
    as_published : bool
        Individual-DP counts with Algorithm 3's printed ``Laplace(L/eps)``,
        which is only ``2 eps``-DP (a warning says so); the default is the
        calibrated ``Laplace(2L/eps)``.
    options : dict, optional
        Keyword options passed to the method (``gamma``, ``c0``, ``xtol``, ...).

    Returns
    -------
    Ranking

    Raises
    ------
    ValueError
        Unknown privacy or method, a bad epsilon, ``top_k`` larger than the
        number of items; :class:`dprank.inputs.InputError` (a ValueError) for
        bad comparisons, :class:`dprank.methods.MethodInputError` when the data
        lack what the method needs.

    Warns
    -----
    DisconnectedWarning
        If the comparison graph has several components.

    Examples
    --------
    >>> import pandas as pd
    >>> import dprank
    >>> games = pd.DataFrame({"winner": ["ann", "ann", "bob", "ann", "cy"],
    ...                       "loser":  ["bob", "cy", "cy", "bob", "bob"]})
    >>> result = dprank.rank(games, privacy="none")
    >>> result.order.tolist()
    ['ann', 'cy', 'bob']
    >>> private = dprank.rank(games, privacy="edge", epsilon=1.0, rng=7)
    >>> private.to_frame().columns.tolist()
    ['item', 'score', 'rank']
    """
    name = method_name(privacy, method, as_published=as_published)
    meth = get_method(name)
    eps = _check_epsilon(epsilon, privacy)
    if model not in LINKS:
        raise ValueError(f"model must be one of {list(LINKS)}, got {model!r}")
    if meth.models and model not in meth.models:
        raise ValueError(f"method {name} supports the model(s) {list(meth.models)}, not {model!r}")
    if name == "individual_counts_as_published":
        warnings.warn(
            "individual-DP counts with Laplace(L/eps) as published: one user's comparisons "
            "can move two counts by L each, so this release is only 2 eps-DP",
            UserWarning,
            stacklevel=2,
        )
    data = _as_comparisons(comparisons, meth, real_outcomes=name == "local_laplace")
    meth.check(data)
    n = data.n_items
    if top_k is not None:
        top_k = int(top_k)
        if not 1 <= top_k <= n:
            raise ValueError(f"top_k must be between 1 and the number of items {n}, got {top_k}")
    if meth.name == "edge_one_shot" and top_k is None:
        raise ValueError("the one-shot method selects a top k: give top_k")
    n_comp, _ = data.components()
    if n_comp > 1:
        warnings.warn(
            f"the comparison graph has {n_comp} components: some items never meet the rest, "
            "so their order across components rests on the ridge penalty alone",
            DisconnectedWarning,
            stacklevel=2,
        )
    if rng is None or isinstance(rng, (int, np.integer)):
        rng = np.random.default_rng(rng)
    opts = dict(options or {})
    fit = meth.fit(data, np.inf if eps is None else eps, rng, model=model, top_k=top_k, **opts)
    scores = np.asarray(fit.scores, dtype=np.float64)
    if scores.shape != (n,) or not np.all(np.isfinite(scores)):
        raise RuntimeError(f"method {name} returned scores of shape {scores.shape} or non-finite")
    ranks = fit.ranks if fit.ranks is not None else rank_scores(scores)
    labels = data.labels if data.labels is not None else np.arange(n).astype(str)
    L = None
    if data.user is not None:
        L = math.ceil(float(np.max(data.per_user_counts())))
    return Ranking(
        items=np.asarray(labels).astype(str),
        scores=scores,
        ranks=np.asarray(ranks, dtype=np.int64),
        top_k=top_k,
        method=meth,
        epsilon=eps,
        model=model if meth.models else None,
        fit=fit,
        n_items=n,
        n_users=int(data.n_users) if data.user is not None else 0,
        n_comparisons=round(float(data.n_comparisons)),
        n_components=int(n_comp),
        L=L,
    )
