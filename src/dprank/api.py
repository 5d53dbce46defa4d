"""The public ranking function: ``dprank.rank(comparisons, privacy=..., epsilon=...)``.

A thin layer over the method registry (:mod:`dprank.methods`): it turns a data
frame, arrays or a :class:`~dprank.data.comparisons.Comparisons` into comparisons,
picks the registered method for the privacy setting, fits it and returns a
:class:`Ranking`. The ``dprank rank`` command calls it.
"""

from __future__ import annotations

import contextlib
import math
import numbers
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from .data.comparisons import Comparisons
from .data.inputs import InputError, comparisons_from_frame
from .data.models import LINKS
from .fit.metrics_b import ranks as rank_scores
from .methods import (
    PUBLIC_DETAILS,
    Fit,
    Method,
    PrivacyLoss,
    _default_methods,
    all_methods,
    get_method,
)
from .privacy.noise import NoiseSource, as_noise_source

if TYPE_CHECKING:  # pandas is imported where a frame is built (not by ``dprank rank``)
    import pandas as pd

__all__ = [
    "DEFAULT_METHOD",
    "PRIVACY",
    "DisconnectedWarning",
    "PublicParameterWarning",
    "Ranking",
    "method_name",
    "rank",
]

#: ``privacy`` values and the prefix of their methods' registry names.
PRIVACY = {"edge": "edge", "individual": "individual", "local": "local", "none": "nonprivate"}
#: The method used when ``method`` is not given: the best candidate of each privacy level on
#: the benchmark of methods (:mod:`dprank_papers.default_methods`; generated).
DEFAULT_METHOD = _default_methods.DEFAULT_METHOD
#: ... and with a ties model (``model="davidson"`` or ``"raokupper"``).
DEFAULT_TIES_METHOD = {"edge": "ties", "individual": "ties", "local": "ties", "none": "mle"}
#: The names of the ties models, those of :data:`dprank.objective.TIE_MODELS` (a test keeps
#: them equal): a rank checks ``model`` without importing the objective's code.
TIE_MODEL_NAMES = ("davidson", "raokupper")

#: Budgets outside this range are refused: below it the noise scale leaves the range
#: of float64, above it the noise grid does.
EPSILON_RANGE = (1e-9, 1e9)

#: What each privacy model treats as public, written into a release's record.
PUBLIC_QUANTITIES = {
    "edge": (
        "the items and the comparison graph (which pairs were compared, how often); "
        "only the outcomes are private (Paper A: neighbours differ in one outcome)"
    ),
    "individual": (
        "the items, the declared bound max_per_user and the number of users; a user's "
        "comparisons (pairs and outcomes) are private (neighbours replace all of one user's "
        "comparisons)"
    ),
    "local": "everything in the input: it is already each user's local-DP release",
    "none": "everything: the non-private fit protects nothing",
}


#: The unit of a local release's guarantee, as the records state it.
LOCAL_UNIT_NOTE = (
    "each comparison's outcome is eps-LDP at its user's epsilon (the file's epsilon column); "
    "which pairs each user compared is public. A user with at most L comparisons is "
    "protected at L * epsilon"
)


class DisconnectedWarning(UserWarning):
    """Some items never meet the rest: the ranking across components rests on the ridge.

    Raised only where the comparison graph is public (edge and local DP, the
    non-private fit); under individual DP the same remark is a private note of
    the audit record (:attr:`Ranking.notes`).
    """


class PublicParameterWarning(UserWarning):
    """A warning that depends on the public parameters of a release only (its options)."""


def _by_rank(ranks: np.ndarray) -> np.ndarray:
    """``np.argsort(ranks, kind="stable")``: the items best first.

    Where the ranks are the places ``1..n`` each once (no ties), the order is their
    inverse permutation, found in one pass instead of a sort; else the stable sort.
    """
    n = ranks.size
    if n and ranks.min() == 1 and ranks.max() == n:
        order = np.full(n, -1, dtype=np.intp)
        order[ranks - 1] = np.arange(n)
        if order.min() >= 0:  # n ranks filled n places: each place once
            return order
    return np.argsort(ranks, kind="stable")


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
        the ``count`` multiplicities (after bounding each user's contributions).
        These are facts about the private data: they are in the data owner's
        :meth:`audit_record`, never in the public :meth:`record`.
    L : int or None
        The declared bound on one user's comparisons (``max_per_user``) of an
        individual-DP release; ``None`` otherwise.
    private : bool
        Whether the noise came from the operating system's secure generator
        (``False`` for a seeded, reproducible run, and for ``privacy="none"``).
    n_dropped : int
        Comparisons removed to respect ``max_per_user`` (private).
    items_source : str
        Where the item universe comes from (public; :mod:`dprank.data.items`).
    n_undeclared : int
        Comparisons dropped for naming an item outside the declared universe
        (private).
    notes : tuple of str
        Remarks derived from the private data (the comparison graph's
        components under individual DP): in the audit record only.
    local_source : str or None
        Local DP: where the guarantee of the input comes from (public).
    design : object
        The public inputs of the method (:func:`dprank.intervals.public_design`):
        what :meth:`intervals` may use.
    options : dict
        The options the method was fitted with.
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
    private: bool = False
    n_dropped: int = 0
    options: Mapping[str, Any] | None = None
    # where the items come from (public), comparisons dropped for naming an undeclared item and
    # notes derived from the private data (both for the audit record only), and where a local
    # release's guarantee comes from (public)
    items_source: str = ""
    n_undeclared: int = 0
    notes: tuple[str, ...] = ()
    local_source: str | None = None
    # the public inputs, or what they are computed from on first use (``design``): a
    # ranking that never asks for intervals never imports dprank.intervals (pandas, scipy)
    _design: object = field(default=None, repr=False)
    _design_of: tuple | None = field(default=None, repr=False)
    # a local release: the largest of the users' budgets (public: they are the release's)
    _users_budget: float | None = field(default=None, repr=False)

    @property
    def design(self) -> object:
        """The public inputs of the method (:func:`dprank.intervals.public_design`)."""
        if self._design is None and self._design_of is not None:
            from .intervals import public_design

            data, meth, max_per_user = self._design_of
            object.__setattr__(self, "_design", public_design(data, meth, max_per_user))
            object.__setattr__(self, "_design_of", None)
        return self._design

    @property
    def order(self) -> np.ndarray:
        """Item labels, best first."""
        return self.items[_by_rank(self.ranks)]

    @property
    def in_top_k(self) -> np.ndarray | None:
        """Whether each item is among the top ``k`` (None without ``top_k``)."""
        return None if self.top_k is None else self.ranks <= self.top_k

    @property
    def privacy_loss(self) -> PrivacyLoss:
        """The guarantee of the release: :meth:`dprank.methods.Method.privacy_loss` at its budget.

        Its declared parameters are the release's public ones (``n_items``, ``L``, the
        options). A local release has no budget of its own: each comparison is
        ``eps``-LDP at its user's budget, and this is the loss at the largest of them.
        """
        m = self.method
        eps = self.epsilon
        if m.trust_model == "local":
            eps = self._users_budget
        elif eps is None:
            eps = math.inf
        declared = {**(self.options or {}), "n_items": self.n_items, "L": self.L}
        return m.privacy_loss(eps, **declared)

    @property
    def delta(self) -> float:
        """The ``delta`` of the guarantee (0 for pure ``eps``-DP)."""
        return self.privacy_loss.delta

    @property
    def epsilon_guaranteed(self) -> float | None:
        """The ``epsilon`` actually guaranteed (``2 epsilon`` for the as-published counts)."""
        if self.epsilon is None:
            return None
        return self.privacy_loss.epsilon

    def to_frame(self) -> pd.DataFrame:
        """The release: ``item, score, rank`` (and ``in_top_k``), one row per item, by rank.

        For the one-shot method only its noisy top ``k`` is released: ``item,
        rank`` for those ``k`` items.
        """
        import pandas as pd

        return pd.DataFrame(self.columns())

    def columns(self) -> dict[str, np.ndarray]:
        """The columns of :meth:`to_frame` as arrays, by name in output order (no pandas)."""
        order = _by_rank(self.ranks)
        if not self.fit.scores_released:
            order = order[: self.top_k]
            return {"item": self.items[order], "rank": self.ranks[order]}
        columns = {
            "item": self.items[order],
            "score": self.scores[order],
            "rank": self.ranks[order],
        }
        if self.top_k is not None:
            columns["in_top_k"] = self.in_top_k[order]
        return columns

    def intervals(
        self,
        level: float = 0.95,
        *,
        n_boot: int = 200,
        rng=None,
        kind: str = "auto",
        joint: bool = False,
        min_per_user: int | None = None,
    ) -> pd.DataFrame:
        """Intervals for each item's score and rank, and tie classes: post-processing.

        Computed only from the released scores and what the privacy model
        treats as public (:func:`dprank.intervals.intervals`, which states the
        construction); they cost no privacy budget. Returns ``item, estimate,
        score_lo, score_hi, rank_lo, rank_hi`` (and ``p_top_k`` with ``top_k``),
        ``tie_class`` and ``informative``. ``min_per_user`` declares the least
        number of comparisons of one user under individual DP (default 1).

        Raises
        ------
        dprank.intervals.IntervalError
            A ValueError naming the method, for methods without intervals.
        """
        release = getattr(self.fit, "release", None)
        if release is not None and release.__class__.__name__ == "TiesRelease":
            from .privacy.private_ties import ties_intervals  # the ties methods' own bootstrap

            if kind not in ("auto", "bootstrap"):
                raise ValueError("the ties methods' intervals are a bootstrap (kind='bootstrap')")
            if joint:
                raise ValueError("the ties methods' intervals are marginal (joint=False)")
            if min_per_user is not None:
                raise ValueError("min_per_user applies only to individual DP (privacy='user')")
            return ties_intervals(
                release, self.items, level=level, n_boot=n_boot, rng=rng, top_k=self.top_k
            )
        from dataclasses import replace

        from .intervals import UserDesign, intervals

        design = self.design
        if min_per_user is not None:
            if not isinstance(design, UserDesign):
                raise ValueError("min_per_user applies only to individual DP (privacy='user')")
            design = replace(design, min_per_user=int(min_per_user))
        return intervals(
            self.scores,
            self.method,
            self.epsilon,
            design,
            model=self.model or "btl",
            level=level,
            top_k=self.top_k,
            n_boot=n_boot,
            rng=rng,
            kind=kind,
            joint=joint,
            calibration=self.fit.details,
            items=self.items,
            options=self.options,
        )

    def record(self) -> dict:
        """The public record of the release: the mechanism and its public parameters.

        Nothing computed from the private data outside the mechanism: no
        counts of comparisons or users, no solver trace, no seed, no input hash
        (those are in :meth:`audit_record`). ``epsilon`` and ``delta`` are the
        guarantee actually given.
        """
        m = self.method
        details = {k: v for k, v in self.fit.details.items() if k in PUBLIC_DETAILS}
        privacy = next(p for p, prefix in PRIVACY.items() if m.name.startswith(prefix + "_"))
        loss = self.privacy_loss
        out = {
            "mechanism": m.name,
            "description": m.description,
            "paper": m.paper,
            "algorithm": m.algorithm,
            "privacy": privacy,
            "privacy_unit": loss.unit,
            "neighbours": loss.neighbour,
            "trust_model": m.trust_model,
            "private": self.private,
            "epsilon": None if self.epsilon is None else loss.epsilon,
            "delta": loss.delta,
            "epsilon_requested": self.epsilon,
            "max_per_user": self.L,
            "model": self.model,
            "top_k": self.top_k,
            "noise": details,
            "public": PUBLIC_QUANTITIES[privacy],
            "items": self.items_source,
        }
        if m.trust_model == "local":
            # the users' budgets are per comparison: that is the unit of the guarantee
            out["privacy_unit_note"] = LOCAL_UNIT_NOTE
            out["local_release"] = self.local_source
        if m.trust_model == "local" or not m.private:
            out.pop("epsilon_requested")
        return out

    def audit_record(self) -> dict:
        """Facts about the private data and the fit, for the data owner only (keep it secret)."""
        return {
            "n_items": self.n_items,
            "n_users": self.n_users,
            "n_comparisons": self.n_comparisons,
            "n_components": self.n_components,
            "n_dropped_by_max_per_user": self.n_dropped,
            "n_dropped_naming_undeclared_items": self.n_undeclared,
            "notes": list(self.notes),
            "solver": {"converged": self.fit.converged, "n_iter": self.fit.n_iter},
            "calibration": dict(self.fit.details),
        }


def method_name(
    privacy: str, method: str | None = None, *, as_published: bool = False, model: str = "btl"
) -> str:
    """The registry name of ``method`` under ``privacy`` (``"edge", "mle"`` -> ``edge_mle``).

    A full registry name is accepted as ``method`` if it belongs to ``privacy``. Without
    ``method`` the default of the privacy setting, or with a ties ``model`` the ties
    method (``edge_ties``, ``individual_ties``, ``local_ties``; non-private: the MLE).
    """
    if privacy not in PRIVACY:
        raise ValueError(f"privacy must be one of {list(PRIVACY)}, got {privacy!r}")
    prefix = PRIVACY[privacy]
    defaults = DEFAULT_TIES_METHOD if model in TIE_MODEL_NAMES else DEFAULT_METHOD
    m = defaults[privacy] if method is None else str(method)
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
    import pandas as pd

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


def _no_records(data: Comparisons) -> bool:
    """Whether ``data`` holds no comparison, without building the records of summed pairs."""
    if data._records_built():
        return data.i.size == 0
    return data.pair_statistics().n_pairs == 0


def _check_epsilon(epsilon, privacy: str) -> float | None:
    if privacy in ("none", "local"):
        if epsilon is not None:
            why = ": the users' budgets are in the data's epsilon column"
            why = why if privacy == "local" else ""
            raise ValueError(f"epsilon is not used with privacy {privacy!r}{why}")
        return None
    if epsilon is None:
        raise ValueError(f"privacy {privacy!r} needs epsilon")
    if isinstance(epsilon, (bool, np.bool_)) or not isinstance(epsilon, numbers.Real):
        raise TypeError(f"epsilon must be a number, got {type(epsilon).__name__} {epsilon!r}")
    try:
        eps = float(epsilon)
    except (TypeError, ValueError):
        raise TypeError(f"epsilon must be a number, got {epsilon!r}") from None
    if not eps > 0 or math.isnan(eps) or math.isinf(eps):
        raise ValueError(f"epsilon must be a positive finite number, got {epsilon!r}")
    low, high = EPSILON_RANGE
    if not low <= eps <= high:
        raise ValueError(f"epsilon must lie between {low:g} and {high:g}, got {epsilon!r}")
    return eps


def _check_int(value, name: str, low: int, high: int | None = None) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}")
    v = int(value)
    if v < low or (high is not None and v > high):
        span = f"at least {low}" if high is None else f"between {low} and {high}"
        raise ValueError(f"{name} must be {span}, got {v}")
    return v


def rank(
    comparisons,
    privacy: str = "edge",
    epsilon: float | None = None,
    method: str | None = None,
    model: str = "btl",
    top_k: int | None = None,
    rng: NoiseSource | np.random.Generator | int | None = None,
    *,
    max_per_user: int | None = None,
    as_published: bool = False,
    options: Mapping[str, Any] | None = None,
    ledger=None,
    budget: float | None = None,
    items=None,
    items_from_data: bool = False,
    local_source: Mapping[str, Any] | None = None,
) -> Ranking:
    """Rank items from pairwise comparisons under differential privacy.

    Parameters
    ----------
    comparisons : pandas.DataFrame, dict, tuple, numpy.ndarray or Comparisons
        A table in the input format of :mod:`dprank.data.inputs` (columns
        ``winner, loser`` or ``item_a, item_b, outcome``; optional ``user``,
        ``count``, ``epsilon``), a dict of such columns, a ``(winners, losers)``
        pair of arrays, a square win matrix (``wins[i, j]`` = times ``i`` beat
        ``j``), or a :class:`~dprank.data.comparisons.Comparisons`.
    privacy : {"edge", "individual", "local", "none"}
        What is protected. ``edge``: one comparison (Paper A, Algorithm 1 or 2).
        ``individual``: all comparisons of one user, at a trusted curator
        (Paper A, Algorithm 3, with ``L`` the declared ``max_per_user``).
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
    model : {"btl", "tm", "davidson", "raokupper"}
        Comparison model of the likelihood methods (Bradley-Terry-Luce or
        Thurstone; with ties, Davidson's or Rao and Kupper's, :mod:`dprank.fit.ties`).
        Paper A's perturbed MLE needs ``btl``. A ties model selects the ties
        methods (``edge_ties``, ``individual_ties``, ``local_ties``) by default.
    top_k : int, optional
        Also report which items are among the top ``k`` (and the ``k`` of the
        one-shot method).
    rng : None, NoiseSource, int or numpy.random.Generator
        Source of the privacy noise. ``None`` (the default): the operating
        system's cryptographically secure generator through exact samplers
        (:mod:`dprank.privacy.noise`). An int or a Generator is an explicit opt-in to
        reproducible, **not private** noise (tests, teaching): anyone who knows
        or guesses it can remove the noise; the result says ``private=False``.
    max_per_user : int, optional
        ``privacy="individual"`` (required): the declared public bound ``L`` on
        the comparisons of one user. The noise is calibrated to it; a user with
        more comparisons keeps ``L`` of them, chosen uniformly at random.
    as_published : bool
        Individual-DP counts with Algorithm 3's printed ``Laplace(L/eps)``,
        which is only ``2 eps``-DP (a warning says so); the default is the
        calibrated ``Laplace(2L/eps)``.
    options : dict, optional
        Keyword options passed to the method (``gamma``, ``c0``, ``xtol``, ...);
        an option the method does not take is an error.
    ledger : dprank.ledger.Ledger or path, optional
        Record the release in this privacy-budget ledger (private releases of raw
        data: ``edge`` and ``individual``); see :mod:`dprank.ledger`.
    budget : float, optional
        With ``ledger``: refuse (:class:`dprank.ledger.BudgetExceeded`, a
        ValueError, before any noise is drawn) a release that would take the
        data set's total epsilon past ``budget``.
    items : sequence of str or dprank.data.items.ItemUniverse, optional
        The declared, public item universe (:mod:`dprank.data.items`): every item is
        ranked, compared or not, and comparisons naming another item are
        dropped. Required (or ``items_from_data``) for ``individual`` and
        ``local``, whose data do not make their items public.
    items_from_data : bool
        Declare the input's own item set public instead (the record says so).
    local_source : mapping, optional
        ``privacy="local"``: where the input's guarantee comes from, as
        ``{"source": str, "private": bool}`` (the command line passes the
        ``dprank privatize`` record it verified); recorded publicly, and a
        ``"private": False`` source makes the ranking ``private=False``.
        Without it the record says the input was not verified.

    Returns
    -------
    Ranking

    Raises
    ------
    ValueError
        Unknown privacy or method, a bad epsilon, ``top_k`` larger than the
        number of items, a missing ``max_per_user``, an unknown option;
        :class:`dprank.data.inputs.InputError` (a ValueError) for bad comparisons,
        :class:`dprank.methods.MethodInputError` when the data lack what the
        method needs (outcomes other than 0/1 for a central mechanism, say).
    TypeError
        ``rng``, ``top_k``, ``epsilon`` or ``max_per_user`` of the wrong type.

    Warns
    -----
    DisconnectedWarning
        If the comparison graph has several components, where the graph is
        public (edge and local DP, ``none``); under individual DP the same
        remark is a private note of the audit record (:attr:`Ranking.notes`).
    PublicParameterWarning
        About the options alone (``as_published``).

    Examples
    --------
    >>> import pandas as pd
    >>> import dprank
    >>> games = pd.DataFrame({"winner": ["ann", "ann", "bob", "ann", "cy"],
    ...                       "loser":  ["bob", "cy", "cy", "bob", "bob"]})
    >>> result = dprank.rank(games, privacy="none")
    >>> result.order.tolist()
    ['ann', 'cy', 'bob']
    >>> private = dprank.rank(games, privacy="edge", epsilon=1.0)
    >>> private.to_frame().columns.tolist()
    ['item', 'score', 'rank']
    >>> private.private
    True
    """
    name = method_name(privacy, method, as_published=as_published, model=model)
    meth = get_method(name)
    eps = _check_epsilon(epsilon, privacy)
    noise = as_noise_source(rng)
    opts = dict(options or {})
    max_per_user = _check_method_arguments(meth, opts, privacy, max_per_user, model)
    if name == "individual_counts_as_published":
        warnings.warn(
            "individual-DP counts with Laplace(L/eps) as published: one user's comparisons "
            "can move two counts by L each, so this release is only 2 eps-DP",
            PublicParameterWarning,
            stacklevel=2,
        )
    universe = _item_universe(privacy, items, items_from_data)
    data = _as_comparisons(comparisons, meth, real_outcomes=name == "local_laplace")
    if _no_records(data):  # as an empty data frame is refused (dprank.data.inputs)
        source = "the win matrix" if isinstance(comparisons, np.ndarray) else "the comparisons"
        raise InputError("no comparisons (nothing to rank)", source)
    data, n_undeclared, items_source = _on_universe(data, universe, privacy)
    meth.check(data)
    n = data.n_items
    if top_k is not None:
        top_k = _check_int(top_k, "top_k", 1, n)
    if meth.name == "edge_one_shot" and top_k is None:
        raise ValueError("the one-shot method selects a top k: give top_k")
    n_comp, _ = data.components()
    notes = _graph_notes(n_comp, privacy)
    declared = {**opts, "n_items": n}
    entry = None if ledger is None else _ledger_entry(meth, eps, max_per_user, declared)
    fit, data, n_dropped = _fit_release(
        meth, data, eps, noise, model, top_k, opts, max_per_user, (ledger, entry, budget)
    )
    scores = np.asarray(fit.scores, dtype=np.float64)
    if scores.shape != (n,) or not np.all(np.isfinite(scores)):
        raise RuntimeError(f"method {name} returned scores of shape {scores.shape} or non-finite")
    ranks = fit.ranks if fit.ranks is not None else rank_scores(scores)
    labels = data.labels if data.labels is not None else np.arange(n).astype(str)
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
        L=max_per_user,
        private=noise.secure and meth.private and _local_private(local_source),
        n_dropped=n_dropped,
        options=opts,
        items_source=items_source,
        n_undeclared=n_undeclared,
        notes=notes,
        local_source=_local_source_text(privacy, local_source),
        _design_of=(data, meth, max_per_user),
        _users_budget=_users_budget(data, meth),
    )


#: Why individual and local DP refuse a release without declared items.
ITEMS_NEEDED = (
    "privacy {privacy!r} needs the item universe declared: items=[...] (every declared item is "
    "ranked, comparisons naming other items are dropped) or items_from_data=True to declare "
    "the input's own item set public. Under {privacy} DP the items in the data are not "
    "public: an item that only one user compared would appear in the ranking because of "
    "that user"
)


def _item_universe(privacy: str, items, items_from_data: bool):
    """The declared universe (an ItemUniverse), "data", or None (the input's, under edge/none)."""
    from .data.items import universe_of

    if not isinstance(items_from_data, (bool, np.bool_)):
        raise TypeError(f"items_from_data must be True or False, got {items_from_data!r}")
    if items is not None and items_from_data:
        raise ValueError("give items or items_from_data, not both")
    if items is not None:
        return universe_of(items)
    if items_from_data:
        return "data"
    if privacy in ("individual", "local"):
        raise ValueError(ITEMS_NEEDED.format(privacy=privacy))
    return None


def _on_universe(data: Comparisons, universe, privacy: str) -> tuple[Comparisons, int, str]:
    """``(data, n_dropped, source)``: the comparisons on the declared items; the record's text."""
    from .data.items import restrict_to_items

    if universe is None:
        public = " (public under edge DP with the comparison graph)" if privacy == "edge" else ""
        return data, 0, f"the input's items{public}"
    if isinstance(universe, str):
        return data, 0, "the input's own items, declared public by the data owner"
    restricted, dropped = restrict_to_items(data, universe)
    return restricted, dropped, universe.source


def _graph_notes(n_comp: int, privacy: str) -> tuple[str, ...]:
    """The comparison graph's components: a warning where the graph is public, else a private note.

    Under individual DP the graph is private (one user's pair can decide whether
    it is connected), so its shape goes to the audit record only.
    """
    if n_comp <= 1:
        return ()
    text = (
        f"the comparison graph has {n_comp} components: some items never meet the rest, "
        "so their order across components rests on the ridge penalty alone"
    )
    if privacy == "individual":
        return (text,)
    warnings.warn(text, DisconnectedWarning, stacklevel=3)
    return ()


def _local_private(local_source) -> bool:
    if local_source is None:
        return True
    return bool(local_source.get("private", False))


def _local_source_text(privacy: str, local_source) -> str | None:
    if privacy != "local":
        if local_source is not None:
            raise ValueError("local_source applies to privacy 'local' only")
        return None
    if local_source is not None and not (
        isinstance(local_source, Mapping) and isinstance(local_source.get("source"), str)
    ):
        raise TypeError('local_source must be a mapping {"source": str, "private": bool}')
    if local_source is None:
        return "not verified: the caller of dprank.rank states that the input is a local release"
    return str(local_source["source"])


def _check_method_arguments(meth: Method, opts: dict, privacy: str, max_per_user, model: str):
    """Check ``rank``'s options, ``max_per_user`` and ``model`` for ``meth``; the bound L."""
    name = meth.name
    accepted = meth.options
    if accepted is not None:
        unknown = sorted(set(opts) - set(accepted))
        if unknown:
            raise ValueError(
                f"options {unknown} are not options of method {name} "
                f"(it takes {list(accepted) or 'none'})"
            )
    if "max_per_user" in opts:
        raise ValueError("give max_per_user as the argument max_per_user, not in options")
    if privacy == "individual":
        if max_per_user is None:
            raise ValueError(
                "privacy 'individual' needs max_per_user: the declared public bound on the "
                "comparisons of one user (the noise is calibrated to it, never to the data)"
            )
        max_per_user = _check_int(max_per_user, "max_per_user", 1)
    elif max_per_user is not None:
        raise ValueError(f"max_per_user applies to privacy 'individual' only, not {privacy!r}")
    if model not in LINKS and model not in TIE_MODEL_NAMES:
        raise ValueError(f"model must be one of {[*LINKS, *TIE_MODEL_NAMES]}, got {model!r}")
    if meth.models and model not in meth.models:
        raise ValueError(f"method {name} supports the model(s) {list(meth.models)}, not {model!r}")
    return max_per_user


def _users_budget(data: Comparisons, meth: Method) -> float | None:
    """A local release's largest user budget (None for the other methods)."""
    if meth.trust_model != "local" or data.user_epsilon is None:
        return None
    return float(np.max(data.user_epsilon))


def _ledger_entry(meth: Method, eps: float | None, max_per_user: int | None, declared):
    """The ledger's record of this release (:class:`dprank.ledger.Release`): the method's
    :meth:`~dprank.methods.Method.privacy_loss` at ``eps`` and the ``declared`` parameters."""
    from .ledger import Release

    if not meth.private or meth.trust_model == "local":
        raise ValueError("a ledger records private releases of raw data (edge, individual)")
    bounds = {} if max_per_user is None else {"max_per_user": max_per_user}
    loss = meth.privacy_loss(eps, **{**declared, "L": max_per_user})
    return Release("rank", meth.name, loss.unit, loss.epsilon, loss.delta, bounds)


def _fit_release(meth: Method, raw, eps, noise, model, top_k, opts, max_per_user, ledger_args):
    """``(fit, data, n_dropped)``: the method's fit, recorded in the ledger as one release.

    ``data`` is ``raw`` with each user's comparisons bounded to ``max_per_user``
    (``n_dropped`` of them dropped at random); ``ledger_args`` is ``(ledger,
    entry, budget)``.
    """
    ledger, entry, budget = ledger_args
    if ledger is None and budget is None:  # release_to's answer, without importing dprank.ledger
        context = contextlib.nullcontext()
    else:
        from .ledger import release_to

        context = release_to(ledger, raw, entry, budget=budget)
    with context:
        data, n_dropped = raw, 0
        if max_per_user is not None:
            from .privacy.release import bound_user_contributions

            data, n_dropped = bound_user_contributions(raw, max_per_user, noise)
            opts["max_per_user"] = max_per_user
        eps_fit = np.inf if eps is None else eps
        fit = meth.fit(data, eps_fit, noise, model=model, top_k=top_k, **opts)
    return fit, data, n_dropped
