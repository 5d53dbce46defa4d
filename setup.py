"""The package build's compiled part: the extension ``dprank._native`` (``src/native/*.c``).

Everything else about the package is in ``pyproject.toml``. The extension holds
the sparse solver's loops and the comparison reader, plain C (no numpy headers)
loaded with ctypes by ``dprank.base._compiled``; it is built against the stable ABI
of Python 3.11, so one wheel serves every later Python of its platform.
"""

import importlib.util
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent
NATIVE = HERE / "src" / "native"
_spec = importlib.util.spec_from_file_location(
    "_native_build", HERE / "src/dprank/base/_native_build.py"
)
build = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build)


class BuildNative(build_ext):
    """The compiler's flags for IEEE arithmetic in the order written (``_native_build.FLAGS``),
    and the generated header (the powers of five of ``shortest.c``) written into the build
    tree, where the compiler finds it (``_native_build.write_generated``)."""

    def build_extensions(self):
        flags = build.MSVC_FLAGS if self.compiler.compiler_type == "msvc" else build.FLAGS
        generated = build.write_generated(Path(self.build_temp) / "generated")
        for ext in self.extensions:
            ext.extra_compile_args = list(flags)
            ext.include_dirs.append(str(generated))
        super().build_extensions()


class BuildPy(build_py):
    """The data set registry (``resources/datasets.yaml``) shipped inside the package as
    ``dprank/datasets.yaml``: an installed ``dprank datasets`` reads it there (a source tree,
    editable install included, reads its own ``resources/datasets.yaml``)."""

    def run(self):
        super().run()
        if not getattr(self, "editable_mode", False):
            target = Path(self.build_lib) / "dprank" / "datasets.yaml"
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(HERE / "resources" / "datasets.yaml", target)


setup(
    ext_modules=[
        Extension(
            "dprank._native",
            sources=[f"src/native/{name}" for name in build.SOURCES],
            # the generated header's generator: a change of it rebuilds the extension
            depends=[f"src/native/{name}" for name in build.HEADERS]
            + ["src/dprank/base/_native_build.py"],
            include_dirs=["src/native"],
            define_macros=[
                ("Py_LIMITED_API", "0x030B0000"),
                ("DPRANK_SOURCE_DIGEST", f'"{build.source_digest(NATIVE)}"'),
                ("DPRANK_SOURCE_STAMP", f'"{build.source_stamp(NATIVE)}"'),
            ],
            py_limited_api=True,
        )
    ],
    cmdclass={"build_ext": BuildNative, "build_py": BuildPy},
    options={"bdist_wheel": {"py_limited_api": "cp311"}},
)
