"""What the package build compiles, in one place for ``setup.py`` and :mod:`dprank.base._compiled`.

No imports beyond the standard library: ``setup.py`` loads this file by its path
while building, before the package or its dependencies can be imported.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

#: The C sources of the extension ``dprank._native``, in ``src/native/``.
SOURCES = ("loops.c", "reader.c", "module.c")
HEADERS = ("native.h",)

#: Compiler flags (GCC and Clang): IEEE arithmetic in the order written, so a fit
#: gives the same bits wherever it is built (no fast-math, no fused multiply-add).
FLAGS = ("-O2", "-fno-fast-math", "-ffp-contract=off", "-fvisibility=default")
#: The same for Microsoft's compiler (precise floating point, no contraction).
MSVC_FLAGS = ("/O2", "/fp:precise", "/fp:contract-")


def source_digest(folder: Path) -> str:
    """sha256 (hex) of the C sources in ``folder`` and the flags they are compiled with."""
    digest = hashlib.sha256()
    for name in (*SOURCES, *HEADERS):
        digest.update(name.encode() + b"\0" + (Path(folder) / name).read_bytes() + b"\0")
    digest.update(" ".join((*FLAGS, *MSVC_FLAGS)).encode())
    return digest.hexdigest()
