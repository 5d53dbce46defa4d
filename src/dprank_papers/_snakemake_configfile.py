"""One clean line, not a traceback, for a ``--configfile`` that does not exist.

Snakemake 9 (9.27.1 and earlier 9.x) loads the files of ``--configfile`` while it parses its
command line, before it reads the Snakefile, in
``snakemake.common.configfile._load_configfile``. That function opens the file *outside* the
``try`` whose ``except FileNotFoundError`` turns a missing file into Snakemake's own
``WorkflowError("Config file ... not found.")``, so a mistyped path prints a 20-line Python
traceback. No hook of the workflow runs that early, so ``make setup`` installs a one-line
``.pth`` file in the project's virtual environment
(``python -m dprank_papers._snakemake_configfile`` writes it) that registers
:class:`_Finder`: when, and only when, a process imports
``snakemake.common.configfile``, its ``_load_configfile`` is wrapped so that a path that is not
an existing file reaches that ``except`` (see :class:`_Missing`), and Snakemake prints its own
one-line message, ``Config file nope.yaml not found.``
Everything else (JSON and YAML parsing, Snakemake's other messages) is Snakemake's own code,
unchanged; other processes of the environment only pay for registering the finder.
``tests/test_workflow.py::test_nested_config_overrides_are_typed_and_a_missing_configfile_is_named``
runs Snakemake with a missing file and checks the line. Remove this module and its ``.pth``
line once Snakemake opens the file inside its ``try``.
"""

from __future__ import annotations

import errno
import importlib.machinery
import os
import sys

# Every process of the environment runs this module (the .pth line): it imports only what
# the interpreter has loaded already (importlib.abc alone would add tens of milliseconds to
# every start-up, through importlib.resources); the finder and the loader are plain classes
# with the methods the import system calls.

#: The Snakemake module whose loader is wrapped.
TARGET = "snakemake.common.configfile"
#: Name of the file written into the environment's site-packages by :func:`install`.
PTH_NAME = "dprank-snakemake-configfile.pth"
#: The .pth line: loads this file by its path under a private name, without importing the
#: ``dprank`` package (which would pin it to this checkout in every process of the
#: environment, before a workflow puts its own ``src`` first on the path).
PTH_LINE = (
    "import importlib.util as _u; _s = _u.spec_from_file_location('_dprank_snakemake_configfile', "
    "{path!r}); _m = _u.module_from_spec(_s); _s.loader.exec_module(_m); _m.register()\n"
)


class _Missing:
    """A path that is not an existing file, handed to Snakemake instead of the path itself.

    Snakemake's ``_load_configfile`` enters it inside its ``try``, where the
    ``FileNotFoundError`` raised here becomes Snakemake's own
    ``WorkflowError("Config file <path> not found.")``, which Snakemake prints as one line
    (its traceback lies in Snakemake's code, which Snakemake leaves out of the message).
    """

    def __init__(self, path: str):
        self.path = path

    def __str__(self) -> str:
        return self.path

    def __enter__(self):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), self.path)

    def __exit__(self, *exc) -> bool:
        return False


def _checked(original):
    """``original`` (Snakemake's loader), given :class:`_Missing` for a missing path."""

    def _load_configfile(configpath_or_obj, filetype="Config"):
        if isinstance(configpath_or_obj, (str, os.PathLike)) and not os.path.isfile(
            configpath_or_obj
        ):
            configpath_or_obj = _Missing(os.fspath(configpath_or_obj))
        return original(configpath_or_obj, filetype)

    _load_configfile.__wrapped__ = original
    _load_configfile.__doc__ = original.__doc__
    return _load_configfile


def patch(module) -> None:
    """Wrap ``module._load_configfile`` (``module``: :data:`TARGET`); idempotent."""
    original = module._load_configfile
    if getattr(original, "__wrapped__", None) is not None:
        return
    module._load_configfile = _checked(original)


class _Loader:
    """Snakemake's own loader of :data:`TARGET`, then :func:`patch` on the executed module."""

    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        patch(module)


class _Finder:
    """Finds :data:`TARGET` with the other finders and wraps its loader in :class:`_Loader`."""

    def find_spec(self, fullname, path, target=None):
        if fullname != TARGET:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path, target)
        if spec is None or spec.loader is None:
            return None
        spec.loader = _Loader(spec.loader)
        return spec


def register() -> None:
    """Put :class:`_Finder` first on ``sys.meta_path`` (once); patch :data:`TARGET` if imported."""
    if not any(isinstance(f, _Finder) for f in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
    module = sys.modules.get(TARGET)
    if module is not None:
        patch(module)


def install(site_packages: str | os.PathLike | None = None):
    """Write :data:`PTH_NAME` into ``site_packages`` (default: this environment's ``purelib``);
    its path (a :class:`pathlib.Path`)."""
    import sysconfig
    from pathlib import Path

    folder = Path(site_packages or sysconfig.get_paths()["purelib"])
    path = folder / PTH_NAME
    path.write_text(PTH_LINE.format(path=str(Path(__file__).resolve())), encoding="utf-8")
    return path


if __name__ == "__main__":  # pragma: no cover - run by `make setup`
    print(f"installed {install()}")
