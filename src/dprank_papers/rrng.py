"""Emulation of R's default random number generator (Mersenne-Twister).

The Paper A authors' edge-DP code calls ``set.seed(13); runif(n)`` inside the
objective function, so its Laplace perturbation vector is the same in every
replication (docs/papers/paper-a.md#s0, item 1). The ``authors`` protocol
reproduces that vector bit for bit: R scrambles the seed with the linear
congruential map ``s <- 69069 s + 1`` (50 warm-up steps, then one step per
state word), fills the 624-word Mersenne-Twister state and scales the 32-bit
output by ``2.3283064365386963e-10``. numpy's :class:`~numpy.random.MT19937`
implements the same twister, so only the seeding is emulated here.
"""

from __future__ import annotations

import numpy as np

from dprank.base import checks as _checks

__all__ = ["r_fixed_laplace", "r_mt_state", "r_runif"]

_MT_N = 624
_R_UNIF_SCALE = 2.3283064365386963e-10  # 1 / 2^32, R's MT_genrand


def _seed(seed) -> None:
    if isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer)):
        raise TypeError(f"seed must be an integer (R's set.seed), got {seed!r}")


def r_mt_state(seed: int) -> np.ndarray:
    """The 624 Mersenne-Twister words R holds after ``set.seed(seed)``."""
    _seed(seed)
    s = int(seed) & 0xFFFFFFFF
    for _ in range(50):
        s = (69069 * s + 1) & 0xFFFFFFFF
    words = np.empty(_MT_N + 1, dtype=np.uint32)
    for j in range(_MT_N + 1):
        s = (69069 * s + 1) & 0xFFFFFFFF
        words[j] = s
    # word 0 is R's position counter (reset to 624 by FixupSeeds), the rest the state
    return words[1:]


def r_runif(n: int, seed: int) -> np.ndarray:
    """``set.seed(seed); runif(n)`` exactly as R 4.x computes it."""
    _checks.count(n, "n")
    _seed(seed)
    bitgen = np.random.MT19937()
    bitgen.state = {
        "bit_generator": "MT19937",
        "state": {"key": r_mt_state(seed), "pos": _MT_N},
    }
    u = bitgen.random_raw(int(n)).astype(np.float64) * _R_UNIF_SCALE
    # R's fixup() keeps draws strictly inside (0, 1)
    return np.clip(u, 0.5 * _R_UNIF_SCALE, 1.0 - 0.5 * _R_UNIF_SCALE)


def r_fixed_laplace(n: int, seed: int = 13) -> np.ndarray:
    """The authors' fixed standard-Laplace vector ``sign(u - 1/2) log(1 - 2|u - 1/2|)``.

    This is the inverse-CDF transform of ``u = runif(n)`` right after
    ``set.seed(seed)`` used in the authors' ``Helper-Script.R``; its prefix of
    length ``n`` is the perturbation direction of Algorithm 1 for every
    replication and every epsilon at that ``n``.
    """
    _checks.count(n, "n")
    _seed(seed)
    u = r_runif(n, seed)
    c = u - 0.5
    return np.sign(c) * np.log(1.0 - 2.0 * np.abs(c))
