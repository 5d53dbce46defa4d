"""Randomness for releases: the operating system's secure generator through exact samplers.

A release of somebody's data (``dprank rank``, ``dprank privatize``,
:func:`dprank.rank`) draws its noise from a :class:`NoiseSource`. By default
(:meth:`NoiseSource.system`) every random bit comes from the operating system's
cryptographically secure generator (``os.urandom``: ``getrandom(2)`` on Linux),
so nobody can replay the noise from a seed, and the samplers built on those bits
are *exact*: they produce the distribution they claim in integer arithmetic, with
no floating-point rounding inside the sampler, so the low bits of a released
number say nothing about the private value (Mironov 2012, "On significance of the
least significant bits for differential privacy"). The constructions:

* **Laplace** (:meth:`NoiseSource.laplace_mechanism`, :meth:`NoiseSource.laplace`):
  the discrete Laplace distribution ``P(Z = z) ~ exp(-|z| g / b)`` on the grid
  ``g = 2^k`` with ``k = floor(log2 b) - 30`` (for a release of values,
  :meth:`NoiseSource.laplace_mechanism`, at most ``0``: :func:`value_grid_exponent`),
  sampled with Canonne, Kamath and
  Steinke's exact algorithm ("The discrete Gaussian for differential privacy",
  NeurIPS 2020, Algorithms 1 and 2) from uniform integers. A value ``x`` on the
  grid (integer counts, 0/1 outcomes) is released as ``x + g Z``, rounded to the
  nearest float64 only after the exact sum is formed (IEEE addition is correctly
  rounded, so the rounding is post-processing of ``x + g Z``). With ``l1``
  sensitivity ``D`` (a multiple of ``g``) the release is ``D / b``-DP *exactly*;
  the scale ``b`` is rounded up to a float, never down, so the guarantee is at
  least the stated ``eps = D / b``. This is what OpenDP's ``make_laplace`` does
  (its floats use a finer grid); ``tests/test_noise.py`` checks the two
  distributions against each other.
* **Randomized response** (:meth:`NoiseSource.randomized_response`): each bit
  flips independently with probability ``p' = ceil(p 2^64) / 2^64`` (at most
  ``1/2``), where ``p = 1 / (e^eps + 1)``, decided by comparing a uniform 64-bit
  integer with ``p' 2^64``: exact, and ``p' >= p`` so the privacy loss
  ``log((1 - p') / p')`` is at most ``eps``
  (:func:`rr_effective_epsilon` gives it).
* **Fine grids** (:meth:`NoiseSource.laplace_grid`): the same exact discrete
  Laplace on the grid ``2^(floor(log2 b) - bits)`` for up to ``bits = 50``,
  returned as exact integers with their exponent; the certified individual-DP
  MLE (:mod:`dprank.privacy._release_mle`) draws its objective and output noise there.
* **Three-outcome randomized response** (:meth:`NoiseSource.randomized_response3`,
  votes with ties): each outcome moves to each of the two others with probability
  ``t / 2^64``, ``t = ceil(2^64 / (e^eps + 2))`` (:func:`rr3_threshold`), decided by one
  uniform 64-bit word: exact, with loss ``log((2^64 - 2t) / t) <= eps``.
* **Gaussian** (:meth:`NoiseSource.normal`, :meth:`NoiseSource.gaussian_mechanism`,
  the NoisyObj baseline only): OpenDP's exact ``make_gaussian`` sampler.
* **Uniform choices** (subsampling a user's comparisons to a declared bound,
  random tie-breaking): uniform 64-bit keys.

:meth:`NoiseSource.from_seed` drives the same samplers from a seeded
:class:`numpy.random.Generator` (PCG64 through ``SeedSequence``): reproducible
noise for tests and teaching, **not** private (anyone who learns or guesses the
seed can remove the noise); such a release is marked ``"private": false``.

The papers' simulations are not releases: they keep drawing from seeded
generators with numpy's samplers (:mod:`dprank.privacy.mechanisms`, :mod:`dprank.privacy.ldp`),
so their results do not change.
"""

from __future__ import annotations

import math
import os
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np

from ..base import _checks

__all__ = [
    "EXACT_INTEGER_LIMIT",
    "FINE_GRID_BITS",
    "GRID_BITS",
    "NoiseSource",
    "as_noise_source",
    "grid_exponent",
    "laplace_scale",
    "rr3_effective_epsilon",
    "rr3_threshold",
    "rr_effective_epsilon",
    "rr_flip_threshold",
    "value_grid_exponent",
]

#: The Laplace grid lies this many binary orders below the noise scale:
#: ``g = 2^(floor(log2 b) - GRID_BITS)``.
GRID_BITS = 30
#: ``2^53``: the integers below it are exact in float64; counts released with
#: :meth:`NoiseSource.laplace_mechanism` must be bounded below it.
EXACT_INTEGER_LIMIT = 1 << 53
#: The largest noise scale of :meth:`NoiseSource.laplace_mechanism` (``2^40``): its draws
#: on the integer grid then stay far below ``2^53``.
_MAX_VALUE_SCALE = float(1 << 40)
#: The finest grid :meth:`NoiseSource.laplace_grid` samples on (``bits`` at most this): the
#: scale in grid units then stays below ``2^53``, as the exact sampler needs.
FINE_GRID_BITS = 50

_U64 = np.uint64
_TWO64 = 1 << 64


def grid_exponent(scale: float, bits: int = GRID_BITS) -> int:
    """``k`` of the Laplace grid ``2^k`` for noise scale ``scale`` (``floor(log2 scale) - bits``,
    30 bits by default)."""
    _checks.real(scale, "scale")
    if not (scale > 0 and math.isfinite(scale)):
        raise ValueError(f"scale must be a positive finite number, got {scale!r}")
    return math.frexp(scale)[1] - 1 - bits


def value_grid_exponent(scale: float) -> int:
    """``k`` of the grid of :meth:`NoiseSource.laplace_mechanism`: ``min(grid_exponent(scale), 0)``.

    Never coarser than the integers, so that integer values always lie on it.
    """
    return min(grid_exponent(scale), 0)


def laplace_scale(sensitivity: float, epsilon: float) -> float:
    """``sensitivity / epsilon`` rounded *up* to a float: the guarantee is at most ``epsilon``.

    Raises
    ------
    ValueError, TypeError
        If ``sensitivity`` or ``epsilon`` is not a positive finite number.
    """
    _checks.positive_finite(sensitivity, "sensitivity")
    _checks.positive_finite(epsilon, "epsilon")
    exact = Fraction(sensitivity) / Fraction(epsilon)
    b = float(exact)
    if Fraction(b) < exact:
        b = math.nextafter(b, math.inf)
    return b


def _move_threshold(epsilon: float, others: int) -> int:
    """``floor(2^64 / (e^eps + others)) + 1``, at most ``floor(2^64 / (others + 1))``: the word
    threshold of randomized response over ``others + 1`` outcomes (60-digit decimals)."""
    eps = _checks.real(epsilon, "epsilon")
    if not eps > 0 or math.isnan(eps):
        raise ValueError(f"epsilon must be positive, got {epsilon!r}")
    if math.isinf(eps):
        return 0
    with localcontext() as ctx:
        ctx.prec = 60
        p = Decimal(1) / (Decimal(eps).exp() + others)
        threshold = int((p * _TWO64).to_integral_value(rounding="ROUND_FLOOR")) + 1
    return min(threshold, _TWO64 // (others + 1))


def _move_loss(threshold: int, others: int) -> float:
    """``log((2^64 - others t) / t)``: the loss of randomized response with that threshold."""
    if threshold == 0:
        return math.inf
    with localcontext() as ctx:
        ctx.prec = 60
        return float((Decimal(_TWO64 - others * threshold) / Decimal(threshold)).ln())


def rr_flip_threshold(epsilon: float) -> int:
    """``ceil(2^64 / (e^eps + 1))`` capped at ``2^63``: flip when a uniform 64-bit word is below.

    Computed in 60-digit decimal arithmetic; the flip probability
    ``threshold / 2^64`` is at least ``1 / (e^eps + 1)``, so the loss is at most
    ``eps``.
    """
    return _move_threshold(epsilon, 1)


def rr_effective_epsilon(epsilon: float) -> float:
    """The exact privacy loss ``log((1 - p') / p')`` of :meth:`NoiseSource.randomized_response`."""
    return _move_loss(rr_flip_threshold(epsilon), 1)


def rr3_threshold(epsilon: float) -> int:
    """``ceil(2^64 / (e^eps + 2))``, at most ``floor(2^64 / 3)``: three-outcome randomized response.

    A uniform 64-bit word below the threshold moves the outcome to the next of the
    three, below twice the threshold to the one after; otherwise it is kept. Each
    other outcome then has probability ``threshold / 2^64 >= 1 / (e^eps + 2)``, so
    the privacy loss ``log((2^64 - 2 threshold) / threshold)`` is at most ``eps``
    (:func:`rr3_effective_epsilon`). Computed in 60-digit decimal arithmetic.
    """
    return _move_threshold(epsilon, 2)


def rr3_effective_epsilon(epsilon: float) -> float:
    """The exact loss ``log((2^64 - 2 t) / t)`` of :meth:`NoiseSource.randomized_response3`."""
    return _move_loss(rr3_threshold(epsilon), 2)


class NoiseSource:
    """Random bits plus the exact samplers that releases use.

    Parameters
    ----------
    generator : numpy.random.Generator or None
        ``None`` (the default): the operating system's secure generator.
        A generator: reproducible, *not private* bits (:meth:`from_seed`).

    Attributes
    ----------
    secure : bool
        Whether the bits come from the operating system's secure generator.
    """

    def __init__(self, generator: np.random.Generator | None = None):
        if generator is not None and not isinstance(generator, np.random.Generator):
            raise TypeError(
                f"generator must be a numpy.random.Generator or None, got {type(generator)}"
            )
        self._gen = generator
        self.secure = generator is None

    @classmethod
    def system(cls) -> NoiseSource:
        """Bits from the operating system's cryptographically secure generator."""
        return cls(None)

    @classmethod
    def from_seed(cls, seed: int | np.random.Generator) -> NoiseSource:
        """Reproducible, **not private** bits from ``seed`` (an int or a Generator)."""
        if isinstance(seed, np.random.Generator):
            return cls(seed)
        if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
            raise TypeError(f"seed must be an int or a numpy.random.Generator, got {seed!r}")
        if seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {seed}")
        return cls(np.random.default_rng(int(seed)))

    def __repr__(self) -> str:
        return "NoiseSource.system()" if self.secure else "NoiseSource.from_seed(...)"

    # ------------------------------------------------------------------ bits

    def words(self, size: int) -> np.ndarray:
        """``size`` uniform 64-bit words (uint64)."""
        size = int(size)
        if size <= 0:
            return np.empty(0, dtype=_U64)
        if self._gen is None:
            return np.frombuffer(os.urandom(8 * size), dtype=_U64).copy()
        return self._gen.bit_generator.random_raw(size)

    def uniform_below(self, bound, size: int | None = None) -> np.ndarray:
        """Uniform integers in ``[0, bound)`` (elementwise ``bound``, each in ``[1, 2^64)``).

        Rejection sampling on 64-bit words: a word ``u`` is kept when
        ``u < 2^64 - (2^64 mod bound)``, so ``u mod bound`` is exactly uniform.
        """
        d = np.asarray(bound, dtype=_U64)
        if size is not None:
            d = np.broadcast_to(d, (int(size),))
        d = np.ascontiguousarray(d).ravel()
        if d.size and d.min() < 1:
            raise ValueError("bound must be at least 1")
        out = np.empty(d.size, dtype=_U64)
        # 2^64 mod d, and the largest accepted word 2^64 - 1 - (2^64 mod d)
        top = ~((_U64(0) - d) % d)
        pending = np.arange(d.size)
        while pending.size:
            u = self.words(pending.size)
            ok = u <= top[pending]
            idx = pending[ok]
            out[idx] = u[ok] % d[idx]
            pending = pending[~ok]
        return out

    def bits(self, size: int) -> np.ndarray:
        """``size`` fair coin flips (bool)."""
        return (self.words(size) & _U64(1)).astype(bool)

    def random_keys(self, size: int) -> np.ndarray:
        """Uniform 64-bit sort keys (for uniform subsets and random tie-breaking)."""
        return self.words(size)

    def random(self, size=None) -> np.ndarray | float:
        """Uniform floats on ``[0, 1)`` with 53 random bits (tie-breaking keys; the signature of
        :meth:`numpy.random.Generator.random`)."""
        n = 1 if size is None else int(np.prod(size))
        u = np.ldexp((self.words(n) >> _U64(11)).astype(np.float64), -53)
        return u[0] if size is None else u.reshape(size)

    # ------------------------------------------------------------------ exact samplers

    def _bernoulli_exp(self, num: np.ndarray, den: np.ndarray) -> np.ndarray:
        """Bernoulli(``exp(-num / den)``) for ``0 <= num <= den`` (CKS 2020, Algorithm 1).

        ``K <- 1``; while Bernoulli(``num / (den K)``) succeeds, ``K <- K + 1``;
        return ``K`` odd. Vectorised over the elements still in the loop.
        """
        num = np.asarray(num, dtype=_U64)
        den = np.asarray(den, dtype=_U64)
        k = np.ones(num.size, dtype=_U64)
        active = np.flatnonzero(num > 0)
        while active.size:
            # den K must fit 64 bits (K beyond 2^11 has probability below 1 / 2047!)
            if np.any(k[active] > (~_U64(0)) // den[active]):
                raise OverflowError("Bernoulli(exp(-x)): the loop count left 64 bits")
            hit = self.uniform_below(den[active] * k[active]) < num[active]
            active = active[hit]
            k[active] += _U64(1)
        return (k & _U64(1)).astype(bool)

    def discrete_laplace(self, scale, size: int) -> np.ndarray:
        """Exact discrete Laplace draws, ``P(Z = z) ~ exp(-|z| / scale)`` on the integers.

        Canonne, Kamath and Steinke (2020), Algorithm 2, vectorised: with
        ``scale = t / s`` (a fraction), ``X = U + t V`` is geometric with ratio
        ``exp(-1/t)`` (``U`` uniform on ``[0, t)`` kept with probability
        ``exp(-U/t)``, ``V`` geometric with ratio ``exp(-1)``), ``Y = floor(X / s)``
        and a fair sign, rejecting ``-0``.

        Parameters
        ----------
        scale : float or fractions.Fraction
            Positive; as a fraction ``t / s`` with ``t < 2^53`` (a float scale is
            exactly such a fraction once :func:`grid_exponent` has brought it into
            ``[2^30, 2^31)``).
        size : int

        Returns
        -------
        (size,) numpy.ndarray of int64
        """
        frac = Fraction(scale)
        if frac <= 0:
            raise ValueError(f"scale must be positive, got {scale!r}")
        t, s = frac.numerator, frac.denominator
        if t >= 1 << 53 or s >= 1 << 63:
            raise ValueError(f"scale {scale!r} has too many bits for the exact sampler")
        size = int(size)
        out = np.empty(size, dtype=np.int64)
        pending = np.arange(size)
        t64, s64 = _U64(t), _U64(s)
        while pending.size:
            m = pending.size
            u = self.uniform_below(t64, m)
            keep = self._bernoulli_exp(u, np.full(m, t64))
            idx, u = pending[keep], u[keep]
            retry = [pending[~keep]]
            # V: the number of Bernoulli(exp(-1)) successes before the first failure
            v = np.zeros(idx.size, dtype=_U64)
            active = np.arange(idx.size)
            while active.size:
                ones = np.ones(active.size, dtype=_U64)
                hit = self._bernoulli_exp(ones, ones)
                active = active[hit]
                v[active] += _U64(1)
            if v.size and int(v.max()) >= (1 << 63) // max(t, 1):
                raise OverflowError("discrete Laplace: geometric draw out of range")
            y = (u + t64 * v) // s64
            neg = self.bits(idx.size)
            ok = ~(neg & (y == 0))
            z = y[ok].astype(np.int64)
            out[idx[ok]] = np.where(neg[ok], -z, z)
            retry.append(idx[~ok])
            pending = np.concatenate(retry)
        return out

    def laplace(self, scale: float, size: int) -> np.ndarray:
        """Laplace(``scale``) noise on the grid ``2^k``, ``k = floor(log2 scale) - 30`` (float64).

        Each value is ``2^k Z`` with ``Z`` exact discrete Laplace of scale
        ``scale / 2^k`` (:meth:`discrete_laplace`); ``|Z| < 2^53``, so the values
        are exact floats.
        """
        k = grid_exponent(scale)
        z = self.discrete_laplace(Fraction(scale) / Fraction(2) ** k, size)
        return np.ldexp(z.astype(np.float64), k)

    def laplace_grid(
        self, scale: float, size: int, bits: int = GRID_BITS
    ) -> tuple[np.ndarray, int]:
        """Exact Laplace(``scale``) draws on the grid ``2^k``, ``k = floor(log2 scale) - bits``.

        Returns ``(z, k)``: the draws are exactly ``z * 2^k`` with ``z`` int64
        (:meth:`discrete_laplace` of scale ``scale / 2^k``). With ``bits`` above 22
        the values ``z 2^k`` need not be floats; the caller keeps the integers
        (:mod:`dprank.privacy._release_mle` does its sums with them).

        Parameters
        ----------
        scale : float
            Positive, finite.
        size : int
        bits : int
            From 0 to :data:`FINE_GRID_BITS` (the scale in grid units stays below 2^53).

        Raises
        ------
        OverflowError
            If a draw leaves int64 (``|z| >= 2^63``: probability below ``exp(-2^11)``).
        """
        _checks.count(bits, "bits")
        if bits > FINE_GRID_BITS:
            raise ValueError(f"bits must be at most {FINE_GRID_BITS}, got {bits}")
        k = grid_exponent(scale, bits)
        return self.discrete_laplace(Fraction(scale) / Fraction(2) ** k, size), k

    def gaussian_mechanism(self, values, scale: float) -> np.ndarray:
        """``values + N(0, scale^2)`` per value: OpenDP's exact mechanism on the values themselves.

        With the secure source, OpenDP's ``make_gaussian`` (floats, ``l2``
        distance) adds exact discrete Gaussian noise on a ``2^-1074`` grid to the
        exact values and rounds the sum once, so the output is a function of the
        exact noisy values (post-processing). A seeded source adds numpy's
        Gaussian (reproducible, not private).
        """
        x = np.asarray(values, dtype=np.float64)
        _checks.positive_finite(scale, "scale")
        if not np.all(np.isfinite(x)):
            raise ValueError("values must be finite")
        if self._gen is not None or x.size == 0:
            return x + self.normal(0.0, scale, x.shape) if x.size else x.copy()
        import opendp.prelude as dp

        dp.enable_features("contrib")
        domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
        meas = dp.m.make_gaussian(domain, dp.l2_distance(T=float), scale=float(scale))
        return np.asarray(meas(x.ravel().tolist()), dtype=np.float64).reshape(x.shape)

    def laplace_mechanism(
        self, values, sensitivity: float, epsilon: float, *, bound: float | None = None
    ) -> np.ndarray:
        """``values + Laplace(sensitivity / epsilon)``, exactly ``epsilon``-DP (module text).

        The noise lies on the grid ``2^k`` of :func:`value_grid_exponent`, never
        coarser than the integers, so integer counts and 0/1 outcomes always lie
        on it: whether a release succeeds never depends on the values (at
        extreme budgets a coarser grid would refuse odd counts and accept even
        ones). Every refusal depends on the public arguments only.

        Parameters
        ----------
        values : array_like of float
            On the noise grid (integer counts and 0/1 outcomes always are).
        sensitivity : float
            The declared ``l1`` sensitivity of ``values``; a multiple of the grid.
        epsilon : float
            Positive.
        bound : float, optional
            A public bound on ``|values|`` (the most comparisons an item can
            have, from public facts). Refused when it reaches ``2^53``
            (:data:`EXACT_INTEGER_LIMIT`): beyond it integers are not exact in
            float64 and one comparison more or less may not change the value
            at all, or change it by more than the sensitivity.

        Returns
        -------
        numpy.ndarray
            Same shape as ``values``.

        Raises
        ------
        ValueError
            A noise scale of ``2^40`` or more (an extreme ``epsilon``), a ``bound``
            of ``2^53`` or more, a sensitivity off the grid, or
            values off the grid or beyond ``bound`` (neither happens for
            integer values within their public bound).
        """
        x = np.asarray(values, dtype=np.float64)
        scale = laplace_scale(sensitivity, epsilon)
        k = value_grid_exponent(scale)
        if scale >= _MAX_VALUE_SCALE:
            raise ValueError(
                f"the noise scale sensitivity / epsilon = {scale:.6g} reaches 2^40: the exact "
                "sampler's draws would leave the integers a float64 holds exactly; give a "
                "larger epsilon (the release would be noise only anyway)"
            )
        if bound is not None and not _checks.non_negative(bound, "bound") < EXACT_INTEGER_LIMIT:
            raise ValueError(
                f"the values can reach {bound:.17g}, beyond 2^53 = {EXACT_INTEGER_LIMIT}, the "
                "largest whole number a float64 holds exactly: such counts cannot be released "
                "exactly (one comparison more or less may not move them at all)"
            )
        units = Fraction(sensitivity) / Fraction(2) ** k
        if units != int(units):
            raise ValueError(f"sensitivity {sensitivity} is not a multiple of the grid 2^{k}")
        if not np.all(np.ldexp(x, -k) == np.round(np.ldexp(x, -k))):
            raise ValueError(f"values must lie on the noise grid 2^{k} (integers do)")
        if bound is not None and x.size and float(np.max(np.abs(x))) > bound:
            raise ValueError(f"values exceed their declared bound {bound!r}")
        z = self.discrete_laplace(Fraction(scale) / Fraction(2) ** k, x.size)
        return x + np.ldexp(z.astype(np.float64), k).reshape(x.shape)

    def randomized_response(self, y, epsilon) -> np.ndarray:
        """Each bit of ``y`` flipped independently with probability ``~1 / (e^eps + 1)`` (exact).

        ``epsilon`` is a scalar or one value per bit; see :func:`rr_flip_threshold`.
        Returns uint8.
        """
        y = np.asarray(y)
        if y.size and not np.all((y == 0) | (y == 1)):
            raise ValueError("y must hold 0/1 outcomes")
        eps = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), y.shape).ravel()
        values, inverse = np.unique(eps, return_inverse=True)
        thresholds = np.array([rr_flip_threshold(e) for e in values], dtype=_U64)
        flip = self.words(y.size) < thresholds[inverse]
        return (y.ravel().astype(np.uint8) ^ flip.astype(np.uint8)).reshape(y.shape)

    def randomized_response3(self, codes, epsilon) -> np.ndarray:
        """Three-outcome randomized response (exact): each code in ``{0, 1, 2}`` kept, or moved
        to each of the two others with probability ``~1 / (e^eps + 2)`` (:func:`rr3_threshold`).

        ``epsilon`` is a scalar or one value per code. Returns int8 codes.
        """
        codes = np.asarray(codes)
        if codes.size and not np.all((codes == 0) | (codes == 1) | (codes == 2)):
            raise ValueError("codes must be 0, 1 or 2 (three outcomes)")
        eps = np.broadcast_to(np.asarray(epsilon, dtype=np.float64), codes.shape).ravel()
        values, inverse = np.unique(eps, return_inverse=True)
        thresholds = np.array([rr3_threshold(e) for e in values], dtype=_U64)[inverse]
        u = self.words(codes.size)
        shift = (u < thresholds).astype(np.int8) + (u < 2 * thresholds).astype(np.int8)
        # u < t: both comparisons hold (shift 2); t <= u < 2t: shift 1; else 0
        out = (codes.ravel().astype(np.int8) + shift) % 3
        return out.astype(np.int8).reshape(codes.shape)

    def normal(self, loc: float = 0.0, scale: float = 1.0, size: int | None = None) -> np.ndarray:
        """Gaussian noise: OpenDP's exact sampler (secure source) or the seeded generator's.

        The signature of :meth:`numpy.random.Generator.normal`, so that code written for a
        generator (:func:`dprank.fit.weighted_mle.noisy_obj_fit`) takes a noise source too.
        """
        n = 1 if size is None else int(np.prod(size))
        if self._gen is not None:
            draws = self._gen.normal(0.0, scale, size=n)
        elif scale == 0 or n == 0:
            draws = np.zeros(n)
        else:
            import opendp.prelude as dp

            dp.enable_features("contrib")
            domain = dp.vector_domain(dp.atom_domain(T=float, nan=False))
            meas = dp.m.make_gaussian(domain, dp.l2_distance(T=float), scale=float(scale))
            draws = np.asarray(meas([0.0] * n), dtype=np.float64)
        out = loc + draws
        return out[0] if size is None else out.reshape(size)


def as_noise_source(rng) -> NoiseSource:
    """``rng`` as a :class:`NoiseSource`: ``None`` -> the secure source; an int or Generator ->
    seeded (not private); a :class:`NoiseSource` as it is.

    Raises
    ------
    TypeError
        For anything else, naming ``rng``.
    """
    if rng is None:
        return NoiseSource.system()
    if isinstance(rng, NoiseSource):
        return rng
    if isinstance(rng, np.random.Generator) or (
        isinstance(rng, (int, np.integer)) and not isinstance(rng, (bool, np.bool_))
    ):
        return NoiseSource.from_seed(rng)
    raise TypeError(
        "rng must be None (the operating system's secure generator), an int or a "
        f"numpy.random.Generator (reproducible, not private), got {type(rng).__name__}"
    )
