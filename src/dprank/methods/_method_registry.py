"""The registry's machinery: :class:`Fit`, :class:`Method`, the registry, shared helpers.

Private: import these names from :mod:`dprank.methods`, which re-exports them
(this module only keeps ``methods.py`` short).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..base._checks import binary
from ..data.comparisons import Comparisons, PairStatistics
from ..data.models import Link, get_link
from ..fit.ranking import copeland_counts
from ..privacy.mechanisms import NEIGHBOURS, PRIVACY_UNITS, PrivacyLoss, standard_laplace  # noqa: F401
from ..privacy.noise import NoiseSource, grid_exponent, laplace_scale, value_grid_exponent

TRUST_MODELS = ("central", "local", "none")

#: Largest number of items for the methods that need per-pair arrays over all
#: ``m (m - 1) / 2`` pairs or an ``n x n`` matrix (the one-shot method).
DENSE_MAX_ITEMS = 2000


class MethodInputError(ValueError):
    """The comparisons do not suit the method (no users, no budgets, not a tournament, ...)."""


@dataclass(frozen=True)
class Fit:
    """What a registered method returns.

    Attributes
    ----------
    scores : (n_items,) numpy.ndarray
        Higher is better.
    ranks : (n_items,) numpy.ndarray of int64 or None
        Ranks (1 = best) when the method decides its own ties (the count
        method breaks them at random); ``None``: rank by ``scores``.
    converged : bool or None
        Whether the solver converged (``None`` for closed-form methods).
    n_iter : int or None
        Solver iterations.
    details : dict
        Calibration actually used (ridge, noise scale, sensitivity, ``L``,
        ``delta``, ...). Keys named in :data:`PUBLIC_DETAILS` depend only on the
        budget and declared bounds and go into a release's public record; the
        others (a data-dependent ridge, say) only into the data owner's private
        audit record.
    scores_released : bool
        Whether the scores are part of the release. The one-shot method
        releases only its noisy top ``k``, in order.
    private : bool
        Whether the fit is a private release: a private method whose noise came
        from the operating system's secure generator
        (:meth:`dprank.privacy.noise.NoiseSource.system`). Set by the registry on every
        fit (:class:`Method` wraps ``fit``): ``False`` for a numpy Generator, a
        seeded source or a non-private method, whatever the method returned.
    release : object or None
        What the method released beyond the scores, for post-processing (the ties
        methods' :class:`dprank.privacy.private_ties.TiesRelease`: released vote counts, the
        public design of their intervals); never written to a record.
    """

    scores: np.ndarray
    ranks: np.ndarray | None = None
    converged: bool | None = None
    n_iter: int | None = None
    details: Mapping[str, Any] = field(default_factory=dict)
    scores_released: bool = True
    private: bool = False
    release: Any = field(default=None, repr=False, compare=False)


#: ``Fit.details`` keys that are functions of public parameters only (the budget, the
#: declared bounds, the mechanism), recorded in a release's public record.
PUBLIC_DETAILS = (
    "noise",
    "noise_scale",
    "sensitivity",
    "sampler",
    "grid_exponent",
    "delta",
    "k",
    "max_per_user",
    "released_statistic",
    "output_noise",
    "epsilon_computed",
)


@dataclass(frozen=True)
class Method:
    """One registered method.

    Attributes
    ----------
    name : str
        Registry key (``edge_mle``, ``local_adrr``, ...).
    fit : callable
        ``fit(comparisons, eps, rng, **options) -> Fit``.
    paper : str
        ``"A"`` (Cai, Chakraborty & Wang 2025), ``"B"`` (Xu, Sun & Cheng), or
        ``"-"`` (the non-private references).
    algorithm : str
        Where the method is stated (``"Algorithm 1"``, ``"B2 eq. (3)-(5)"``, ...).
    privacy_unit : str
        One of :data:`PRIVACY_UNITS`.
    trust_model : str
        One of :data:`TRUST_MODELS`.
    needs_users : bool
        The comparisons must carry users.
    needs_complete_graph : bool
        The method needs a complete tournament.
    models : tuple of str
        Comparison models (links) the method supports; empty when the method
        does not use one (counting).
    description : str
        One line for ``dprank methods``.
    delta : float
        The ``delta`` of an ``(eps, delta)`` guarantee; 0 for pure ``eps``-DP.
    release : str or None
        Local methods: the users' release mechanism their ``fit`` expects
        (``"rr"`` or ``"laplace"``, see :func:`release_local`).
    label : str
        The name a reader sees in legends and tables (``"Perturbed MLE (Alg. 1)"``,
        ``"ADRR"``, ...); empty: the registry name.
    noise_scale : callable or None
        Methods with Laplace noise: its scale as a function of the budget and the
        declared constants (``edge_mle``: ``noise_scale(eps, kappa1)``,
        :func:`dprank.privacy.mechanisms.edge_mle_noise_scale`; ``edge_counts``:
        ``noise_scale(eps)``; ``individual_*``: ``(eps, L[, kappa1])``): for
        introspection; code that draws the noise imports the function itself.
    ties : bool
        The method takes comparisons with three outcomes (``Comparisons(...,
        ties=True)``: a tie is the outcome 1/2); the others need 0/1 outcomes.
    privacy_map : callable or None
        The method's privacy loss as a function of its budget and declared public
        parameters: ``privacy_map(eps, **declared) -> PrivacyLoss``, taking as keywords
        the declared parameters it needs (``n_items``, ``delta``, ``L``, ...). ``None``:
        ``epsilon = eps`` and ``delta = Method.delta`` at ``privacy_unit`` (per comparison
        for a local method; ``epsilon = inf`` at ``"none"`` for a non-private one). Read
        it through :meth:`privacy_loss`.
    release_ok : bool
        Whether a release by this method (``fit`` with a :class:`dprank.privacy.noise.NoiseSource`)
        gives the privacy level's requested guarantee *as computed*, tested by the
        privacy harness (:mod:`dprank.audit.harness`). Only such a method may be a
        privacy level's default; ``False`` for one that releases something else (the
        as-published counts, ``2 eps``-DP) or that has not been made to hold.
    """

    name: str
    fit: Callable[..., Fit]
    paper: str
    algorithm: str
    privacy_unit: str
    trust_model: str
    needs_users: bool = False
    needs_complete_graph: bool = False
    models: tuple[str, ...] = ("btl",)
    description: str = ""
    delta: float = 0.0
    release: str | None = None
    label: str = ""
    noise_scale: Callable[..., float] | None = None
    release_ok: bool = True
    ties: bool = False
    privacy_map: Callable[..., PrivacyLoss] | None = None

    def __post_init__(self):
        if not isinstance(self.release_ok, bool):
            raise TypeError(f"release_ok must be True or False, got {self.release_ok!r}")
        if not isinstance(self.label, str):
            raise TypeError(f"label must be a str, got {type(self.label).__name__}")
        if self.noise_scale is not None and not callable(self.noise_scale):
            raise TypeError(
                f"noise_scale must be callable or None, got {type(self.noise_scale).__name__}"
            )
        if self.privacy_map is not None and not callable(self.privacy_map):
            raise TypeError(
                f"privacy_map must be callable or None, got {type(self.privacy_map).__name__}"
            )
        if not self.label:
            object.__setattr__(self, "label", self.name)
        if self.privacy_unit not in PRIVACY_UNITS:
            raise ValueError(f"privacy_unit must be one of {PRIVACY_UNITS}")
        if self.trust_model not in TRUST_MODELS:
            raise ValueError(f"trust_model must be one of {TRUST_MODELS}")
        if not getattr(self.fit, "_marks_privacy", False):
            object.__setattr__(self, "fit", _marking_privacy(self.fit, self.privacy_unit != "none"))

    def run(self, comparisons: Comparisons, eps, rng: np.random.Generator, **options) -> Fit:
        """The method on *raw* comparisons: local methods release them first.

        ``fit`` works on what the method sees: the raw comparisons for central
        methods, the users' release for local ones. ``run`` is the uniform call
        on raw data (the benchmark of methods): for a local method each user's
        comparisons are released with :func:`release_local` at budget ``eps``
        (a scalar, or one budget per user), with ``rng``, then ``fit`` runs.
        """
        if self.trust_model == "local":
            if comparisons.user is None:
                raise MethodInputError(f"method {self.name} needs the user of every comparison")
            budget = np.broadcast_to(np.asarray(eps, dtype=np.float64), (comparisons.n_users,))
            # the benchmark's simulation: the law of release_local, its draws in input order
            comparisons = simulated_local_release(comparisons, budget, rng, self.release or "rr")
        self.check(comparisons)
        return self.fit(comparisons, eps, rng, **options)

    def privacy_loss(self, eps, **declared) -> PrivacyLoss:
        """The method's guarantee at budget ``eps``: its :attr:`privacy_map` (one place).

        Parameters
        ----------
        eps : float
            The budget the method is run with (``fit``'s ``eps``; a local method's: each
            user's budget). Positive; ``inf`` only for a method that is not private.
        **declared
            Public parameters of the release (``n_items``, ``L``, ``delta``, ...): the
            map takes those it names and ignores the others, so a caller passes what it
            knows (``None``: not declared).

        Raises
        ------
        ValueError
            A budget that is not positive, or a map that needs a parameter not declared
            (the message names it).
        TypeError
            A map that returns no :class:`PrivacyLoss`.
        """
        e = _budget(eps, self.name, self.private)
        if self.privacy_map is None:
            if not self.private:
                return PrivacyLoss.at("none", math.inf)
            unit = "comparison" if self.trust_model == "local" else self.privacy_unit
            return PrivacyLoss.at(unit, e, self.delta)
        out = self.privacy_map(e, **_accepted(self.privacy_map, declared, self.name))
        if not isinstance(out, PrivacyLoss):
            raise TypeError(
                f"method {self.name}: privacy_map must return a dprank.methods.PrivacyLoss, "
                f"got {type(out).__name__}"
            )
        return out

    @property
    def private(self) -> bool:
        """Whether the method is differentially private."""
        return self.privacy_unit != "none"

    def check(self, comparisons: Comparisons) -> None:
        """Raise :class:`MethodInputError` if ``comparisons`` lack what the method needs."""
        if self.needs_users and comparisons.user is None:
            raise MethodInputError(f"method {self.name} needs the user of every comparison")
        if self.trust_model == "local" and comparisons.user_epsilon is None:
            raise MethodInputError(
                f"method {self.name} needs each user's release budget (user_epsilon)"
            )
        if comparisons.ties and not self.ties:
            # the outcome space is declared (an arena file has three outcomes), so this
            # refusal depends on the input's form, never on whether some vote is a tie
            what = "release" if self.trust_model == "local" else "comparisons"
            raise MethodInputError(
                f"method {self.name} takes two outcomes (win, loss) and these {what} are "
                "declared with three (votes with ties): rank them with a ties model (--model "
                "davidson) or --method ties"
            )
        if self.trust_model == "central":
            check_binary(comparisons, self.name, ties=self.ties)
        if self.release == "rr":
            _check_rr_outputs(comparisons, self.name)
        if self.needs_complete_graph:
            check_tournament(comparisons, self.name)

    @property
    def options(self) -> tuple[str, ...] | None:
        """Names of the keyword options ``fit`` takes (``None``: it takes any)."""
        import inspect

        params = inspect.signature(self.fit).parameters.values()
        if any(p.kind is p.VAR_KEYWORD and p.name != "_" for p in params):
            return None
        return tuple(
            p.name for p in params if p.kind is p.KEYWORD_ONLY and p.name not in ("model", "top_k")
        )


def _budget(eps, name: str, private: bool) -> float:
    """``eps`` as a float: positive, and finite for a private method."""
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.integer, np.floating)):
        raise TypeError(f"eps must be a number, got {type(eps).__name__} {eps!r}")
    e = float(eps)
    if not e > 0 or (private and math.isinf(e)):
        raise ValueError(f"method {name}: eps must be positive and finite, got {eps!r}")
    return e


def _accepted(func: Callable[..., Any], declared: Mapping[str, Any], name: str) -> dict:
    """The ``declared`` keywords that ``func`` takes (all of them if it takes ``**kwargs``);
    a parameter declared ``None`` is not declared."""
    import inspect

    declared = {k: v for k, v in declared.items() if v is not None}
    params = inspect.signature(func).parameters
    if any(p.kind is p.VAR_KEYWORD for p in params.values()):
        return dict(declared)
    needed = [
        p.name
        for p in params.values()
        if p.kind is p.KEYWORD_ONLY and p.default is p.empty and p.name not in declared
    ]
    if needed:
        raise ValueError(
            f"method {name}: its privacy loss needs the declared {', '.join(needed)} "
            f"(privacy_loss(eps, {needed[0]}=...))"
        )
    return {k: v for k, v in declared.items() if k in params and k != next(iter(params))}


def _marking_privacy(fit: Callable[..., Fit], private_method: bool) -> Callable[..., Fit]:
    """``fit`` whose :class:`Fit` says ``private`` only for secure noise and a private method."""
    import dataclasses
    import functools

    @functools.wraps(fit)
    def marked(comparisons, eps, rng, *args, **options):
        out = fit(comparisons, eps, rng, *args, **options)
        if isinstance(out, Fit):
            secure = isinstance(rng, NoiseSource) and rng.secure
            out = dataclasses.replace(out, private=bool(private_method and secure))
        return out

    marked._marks_privacy = True
    return marked


METHODS_BY_NAME: dict[str, Method] = {}


class UnknownMethodError(KeyError, ValueError):
    """No method of that name is registered (a KeyError, as before, and a ValueError)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def register(method: Method, *, replace: bool = False) -> Method:
    """Add ``method`` to the registry (``replace=True`` to overwrite a name)."""
    if not isinstance(method, Method):
        raise TypeError(f"method must be a dprank.methods.Method, got {type(method).__name__}")
    if not isinstance(replace, bool):
        raise TypeError(f"replace must be True or False, got {replace!r}")
    if method.name in METHODS_BY_NAME and not replace:
        raise ValueError(f"a method named {method.name!r} is already registered")
    METHODS_BY_NAME[method.name] = method
    return method


def unregister(name: str) -> None:
    """Remove a method from the registry (tests, plug-ins)."""
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    METHODS_BY_NAME.pop(name, None)


def get_method(name: str) -> Method:
    """The registered method called ``name``.

    Raises
    ------
    UnknownMethodError
        A KeyError and a ValueError, with the list of registered names.
    TypeError
        If ``name`` is not a str.
    """
    if not isinstance(name, str):
        raise TypeError(f"name must be a str, got {type(name).__name__}")
    try:
        return METHODS_BY_NAME[name]
    except KeyError:
        raise UnknownMethodError(
            f"name {name!r} is no registered method; registered: {', '.join(METHODS_BY_NAME)}"
        ) from None


def all_methods() -> list[Method]:
    """Every registered method, in registration order."""
    return list(METHODS_BY_NAME.values())


# --------------------------------------------------------------------------- helpers


def link_of(model) -> Link:
    return get_link(model)


def finite_eps(eps, name: str) -> float:
    e = float(eps)
    if not e > 0 or math.isnan(e):
        raise MethodInputError(f"method {name}: epsilon must be positive, got {eps}")
    return e


def mle_data(c: Comparisons):
    """The comparisons as the penalised-MLE solver takes them.

    The edge list itself: :func:`dprank.fit.mle.fit_penalized_mle` runs the sparse
    Newton-CG, or its dense solver above the measured density threshold.
    """
    return c


def wins_per_item(c: Comparisons) -> np.ndarray:
    """Comparisons won by each item, ``N_i`` of Algorithm 2 (count-weighted, ``O(m)``)."""
    return copeland_counts(c)


def max_user_count(c: Comparisons) -> int:
    """``L``: the largest number of comparisons any one user made (simulations only)."""
    return math.ceil(float(np.max(c.per_user_counts())))


def user_bound(c: Comparisons, rng, max_per_user, name: str) -> int:
    """The per-user bound ``L`` of an individual-DP method.

    A release (``rng`` a :class:`NoiseSource`) needs the declared bound
    ``max_per_user``, and the data must respect it
    (:func:`dprank.privacy.release.bound_user_contributions`). A simulation, whose
    design fixes ``L``, may leave it out: then it is the most comparisons of
    any user.
    """
    if max_per_user is None:
        if isinstance(rng, NoiseSource):
            raise MethodInputError(
                f"method {name} needs a declared bound max_per_user on the comparisons of one "
                "user (its noise is calibrated to it, never to the data)"
            )
        return max_user_count(c)
    if isinstance(max_per_user, bool) or not isinstance(max_per_user, (int, np.integer)):
        raise MethodInputError(f"max_per_user must be a positive integer, got {max_per_user!r}")
    L = int(max_per_user)
    if L < 1:
        raise MethodInputError(f"max_per_user must be a positive integer, got {max_per_user!r}")
    if c.user is not None and c.n_records and float(np.max(c.per_user_counts())) > L:
        raise MethodInputError(
            f"method {name}: a user has more than max_per_user = {L} comparisons; bound them "
            "first (dprank.privacy.release.bound_user_contributions)"
        )
    return L


def _check_rr_outputs(c: Comparisons, name: str) -> None:
    """A randomized-response estimator reads released outcomes, which are 0 or 1."""
    y = c.y
    bad = ~((y == 0) | (y == 1))
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        raise MethodInputError(
            f"method {name} reads randomized-response outputs, which are 0 or 1; record {k} "
            f"has outcome {float(y[k])!r} (real-valued outcomes are the Laplace release's: "
            "method laplace)"
        )


def check_binary(c: Comparisons, name: str, ties: bool = False) -> None:
    """Central mechanisms are calibrated to 0/1 outcomes (or, ``ties``, the three outcomes of
    comparisons declared with ties) and whole-number counts."""
    if c._records_from_pairs():  # 0/1 outcomes and whole counts by construction
        return
    y = c.y
    bad = ~((y == 0) | (y == 1))
    if ties and c.ties:
        bad &= y != 0.5
    if np.any(bad):
        k = int(np.flatnonzero(bad)[0])
        raise MethodInputError(
            f"method {name} needs outcomes 0 or 1 (its sensitivity assumes them); "
            f"record {k} has {y[k]!r}"
        )
    if not np.array_equal(c.count, np.rint(c.count)):
        k = int(np.flatnonzero(c.count != np.rint(c.count))[0])
        raise MethodInputError(
            f"method {name} needs whole-number counts; record {k} has count {c.count[k]!r}"
        )


def laplace_details(rng, scale: float, sensitivity: float | None = None) -> dict:
    """Public details of Laplace noise of ``scale`` (for ``l1`` sensitivity ``sensitivity``).

    With a sensitivity the noise is that of a release of values
    (:meth:`NoiseSource.laplace_mechanism`, on :func:`value_grid_exponent`'s grid).
    """
    out = {"noise": "laplace", "noise_scale": scale}
    if sensitivity is not None:
        out["sensitivity"] = sensitivity
    if isinstance(rng, NoiseSource):
        out["sampler"] = "exact discrete Laplace on a power-of-two grid"
        exponent = grid_exponent if sensitivity is None else value_grid_exponent
        out["grid_exponent"] = exponent(scale)
    return out


def _count_bound(c: Comparisons, max_per_user: int | None) -> float:
    """A public bound on an item's wins: ``L`` times the users (individual), else its comparisons.

    Under individual DP the number of users is public and each keeps at most
    ``L`` comparisons; under edge DP the comparison graph, hence each item's
    number of comparisons, is public.
    """
    if max_per_user is not None:
        return float(max_per_user) * float(c.n_users)
    ps = c.pair_statistics()
    cnt = ps.stored_counts()[0]  # int32 where whole: the same doubles as weights
    per_item = np.bincount(ps.a, weights=cnt, minlength=c.n_items)
    per_item += np.bincount(ps.b, weights=cnt, minlength=c.n_items)
    return float(per_item.max()) if per_item.size else 0.0


def noisy_count_vector(c: Comparisons, rng, sensitivity: float, eps: float, max_per_user=None):
    """Wins per item plus Laplace(``sensitivity / eps``): exact for a release, numpy otherwise."""
    wins = wins_per_item(c)
    if isinstance(rng, NoiseSource):
        bound = _count_bound(c, max_per_user)
        noisy = rng.laplace_mechanism(wins, sensitivity, eps, bound=bound)
        return noisy, laplace_scale(sensitivity, eps)
    scale = sensitivity / eps
    return wins + scale * standard_laplace(rng, c.n_items), scale


def laplace_vector(rng, scale: float, n: int) -> np.ndarray:
    """Laplace(``scale``) noise of an objective perturbation: exact for a release."""
    if isinstance(rng, NoiseSource):
        return rng.laplace(scale, n)
    return scale * standard_laplace(rng, n)


def check_dense(c: Comparisons, name: str) -> None:
    if c.n_items > DENSE_MAX_ITEMS:
        raise MethodInputError(
            f"method {name} works on all item pairs and is limited to {DENSE_MAX_ITEMS} items "
            f"(got {c.n_items})"
        )


def check_tournament(c: Comparisons, name: str) -> None:
    check_dense(c, name)
    ps = c.pair_statistics()
    n = c.n_items
    if ps.a.size != n * (n - 1) // 2 or not np.all(ps.n == 1):
        raise MethodInputError(
            f"method {name} needs a complete tournament: every pair of the {n} items compared "
            f"exactly once (got {ps.a.size} of {n * (n - 1) // 2} pairs, "
            f"{int(np.sum(ps.n != 1))} compared more than once)"
        )


def fit_result(fit, **details) -> Fit:
    return Fit(
        scores=np.asarray(fit.theta, dtype=np.float64),
        converged=bool(fit.converged),
        n_iter=int(fit.n_iter),
        details=details,
    )


def plugin_records(c: Comparisons, z: np.ndarray, w_record: np.ndarray) -> Comparisons:
    """The records with outcome ``z`` (plug-in value for ``i``) and count ``w_l * count``.

    The form in which :func:`dprank.fit.weighted_mle.fit_weighted_mle` takes B2's
    sufficient statistics from an edge list: its pair statistics are
    ``S_ab = sum w z_ab`` and ``N_ab = sum w`` over the records of pair ``a < b``
    (``z_ab = 1 - z`` for a record written ``(b, a)``; debiasing commutes with
    this flip). The counts are real weights (``weighted=True``).
    """
    z = np.asarray(z, dtype=np.float64)
    return c.with_records(
        c.i, c.j, z, np.asarray(w_record, dtype=np.float64) * c.count, weighted=True
    )


def debiased_statistics(c: Comparisons, w_user: np.ndarray) -> PairStatistics:
    """B2's ``(S, N)`` of the debiased RR release in ``c`` with user weights ``w_user``.

    ``S_ab = sum w_l z~_ab`` and ``N_ab = sum w_l`` over the records of each
    observed pair ``a < b`` (B2 eq. (3)-(5)), computed by the studies' formula
    (:func:`dprank.privacy.ldp.add_rr_statistics`, here on the record layout); a record
    written ``(b, a)`` enters with ``1 - y~`` (debiasing commutes with the flip).
    """
    from ..privacy.ldp import add_rr_records

    n = c.n_items
    y = binary(c.y, "y_tilde")
    a, b = np.minimum(c.i, c.j), np.maximum(c.i, c.j)
    keys, pairs = np.unique(a * n + b, return_inverse=True)
    S, N = np.zeros(keys.size), np.zeros(keys.size)
    eps_user = np.asarray(c.user_epsilon, dtype=np.float64)
    y_first = np.where(c.i < c.j, y, 1.0 - y)
    add_rr_records(S, N, pairs, y_first, c.count, eps_user[c.user], w_user[c.user])
    return PairStatistics(n_items=n, a=keys // n, b=keys % n, n=N, w=S)


# --------------------------------------------------------------------------- local releases


def release_local(
    comparisons: Comparisons, user_epsilon, rng: np.random.Generator, mechanism: str = "rr"
) -> Comparisons:
    """Each user's local-DP release of their comparisons, in canonical order whatever ``rng``.

    The law of :func:`simulated_local_release` (Paper B, B2 sections 3.1 and
    5.1; with a :class:`dprank.privacy.noise.NoiseSource` the exact samplers of
    :func:`dprank.privacy.release.local_release`), then put in canonical form: each
    record oriented so that its first item has the smaller index (a released
    outcome ``y`` becomes ``1 - y``), records sorted by user, pair and released
    outcome, and equal records merged with their counts added. So neither a
    record's position nor its orientation says which outcome was true (in input
    order the kept comparisons of a record with a count come before the flipped
    ones). A release made from a numpy Generator is not private (its bits are
    reproducible); the papers' simulations, which are not releases, keep their
    input order through :func:`simulated_local_release`, whose parameters
    these are (``rng`` a numpy Generator or a NoiseSource).

    Returns
    -------
    Comparisons
        The release, with ``user_epsilon`` set, in canonical order.
    """
    out = simulated_local_release(comparisons, user_epsilon, rng, mechanism)
    if isinstance(rng, NoiseSource):
        return out  # dprank.privacy.release.local_release: canonical already
    return _canonical_release(out)


def _canonical_release(c: Comparisons) -> Comparisons:
    """``c`` oriented (first item the smaller index), sorted by user, pair, outcome, merged."""
    from ..privacy.release import canonical_records

    i, j, y = c.i, c.j, np.asarray(c.y, dtype=np.float64)
    swap = i > j
    i, j = np.where(swap, j, i), np.where(swap, i, j)
    y = np.where(swap, 1.0 - y, y) + 0.0
    return canonical_records(c, i, j, y, c.count, c.user, c.user_epsilon, merge=True, ties=c.ties)


def simulated_local_release(
    comparisons: Comparisons, user_epsilon, rng: np.random.Generator, mechanism: str = "rr"
) -> Comparisons:
    """Each user's local-DP release of their comparisons (Paper B, B2 sections 3.1 and 5.1).

    ``"rr"``: classic randomized response, each comparison flipped with
    probability ``1 / (e^eps_l + 1)`` (:func:`dprank.privacy.ldp.randomized_response`);
    ``"rr3"``: three-outcome randomized response of each comparison (votes with ties,
    :func:`dprank.privacy.private_ties.randomized_response3`). In ``"rr"`` a record with
    ``count = c`` releases ``Bin(c, p)`` flipped and ``c - Bin(c, p)``
    kept comparisons (the same law) as two records. ``"laplace"``: outcome plus
    ``Laplace(1 / eps_l)`` per comparison (:func:`dprank.privacy.ldp.laplace_release`;
    records with a count are expanded). Each comparison is ``eps_l``-LDP.

    With a :class:`dprank.privacy.noise.NoiseSource` as ``rng`` (a release of real
    data) the exact samplers of :func:`dprank.privacy.release.local_release` are used
    instead: every comparison flipped on its own and the records in canonical
    order. With a :class:`numpy.random.Generator` (a simulation) the records
    stay in input order as described above.

    Parameters
    ----------
    comparisons : Comparisons
        Raw comparisons with users.
    user_epsilon : (n_users,) array_like
        Each user's budget.
    rng : numpy.random.Generator
    mechanism : {"rr", "rr3", "laplace"}
        (comparisons declared with ties, ``c.ties``: ``"rr"`` is ``"rr3"``)

    Returns
    -------
    Comparisons
        The release, with ``user_epsilon`` set (records in input order: the
        simulations' form, not a release's; :func:`release_local` gives that).
    """
    c = comparisons
    if not isinstance(c, Comparisons):
        raise TypeError(
            f"comparisons must be a dprank.data.comparisons.Comparisons, got {type(c).__name__}"
        )
    if c.user is None:
        raise MethodInputError("a local release needs the user of every comparison")
    if isinstance(rng, NoiseSource):
        from ..privacy.release import local_release

        return local_release(c, user_epsilon, rng, mechanism)
    from ..privacy.ldp import laplace_release, randomized_response, rr_flip_probability

    eps_user = np.asarray(user_epsilon, dtype=np.float64)
    if eps_user.shape != (c.n_users,) or not np.all(eps_user > 0):
        raise MethodInputError(f"user_epsilon must hold {c.n_users} positive budgets")
    count = np.rint(c.count).astype(np.int64)
    i, j, y, user = c.i, c.j, np.asarray(c.y, dtype=np.float64), c.user
    if mechanism == "laplace" and c.ties:
        raise MethodInputError(
            "the Laplace release takes two outcomes; comparisons with ties are released by "
            "three-outcome randomized response (mechanism 'rr3')"
        )
    if mechanism == "rr3" or (mechanism == "rr" and c.ties):
        # three outcomes (votes with ties): each comparison on its own, as release.local_release
        from ..privacy.private_ties import randomized_response3

        rep = np.repeat(np.arange(i.size), count)
        i, j, user = i[rep], j[rep], user[rep]
        codes = np.rint(2.0 * y[rep]).astype(np.int8)
        y_out = randomized_response3(codes, eps_user[user], rng) / 2.0
        return c.with_records(i, j, y_out, np.ones(i.size), user, eps_user, ties=True)
    if mechanism == "laplace":
        rep = np.repeat(np.arange(i.size), count)
        i, j, user = i[rep], j[rep], user[rep]
        y_out = laplace_release(y[rep], eps_user[user], rng)
        n_out = np.ones(i.size)
    elif mechanism != "rr":
        raise ValueError(f"mechanism must be 'rr', 'rr3' or 'laplace', got {mechanism!r}")
    elif np.all(count == 1):
        y_out = randomized_response(y.astype(np.uint8), eps_user[user], rng).astype(np.float64)
        n_out = np.ones(i.size)
    else:
        flipped = rng.binomial(count, rr_flip_probability(eps_user[user]))
        n_pair = np.column_stack([count - flipped, flipped]).ravel()  # kept, then flipped
        y_pair = np.column_stack([y, 1.0 - y]).ravel()
        rec = np.repeat(np.arange(i.size), 2)
        keep = n_pair > 0
        i, j, user = i[rec][keep], j[rec][keep], user[rec][keep]
        y_out, n_out = y_pair[keep], n_pair[keep].astype(np.float64)
    return c.with_records(i, j, y_out, n_out, user, eps_user)


def method_from_path(
    spec: str,
    name: str,
    privacy_unit: str,
    trust_model: str,
    **declared,
) -> Method:
    """A :class:`Method` from a function named by import path ``package.module:function``.

    The function must follow the registry's call, ``fit(comparisons, eps, rng,
    **options)``, and return a :class:`Fit` or an array of scores (wrapped in a
    :class:`Fit`). ``declared`` sets the other :class:`Method` fields (``paper``,
    ``algorithm``, ``needs_users``, ...). The benchmark of methods uses this for
    the config's slot for a new method.
    """
    import importlib

    if not isinstance(spec, str):
        raise TypeError(f"spec must be a str 'package.module:function', got {spec!r}")
    module_name, sep, attr = spec.partition(":")
    if not sep or not module_name or not attr:
        raise ValueError(f"spec must be 'package.module:function', got {spec!r}")
    try:
        func = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise ValueError(
            f"cannot load {spec!r} ({type(exc).__name__}: {exc}); spec must name an importable "
            "'package.module:function'"
        ) from exc

    def fit(comparisons, eps, rng, **options) -> Fit:
        out = func(comparisons, eps, rng, **options)
        return out if isinstance(out, Fit) else Fit(scores=np.asarray(out, dtype=np.float64))

    return Method(
        name=name,
        fit=fit,
        paper=declared.pop("paper", "-"),
        algorithm=declared.pop("algorithm", spec),
        privacy_unit=privacy_unit,
        trust_model=trust_model,
        **{"models": (), **declared},
    )
