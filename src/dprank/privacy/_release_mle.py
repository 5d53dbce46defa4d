"""Perturbed-MLE releases that are private as computed (``dprank rank``, :func:`dprank.rank`).

Objective perturbation (Paper A, Algorithms 1 and 3; B2's NoisyObj) is private for
the *exact* minimiser of an objective perturbed by *continuous* noise. A release
computes neither: its noise lies on a grid and Newton stops at float precision.
Then the penalised gradient of the true data at the released scores lies on the
noise grid and a neighbour's does not, and one release tells the two apart. The
release paths here are private as computed, in two ways.

**Post-processing of an exact count release (edge DP, Algorithm 1 and NoisyObj).**
Under edge DP the comparison graph is public and only the outcomes are private.
For the logistic link one comparison of ``i`` and ``j`` with outcome ``y`` (1: ``i``
won) costs ``log(1 + e^d) - y d = log(2 cosh(d/2)) + (1/2 - y) d`` with
``d = theta_i - theta_j``, so the perturbed objective is

    G(theta) + (N/2 - W + b)^T theta + gamma/2 |theta|^2,

with ``G`` the loss of the graph with every outcome one half, ``N`` the public
comparisons per item and ``W`` the wins per item: the data enter only through
``W - b``. The release therefore draws ``W~ = W + Laplace(lambda)`` with the exact
sampler of :mod:`dprank.privacy.noise` (wins are integers, on the grid; one flipped outcome
moves ``W`` by 2 in ``l1``, so this is ``2 / lambda = eps / 4``-DP at Algorithm 1's
``lambda = 8 / eps``), and minimises ``G(theta) + (N/2 - W~)^T theta +
gamma/2 |theta|^2``, a function of ``W~`` and public facts only: every later float
operation is post-processing. The law of the output is Algorithm 1's. NoisyObj is
the same with ``W~ = W + N(0, sigma^2)`` from OpenDP's exact Gaussian mechanism
(``l2`` sensitivity ``sqrt 2``; its ``(eps, delta)`` follows from OpenDP's zCDP
accounting, :func:`noisy_obj_guarantee`).

**Approximate minima perturbation (individual DP, Algorithm 3's MLE).** Under
individual DP the pairs a user compared are private too, so no count statistic
carries the likelihood. The release follows Iyengar, Near, Song, Thakkar, Thakurta
and Wang (2019), "Towards practical differentially private convex optimization":

1. ``b`` exact discrete Laplace(``lambda = 8 L / eps``) on the grid
   ``2^k1 = 2^(floor(log2 lambda) - 50)`` (:meth:`dprank.privacy.noise.NoiseSource.laplace_grid`);
2. ``theta_a``: the sum-to-zero perturbed MLE solved in float64 with the float
   ``b_f`` nearest ``b`` (Newton, then extra Newton steps until certified);
3. a *certificate*: an upper bound, valid in exact arithmetic, on the projected
   gradient ``||P grad J(theta_a)||_2`` of the perturbed objective (the gradient is
   re-evaluated with a rigorous error bound: :func:`certify`) and on
   ``|sum(theta_a)|``; both must be below the public tolerance ``tau``;
4. the output ``theta_a + Z``, ``Z`` exact discrete Laplace of scale
   ``lambda_2 = 16 r / eps`` on a grid ``2^k2`` (the sum formed exactly in integers
   and rounded once), where ``r = sqrt(n) 2 tau / gamma`` bounds ``||theta_a -
   theta_min||_1``.

Why this is private as computed (docs/privacy.md gives the argument in full). Let
``b_c = b + U`` with ``U`` uniform on the grid cell of ``b`` (never drawn: an
analysis device). ``b_c`` has a density whose ratio under a shift ``s`` is at most
``exp((||s||_1 + n 2^k1) / lambda)``. Paper A's proof of Proposition 3.1 applied to the
exact constrained minimiser ``theta_min`` of the objective perturbed by ``b_c``,
together with its multiplier ``nu``, gives a privacy loss of at most
``eps/2`` (gradient, ``4 L kappa1 / lambda``) ``+ eps/4`` (Hessian: ``L`` rank-one
additions, each at most ``1 + 2 kappa2 / gamma``, with ``gamma = 8 L kappa2 / eps``)
``+ n 2^k1 / lambda`` for ``(theta_min, nu)``. Given them, the computation is a
deterministic function of the data whose output is certified to lie within ``r`` of
``theta_min`` (strong convexity on the sum-zero plane with modulus ``gamma``), so
the output step is a Laplace mechanism of sensitivity ``2 r + n 2^k2``: at most
``eps / 8 + n 2^-50``. Composition gives ``3 eps / 4 + eps / 8 + 2 n 2^-50 <= eps``
(a release needs ``n 2^-50 <= eps / 16``, a refusal on public parameters only).

The papers' studies do not come here: they keep their seeded streams and
:func:`dprank.fit.mle.fit_penalized_mle_batch`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal, localcontext

import numpy as np

from ..data.comparisons import Comparisons
from ..data.models import BTL, Link
from ..fit.mle import fit_penalized_mle
from ..fit.ranking import copeland_counts
from .noise import FINE_GRID_BITS, GRID_BITS, NoiseSource, laplace_scale

__all__ = [
    "CERTIFIED_TOLERANCE_BITS",
    "Certificate",
    "PenalizedFit",
    "certified_tolerance",
    "certify",
    "edge_mle_release",
    "individual_mle_release",
    "noisy_obj_guarantee",
    "noisy_obj_release",
    "outcome_free",
]

#: Unit roundoff of float64.
_U = 2.0**-53
#: ``tau = 2^-CERTIFIED_TOLERANCE_BITS (N_users L + n lambda)``: the certified gradient
#: tolerance lies 12 binary orders above float64's unit roundoff of the objective's scale.
CERTIFIED_TOLERANCE_BITS = 41
#: Newton rounds after the first fit while the certificate fails.
_POLISH_ROUNDS = 6


class CertificationError(RuntimeError):
    """The solver's fit could not be certified: nothing is released."""


# --------------------------------------------------------------------------- edge DP


def outcome_free(c: Comparisons) -> Comparisons:
    """The comparison graph of ``c`` with every outcome one half (``G`` of the module text).

    Same records, counts and labels; no user. Its loss is
    ``sum log(2 cosh((theta_i - theta_j) / 2))``, a function of the public graph only.
    """
    return c.with_records(c.i, c.j, np.full(c.i.size, 0.5), c.count)


@dataclass(frozen=True)
class PenalizedFit:
    """The penalised MLE a perturbed-MLE method fits: its ridge, link and solver settings.

    The fits of Algorithms 1 and 3 (:mod:`dprank.methods`) state it once; a release
    solves it after drawing its noise (:func:`edge_mle_release`,
    :func:`individual_mle_release`), a simulation with numpy's noise (:meth:`solve`).
    """

    gamma: float
    link: Link = BTL
    xtol: float = 1e-10
    max_iter: int = 100

    def solve(self, data, b: np.ndarray | None, *, sum_zero: bool = False):
        """:func:`dprank.fit.mle.fit_penalized_mle` of ``data`` with linear term ``b``."""
        return fit_penalized_mle(
            data,
            self.gamma,
            b,
            link=self.link,
            sum_zero=sum_zero,
            xtol=self.xtol,
            max_iter=self.max_iter,
        )


def _comparisons_per_item(c: Comparisons) -> np.ndarray:
    """``N``: comparisons of each item (count-weighted), public under edge DP."""
    n = c.n_items
    return np.bincount(c.i, c.count, n) + np.bincount(c.j, c.count, n)


def edge_mle_release(c: Comparisons, eps: float, noise: NoiseSource, mle: PenalizedFit):
    """Algorithm 1 as post-processing of exact noisy win totals (module text).

    ``W~ = W + Laplace(8 kappa1 / eps)``: exact discrete Laplace on the grid ``2^k``,
    ``k = min(floor(log2 scale) - 30, 0)``, so the integer wins always lie on it (no
    refusal that depends on them), the sum formed in integers and rounded once; then
    the minimiser of ``G(theta) + (N/2 - W~)^T theta + gamma/2 |theta|^2``.

    Returns
    -------
    (MLEFit, dict)
        The fit and the public details of the noise (scale, grid exponent).
    """
    _check_logistic(mle.link, "Algorithm 1's release")
    wins = copeland_counts(c)
    # Laplace(8 kappa1 / eps) on wins of l1 sensitivity 2: budget eps / 4 (kappa1 = 1)
    scale = laplace_scale(2.0, eps / (4.0 * mle.link.kappa1))
    bits = min(max(GRID_BITS, math.frexp(scale)[1] - 1), FINE_GRID_BITS)
    z, k = noise.laplace_grid(scale, c.n_items, bits)
    noisy = exact_noisy_sum(wins, z, k)
    b = 0.5 * _comparisons_per_item(c) - noisy
    fit = mle.solve(outcome_free(c), b)
    return fit, {"noise_scale": scale, "grid_exponent": k, "released_statistic": "wins per item"}


def exact_noisy_sum(values: np.ndarray, z: np.ndarray, k: int) -> np.ndarray:
    """``values + z 2^k`` formed exactly (``values`` on the grid ``2^k``) and rounded once.

    Every step is exact integer arithmetic until the one correctly rounded conversion
    to float64, so the result is a function of the exact noisy values: post-processing.

    Raises
    ------
    ValueError
        If a value is not a multiple of ``2^k``.
    """
    out = np.empty(len(values))
    for r, (v, zr) in enumerate(zip(values, z, strict=True)):
        units = math.ldexp(float(v), -k)
        if units != math.floor(units):
            raise ValueError(f"value {v!r} is not on the noise grid 2^{k}")
        out[r] = math.ldexp(float(int(units) + int(zr)), k)
    return out


def noisy_obj_guarantee(sigma: float, delta: float) -> float:
    """The ``epsilon`` at ``delta`` of OpenDP's Gaussian mechanism of scale ``sigma`` on win totals.

    One flipped outcome moves the wins per item by ``sqrt 2`` in ``l2``; OpenDP's
    ``make_gaussian`` maps that to ``rho``-zCDP and ``make_zCDP_to_approxDP`` to the
    ``(eps, delta)`` curve.
    """
    import opendp.prelude as dp

    dp.enable_features("contrib")
    domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
    meas = dp.m.make_gaussian(domain, dp.l2_distance(T=float), scale=float(sigma))
    curve = dp.c.make_zCDP_to_approxDP(meas).map(math.sqrt(2.0))
    return float(curve.epsilon(float(delta)))


def noisy_obj_release(
    c: Comparisons,
    eps: float,
    noise: NoiseSource,
    delta: float,
    *,
    gtol: float = 1e-8,
    max_iter: int = 100,
):
    """B2's NoisyObj as post-processing of exact Gaussian noisy win totals (module text).

    ``W~ = W + N(0, sigma^2)`` (OpenDP, :meth:`NoiseSource.gaussian_mechanism`) with
    the assumed calibration's ``sigma`` (:func:`dprank.fit.weighted_mle.noisy_obj_calibration`),
    then B2's objective with ``w = W - W~``: ``G(theta) + (N/2 - W~)^T theta +
    gamma/2 |theta|^2``, centred.

    Returns
    -------
    (WeightedFit, dict)
        The centred fit and its public details (``sigma``, the guarantee computed by OpenDP).
    """
    from ..fit.weighted_mle import noisy_obj_calibration, noisy_obj_minimiser

    gamma, sigma = noisy_obj_calibration(eps, delta)
    guaranteed = noisy_obj_guarantee(sigma, delta)
    if guaranteed > eps * (1 + 1e-12):
        raise ValueError(
            f"NoisyObj's calibration gives eps = {guaranteed:.6g} at delta = {delta:g}, "
            f"above the requested {eps:g}"
        )
    wins = copeland_counts(c)
    noisy = noise.gaussian_mechanism(wins, sigma)
    b = 0.5 * _comparisons_per_item(c) - noisy
    out = noisy_obj_minimiser(
        outcome_free(c), None, c.n_items, gamma, b, gtol=gtol, max_iter=max_iter
    )
    details = {
        "noise": "gaussian",
        "noise_scale": sigma,
        "sampler": "OpenDP make_gaussian (exact discrete Gaussian, one rounding)",
        "released_statistic": "wins per item",
        "epsilon_computed": guaranteed,
    }
    return out, details


def _check_logistic(link: Link, what: str) -> None:
    if link.name != BTL.name:
        raise ValueError(f"{what} needs the logistic (BTL) link, got {link.name}")


# --------------------------------------------------------------------------- individual DP


@dataclass(frozen=True)
class Certificate:
    """A certified bound on how far a float fit lies from the exact constrained minimiser.

    Attributes
    ----------
    gradient_bound : float
        Upper bound (exact arithmetic) on ``||P grad J_c(theta)||_2``, ``P`` the
        projection onto ``sum = 0`` and ``J_c`` the objective perturbed by the
        continuous ``b + U`` of the module text.
    sum_bound : float
        Upper bound on ``|sum(theta)| / sqrt(n)``: the distance of ``theta`` from the plane.
    tau : float
        The public tolerance both are held to (``sum_bound`` times ``gamma``).
    gamma : float
        Strong convexity modulus (the ridge).
    """

    gradient_bound: float
    sum_bound: float
    tau: float
    gamma: float

    @property
    def passed(self) -> bool:
        """``gradient_bound <= tau`` and ``gamma sum_bound <= tau``."""
        return self.gradient_bound <= self.tau and self.gamma * self.sum_bound <= self.tau

    @property
    def distance(self) -> float:
        """Certified bound on ``||theta - theta_min||_2``: ``gradient_bound/gamma + sum_bound``."""
        return self.gradient_bound / self.gamma + self.sum_bound


def certified_tolerance(n_items: int, n_users: int, L: int, lam: float) -> float:
    """The public gradient tolerance ``tau = 2^-41 (N_users L + n lambda)``.

    A function of public quantities only (individual DP treats the items, the
    number of users and the declared ``L`` as public; ``lambda`` is the noise
    scale). It lies about ``2^12`` above the float64 floor of the gradient, whose
    terms sum to at most ``4 N_users L + 3 ||b||_1`` in absolute value.
    """
    return math.ldexp(float(n_users) * float(L) + float(n_items) * lam, -CERTIFIED_TOLERANCE_BITS)


def _btl_terms(theta: np.ndarray, c: Comparisons) -> tuple[np.ndarray, np.ndarray]:
    """Per-record gradient terms ``count (sigma(d) - y)`` for item ``i`` and their error bounds.

    ``d = theta_i - theta_j``; for ``y = 1`` the term is ``-count / (1 + e^d)``, for
    ``y = 0`` ``count / (1 + e^-d)``. Error analysis, with ``u = 2^-53``: IEEE-754
    round to nearest; NumPy's float64 ``exp`` within 4 units in the last place (relative
    ``8u``; NumPy's own accuracy tests hold it to 1); ``|fl(d) - d| <= u |d|`` and the
    logistic has slope at most 1/4; ``1 / (1 + exp(x))`` is then evaluated with
    relative error at most ``10.1 u``, and the product by the count adds ``u``. Hence
    ``|term_f - term| <= count u (12 + 0.3 |fl(d)|)``. Where ``exp`` overflows or
    underflows the true term is below ``1e-307`` (or within it of the count).
    """
    d = theta[c.i] - theta[c.j]
    won = c.y == 1.0
    with np.errstate(over="ignore"):
        s = 1.0 / (1.0 + np.exp(np.where(won, d, -d)))
    term = c.count * np.where(won, -s, s)
    err = c.count * _U * (12.0 + 0.3 * np.abs(d))
    return term, err


def _fsum_by_item(n: int, index: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Correctly rounded sums (``math.fsum``) of ``values`` grouped by ``index``."""
    order = np.argsort(index, kind="stable")
    bounds = np.searchsorted(index[order], np.arange(n + 1))
    v = values[order]
    return np.array([math.fsum(v[bounds[k] : bounds[k + 1]]) for k in range(n)])


def certify(
    theta: np.ndarray,
    c: Comparisons,
    gamma: float,
    b: np.ndarray,
    grid_exponent: int,
    tau: float,
) -> Certificate:
    """Certify a sum-to-zero perturbed-MLE fit (BTL) against the tolerance ``tau``.

    Evaluates ``g = grad L(theta; c) + gamma theta + b`` in float64 with a bound
    ``e_i`` on each coordinate's error, valid in exact arithmetic: the record terms
    of :func:`_btl_terms`, their per-item sums by ``math.fsum`` (correctly rounded:
    ``u |S_i|``), the ridge and the noise (a rounding each, ``u`` times their size),
    the two additions, the rounding of the exact grid noise to ``b`` (``u |b_i|``) and
    the analysis' uniform ``U`` (``2^grid_exponent``). Then, for any ``m``,
    ``||P g_exact||_2 <= ||fl(g - m)||_2 (1 + 1e-12) + ||e||_1``, and
    ``|sum(theta)| <= |fsum(theta)| (1 + 1e-12)``.

    Parameters
    ----------
    theta : (n,) numpy.ndarray
        The fit.
    c : Comparisons
        The (bounded) data, 0/1 outcomes.
    gamma : float
        The ridge.
    b : (n,) numpy.ndarray
        The float noise the fit used (each the float nearest an exact grid value).
    grid_exponent : int
        ``k1`` of the noise grid.
    tau : float
        The public tolerance (:func:`certified_tolerance`).
    """
    n = c.n_items
    theta = np.asarray(theta, dtype=np.float64)
    term, err = _btl_terms(theta, c)
    idx = np.concatenate([c.i, c.j])
    S = _fsum_by_item(n, idx, np.concatenate([term, -term]))
    E = _fsum_by_item(n, idx, np.concatenate([err, err]))
    ridge = gamma * theta
    g = (S + ridge) + b
    e = E + 2.0 * _U * (np.abs(S) + np.abs(ridge) + np.abs(S + ridge) + np.abs(b) + np.abs(g))
    e = e * (1.0 + 1e-12) + math.ldexp(1.0, grid_exponent)
    v = g - math.fsum(g) / n
    grad_bound = math.sqrt(math.fsum(v * v)) * (1.0 + 1e-12) + math.fsum(e) * (1.0 + 1e-12)
    sum_bound = abs(math.fsum(theta)) * (1.0 + 1e-12) / math.sqrt(n)
    return Certificate(float(grad_bound), float(sum_bound), float(tau), float(gamma))


def _centre(theta: np.ndarray) -> np.ndarray:
    return theta - math.fsum(theta) / theta.size


def _round_to_grid(theta, k: int) -> list[int]:
    """``theta / 2^k`` rounded to the nearest integers (Python ints; exact for floats)."""
    if isinstance(theta[0], Decimal):
        with localcontext() as ctx:
            ctx.prec = _DECIMAL_DIGITS
            scale = Decimal(2) ** -k
            return [int((t * scale).to_integral_value()) for t in theta]
    return [round(math.ldexp(float(t), -k)) for t in theta]


def _certified_fit(c, gamma, b, z1, k1, tau, theta0, link, *, polish_rounds=None):
    """A fit certified to ``tau``: float64 Newton rounds, then (if need be) decimal refinement.

    Returns ``(theta, certificate, rounds)``; ``theta`` is a float array, or a list of
    :class:`decimal.Decimal` where float64 could not certify it (the objective's noise so
    large that float64's rounding of the gradient exceeds ``tau``).
    """
    theta = _centre(np.asarray(theta0, dtype=np.float64))
    cert = certify(theta, c, gamma, b, k1, tau)
    rounds = 0
    limit = _POLISH_ROUNDS if polish_rounds is None else polish_rounds
    while not cert.passed and rounds < limit:
        rounds += 1
        more = fit_penalized_mle(
            c, gamma, b, link=link, theta0=theta, sum_zero=True, xtol=0.0, max_iter=2
        )
        theta = _centre(more.theta)
        cert = certify(theta, c, gamma, b, k1, tau)
    if cert.passed:
        return theta, cert, rounds
    dec, cert = refine_decimal(theta, c, gamma, z1, k1, tau)
    return dec, cert, rounds


#: Digits of the decimal refinement (Python's :mod:`decimal`, correctly rounded).
_DECIMAL_DIGITS = 100
_DECIMAL_ROUNDS = 30


def _newton_matrix(theta: np.ndarray, c: Comparisons, gamma: float):
    """The Hessian ``L(V) + gamma I`` at ``theta`` (sparse; float64: only a preconditioner)."""
    import scipy.sparse as sp

    d = theta[c.i] - theta[c.j]
    with np.errstate(over="ignore"):
        s = 1.0 / (1.0 + np.exp(-np.abs(d)))
    v = c.count * s * (1.0 - s)
    n = c.n_items
    off = sp.coo_matrix((-v, (c.i, c.j)), shape=(n, n))
    lap = off + off.T
    diag = -np.asarray(lap.sum(axis=1)).ravel() + gamma
    return (lap + sp.diags(diag)).tocsc()


def refine_decimal(theta0, c: Comparisons, gamma: float, z1, k1: int, tau: float):
    """Newton refinement in 100-digit decimal arithmetic until the fit is certified to ``tau``.

    The fallback that makes every fit certifiable whatever the noise: the gradient
    ``grad L(theta) + gamma theta + b`` is evaluated in :mod:`decimal` (every operation
    and ``exp`` correctly rounded, relative error at most ``5e-100``) with the exact
    noise ``b = z1 2^k1``; the Newton step ``-H^-1 P g`` (the sum-to-zero Newton step:
    ``H 1 = gamma 1``) is solved in float64 from the float64 Hessian, so the iteration
    is Newton's method with a Hessian exact to 1e-16 relative, contracting by that
    factor near the minimiser. The certificate bounds each coordinate's error by
    ``1e-80 (m_i + 10) A_i`` (``m_i`` records, ``A_i`` the sum of the absolute values
    of its terms), far above the operations' rounding.

    Returns
    -------
    (list of Decimal, Certificate)

    Raises
    ------
    CertificationError
        If the refinement does not certify within 30 Newton steps.
    """
    import scipy.sparse.linalg as spla

    n = c.n_items
    with localcontext() as ctx:
        ctx.prec = _DECIMAL_DIGITS
        cell = Decimal(2) ** k1
        b = [Decimal(int(z)) * cell for z in z1]  # exact (k1 >= -77 for eps <= 1e9)
        gamma_d = Decimal(float(gamma))  # the float ridge, exactly
        theta = [Decimal(float(t)) for t in theta0]
        count = [Decimal(float(x)) for x in c.count]
        won = (c.y == 1.0).tolist()
        ii, jj = c.i.tolist(), c.j.tolist()
        m_item = np.bincount(c.i, minlength=n) + np.bincount(c.j, minlength=n)
        sqrt_n = Decimal(n).sqrt()
        one = Decimal(1)
        for _ in range(_DECIMAL_ROUNDS):
            mean = sum(theta) / n
            theta = [t - mean for t in theta]
            g = [gamma_d * t + bi for t, bi in zip(theta, b, strict=True)]
            a = [abs(gamma_d * t) + abs(bi) for t, bi in zip(theta, b, strict=True)]
            for r in range(len(ii)):
                i, j = ii[r], jj[r]
                d = theta[i] - theta[j]
                x = d if won[r] else -d  # the term is -+count / (1 + e^x)
                if x > 0:  # e^-x underflows harmlessly where e^x would overflow
                    e = (-x).exp()
                    s = e / (one + e)
                else:
                    s = one / (one + x.exp())
                term = -count[r] * s if won[r] else count[r] * s
                g[i] += term
                g[j] -= term
                size = count[r] * (one + abs(d))
                a[i] += size
                a[j] += size
            gm = sum(g) / n
            pg = [x - gm for x in g]
            norm = sum(x * x for x in pg).sqrt()
            err = sum(Decimal(10) ** -80 * (int(m_item[k]) + 10) * a[k] for k in range(n))
            bound = norm * (one + Decimal(10) ** -90) + err + sqrt_n * cell
            total = abs(sum(theta)) + n * Decimal(10) ** -95 * max(abs(t) for t in theta)
            cert = Certificate(float(bound), float(total / sqrt_n), float(tau), float(gamma))
            if bound <= Decimal(tau) and gamma_d * total / sqrt_n <= Decimal(tau):
                return theta, cert
            h = _newton_matrix(np.array([float(t) for t in theta]), c, gamma)
            step = spla.spsolve(h, -np.array([float(x) for x in pg]))
            theta = [t + Decimal(float(s)) for t, s in zip(theta, step, strict=True)]
    raise CertificationError(
        "the perturbed MLE could not be certified to the public tolerance in decimal "
        f"arithmetic (gradient bound {cert.gradient_bound:.3g}, tolerance {tau:.3g}); "
        "nothing released"
    )


def individual_mle_release(
    c: Comparisons, eps: float, L: int, noise: NoiseSource, mle: PenalizedFit, lam: float
):
    """Algorithm 3's perturbed MLE by approximate minima perturbation (module text).

    Parameters
    ----------
    c : Comparisons
        Bounded to ``L`` comparisons per user, 0/1 outcomes, with users.
    eps : float
        The budget.
    L : int
        The declared bound.
    noise : NoiseSource
    mle : PenalizedFit
        Its ridge ``gamma`` is Proposition 3.1's ``8 L kappa2 / eps``; BTL only.
    lam : float
        Proposition 3.1's noise scale ``8 L kappa1 / eps``.

    Returns
    -------
    (numpy.ndarray, MLEFit, dict)
        The released scores, the solver's fit and the calibration (public and private
        keys; :data:`dprank.methods.PUBLIC_DETAILS` says which are public).

    Raises
    ------
    ValueError
        If ``n 2^-50 > eps / 16`` (too many items for so small a budget: a refusal
        on public parameters).
    CertificationError
        If the fit cannot be certified (no output).
    """
    _check_logistic(mle.link, "the individual-DP perturbed MLE's release")
    n = c.n_items
    if math.ldexp(float(n), -FINE_GRID_BITS) > eps / 16.0:
        raise ValueError(
            f"epsilon = {eps:g} is too small for {n} items: the certified release needs "
            f"n 2^-{FINE_GRID_BITS} <= epsilon / 16"
        )
    n_users = c.n_users
    tau = certified_tolerance(n, n_users, L, lam)
    z1, k1 = noise.laplace_grid(lam, n, FINE_GRID_BITS)
    b = np.ldexp(z1.astype(np.float64), k1)  # the float nearest each exact draw
    fit = mle.solve(c, b, sum_zero=True)
    theta, cert, rounds = _certified_fit(c, mle.gamma, b, z1, k1, tau, fit.theta, mle.link)
    # output noise: Laplace of sensitivity 2 r at budget eps / 8, r = sqrt(n) 2 tau / gamma
    r = math.sqrt(n) * 2.0 * tau / mle.gamma
    lam2 = laplace_scale(2.0 * r, eps / 8.0)
    z2, k2 = noise.laplace_grid(lam2, n, FINE_GRID_BITS)
    exact = [t + int(z) for t, z in zip(_round_to_grid(theta, k2), z2, strict=True)]
    scores = np.array([math.ldexp(float(s), k2) for s in exact], dtype=np.float64)
    details = {
        "noise_scale": lam,
        "grid_exponent": k1,
        "output_noise": "laplace",
        "output_noise_scale": lam2,
        "output_grid_exponent": k2,
        "certificate": {
            "tolerance": tau,
            "gradient_bound": cert.gradient_bound,
            "sum_bound": cert.sum_bound,
            "polish_rounds": rounds,
            "arithmetic": "decimal" if isinstance(theta[0], Decimal) else "float64",
        },
    }
    return scores, fit, details
