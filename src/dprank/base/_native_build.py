"""What the package build compiles, in one place for ``setup.py`` and :mod:`dprank.base._compiled`.

No imports beyond the standard library: ``setup.py`` loads this file by its path
while building, before the package or its dependencies can be imported.
"""

from __future__ import annotations

from pathlib import Path

#: The C sources of the extension ``dprank._native``, in ``src/native/``.
SOURCES = ("loops.c", "reader.c", "records.c", "shortest.c", "module.c", "mapguard.c")
HEADERS = ("native.h",)
#: The header the build writes from Python's integers (:func:`pow5_table`) into its own
#: folder (:func:`write_generated`); no copy is kept with the sources.
GENERATED_HEADER = "pow5_table.h"

#: Compiler flags (GCC and Clang): IEEE arithmetic in the order written, so a fit
#: gives the same bits wherever it is built (no fast-math, no fused multiply-add).
FLAGS = ("-O2", "-fno-fast-math", "-ffp-contract=off", "-fvisibility=default")
#: The same for Microsoft's compiler (precise floating point, no contraction).
MSVC_FLAGS = ("/O2", "/fp:precise", "/fp:contract-")


def source_digest(folder: Path) -> str:
    """sha256 (hex) of the C sources in ``folder``, the generated header and the flags.

    The generated header counts by its text (:func:`pow5_table`), so a change of its
    generator makes a build stale as a change of the sources does.
    """
    import hashlib  # here only: its OpenSSL library takes milliseconds to load

    texts = [(name, (Path(folder) / name).read_bytes()) for name in (*SOURCES, *HEADERS)]
    texts.append((GENERATED_HEADER, pow5_table().encode()))
    digest = hashlib.sha256()
    for name, text in texts:
        digest.update(name.encode() + b"\0" + text + b"\0")
    digest.update(" ".join((*FLAGS, *MSVC_FLAGS)).encode())
    return digest.hexdigest()


def source_stamp(folder: Path) -> str:
    """The size and modification time (ns) of each C source in ``folder`` and of this file
    (which holds the flags and the generated header's generator), as one string.

    The build compiles it in beside :func:`source_digest`; where the files beside a source
    checkout still have the stamp the build saw, they are the files it compiled (an edit
    changes the time), and the digest need not be computed again. A file of another stamp
    (edited, copied, checked out, touched) is judged by its digest.
    """
    files = [Path(folder) / name for name in (*SOURCES, *HEADERS)] + [Path(__file__)]
    parts = []
    for path in files:
        st = path.stat()
        parts.append(f"{path.name}:{st.st_size}:{st.st_mtime_ns}")
    return ";".join(parts)


def write_generated(folder: Path) -> Path:
    """Write :data:`GENERATED_HEADER` into ``folder`` (made if missing) for the compiler.

    ``setup.py`` calls it with a folder of the build tree and puts that folder on the
    extension's include path. Returns the folder.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / GENERATED_HEADER).write_text(pow5_table())
    return folder


#: The 128-bit powers of five of ``shortest.c`` (the shortest round-trip digits of a
#: double, the method of Adams 2018, "Ryu: fast float-to-string conversion", PLDI): their
#: bits, and how many of each table the doubles need (``q`` up to 291 for binary
#: exponents >= 0, ``i`` up to 325 below).
POW5_BITS = 125
POW5_INV_COUNT = 292
POW5_COUNT = 326


def _pow5bits(e: int) -> int:
    """``ceil(log2(5^e))`` for ``e >= 1`` (1 for ``e = 0``), as ``shortest.c`` computes it."""
    return ((e * 1217359) >> 19) + 1


def pow5_table() -> str:
    """The text of ``pow5_table.h``, included by ``shortest.c``: exact, from Python's integers.

    ``POW5_INV[q] = floor(2^(pow5bits(q) - 1 + 125) / 5^q) + 1`` and ``POW5[i]`` = the
    top 125 bits of ``5^i``, each as two 64-bit words (low, high). The package build writes
    it (:func:`write_generated`); ``tests/test_compiled_format.py`` checks ``shortest.c``'s
    output against ``repr``.
    """
    mask = (1 << 64) - 1

    def rows(values):
        return "".join(f"    {{{v & mask}u, {v >> 64}u}},\n" for v in values)

    inv = [(1 << (_pow5bits(q) - 1 + POW5_BITS)) // 5**q + 1 for q in range(POW5_INV_COUNT)]
    direct = []
    for i in range(POW5_COUNT):
        p, bits = 5**i, (5**i).bit_length()
        direct.append(p << (POW5_BITS - bits) if bits < POW5_BITS else p >> (bits - POW5_BITS))
    return (
        "/* Written by the package build from dprank.base._native_build.pow5_table(): the\n"
        " * powers of five of shortest.c, 125 bits each as (low, high) 64-bit words. */\n"
        "#ifndef DPRANK_POW5_TABLE_H\n#define DPRANK_POW5_TABLE_H\n\n#include <stdint.h>\n\n"
        f"#define POW5_BITS {POW5_BITS}\n"
        f"#define POW5_INV_COUNT {POW5_INV_COUNT}\n#define POW5_COUNT {POW5_COUNT}\n\n"
        "/* floor(2^(pow5bits(q) - 1 + POW5_BITS) / 5^q) + 1 */\n"
        f"static const uint64_t POW5_INV[POW5_INV_COUNT][2] = {{\n{rows(inv)}}};\n\n"
        "/* the top POW5_BITS bits of 5^i */\n"
        f"static const uint64_t POW5[POW5_COUNT][2] = {{\n{rows(direct)}}};\n\n#endif\n"
    )
