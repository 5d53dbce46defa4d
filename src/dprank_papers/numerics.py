"""The same floating-point kernels on every x86-64 CPU with AVX2: the same bits everywhere.

OpenBLAS (built with ``DYNAMIC_ARCH``, as numpy's and scipy's wheels ship it) and numpy's
universal intrinsics pick their SIMD kernels by the CPU they load on. AVX-512 kernels add in
another order than AVX2 ones, so the same job gives other last bits on an AVX-512 CPU: on such
a machine most files of the smoke run differ between OpenBLAS's ``Haswell`` and ``SkylakeX``
kernels, and R's BFGS (:func:`dprank_papers.rbfgs.vmmin`), which stops early,
lands on another point. :func:`pinned_env` names the environment that makes both libraries use
their AVX2 (x86-64-v3) kernels wherever the CPU has them; the workflow sets it for every job
(``workflow/rules/common.smk``) and ``make test`` for the tests. It must be in the environment
before numpy is imported: the libraries read it once, as they load.

Run as ``python -m dprank_papers.numerics`` it prints the settings as ``NAME=value`` words for
``env`` (nothing where no pin applies).
"""

from __future__ import annotations

import os
import platform
from collections.abc import Mapping

__all__ = ["pinned_env"]

#: OpenBLAS's kernels for AVX2 and FMA (AMD's Zen cores use the same ones).
OPENBLAS_CORETYPE = "Haswell"


def pinned_env(environ=None) -> dict[str, str]:
    """Environment variables that pin OpenBLAS and numpy to their AVX2 kernels.

    Empty where no pin applies: a CPU other than x86-64, or one without AVX2 and FMA (the
    libraries' baseline kernels are then the same on every such CPU anyway). A variable
    already set in ``environ`` (``os.environ`` by default) is left out: the user's choice
    stands.

    Parameters
    ----------
    environ : Mapping, optional
        The environment the jobs start from (default ``os.environ``).

    Returns
    -------
    dict
        ``OPENBLAS_CORETYPE`` (:data:`OPENBLAS_CORETYPE`) and ``NPY_DISABLE_CPU_FEATURES``
        (numpy's dispatch targets above x86-64-v3: ``X86_V4`` and the ``AVX512_*`` ones).
    """
    environ = os.environ if environ is None else environ
    if not isinstance(environ, Mapping):
        raise TypeError(
            f"environ must be a mapping of names to values (os.environ), got {environ!r}"
        )
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return {}
    try:  # numpy's table of the CPU's features and of its build's dispatch targets
        from numpy._core._multiarray_umath import __cpu_dispatch__, __cpu_features__
    except ImportError:  # pragma: no cover - numpy < 2
        return {}
    if not (__cpu_features__.get("AVX2") and __cpu_features__.get("FMA3")):
        return {}
    above_v3 = [t for t in __cpu_dispatch__ if t == "X86_V4" or t.startswith("AVX512")]
    pins = {"OPENBLAS_CORETYPE": OPENBLAS_CORETYPE}
    if above_v3:
        pins["NPY_DISABLE_CPU_FEATURES"] = ",".join(above_v3)
    return {k: v for k, v in pins.items() if k not in environ}


def main() -> int:
    """Print :func:`pinned_env` as ``NAME=value`` words (for ``env $(...) command``)."""
    print(" ".join(f"{k}={v}" for k, v in pinned_env().items()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
