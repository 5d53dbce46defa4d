"""``scipy``, imported on first use: ``from ._lazy_scipy import scipy``.

``import scipy`` costs 10-30 ms even though scipy loads its subpackages on first use;
the command's ``dprank rank`` calls none of them, so the modules on its path
(:mod:`dprank.data.models`, :mod:`dprank.fit.mle`, :mod:`dprank.privacy.ldp`, ...) refer to scipy
through this proxy: the first attribute read (``scipy.special``, ``scipy.linalg``)
imports scipy, every later one is a dictionary look-up and a ``getattr``.
"""

from __future__ import annotations

import importlib

__all__ = ["scipy"]


class _LazyModule:
    """A module imported when one of its attributes is first read."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attr: str):
        return getattr(importlib.import_module(self._name), attr)

    def __repr__(self) -> str:
        return f"<lazy module {self._name!r}>"


scipy = _LazyModule("scipy")
