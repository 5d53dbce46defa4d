"""The ``dprank`` command: rank your own pairwise comparisons with differential privacy.

Subcommands (``dprank SUBCOMMAND --help`` for each):

* ``dprank rank FILE --privacy {edge,individual,local,none} --epsilon EPS``: a
  private ranking of the items of a comparison file (:func:`dprank.rank`);
* ``dprank privatize FILE --epsilon EPS --out released.csv``: each user's
  local-DP release (randomized response, Paper B), the input of
  ``rank --privacy local``;
* ``dprank datasets list`` / ``dprank datasets export NAME --out FILE.csv``: the
  registered real data sets in the input format;
* ``dprank methods``: every registered method;
* ``dprank ledger FILE``: the releases recorded with ``--ledger`` and the budget
  spent per data set (:mod:`dprank.ledger`).

Conventions: results go to the ``--out`` file (or standard output with
``--out -``), messages and progress to standard error; exit status 0 on success,
2 on a usage or input error (one message naming the file, line and column, and
no output file written), 1 on an output that cannot be written (a full disk, a
broken pipe, a closed standard output: one line naming it and the cause) or an
internal failure, 130 on SIGINT, 128 + the signal on SIGTERM and SIGHUP. Every
output is checked before any work (:class:`dprank.cli._output.OutputPlan`: a
regular file or absent, in a folder where a file can be created, never an input
or another output), written to a temporary name and renamed into place with the
others once all are complete, so a failed or interrupted run leaves every
existing file as it was.

Releases (``rank --privacy edge|individual|local``, ``privatize``) draw their
noise from the operating system's secure generator through exact samplers
(:mod:`dprank.privacy.noise`); ``--insecure-seed`` is the explicit opt-in to
reproducible, not private noise. The ranking file and its JSON record hold only
the release and public parameters; ``--audit-record`` writes the private facts
(input hash, counts, solver trace) to a file only its owner can read.
"""

from __future__ import annotations

import errno
import gc
import sys
from collections.abc import Sequence

from ..base import _checks
from ._common import EXIT_FAILURE, EXIT_USAGE
from ._output import (
    OutputError,
    Terminated,
    UsageError,
    signals_raise,
    silence_stdout,
    to_stderr,
    write_stdout,
)
from ._parser import HELP_FORMATTER, build_parser, parser_for

__all__ = ["HELP_FORMATTER", "build_parser", "main"]


def _usage_errors() -> tuple[type[BaseException], ...]:
    """The errors reported as usage errors: those of the modules the command has loaded.

    A module's errors are caught only where it is imported (only then can it have
    raised them), so ``rank`` does not import the data sets' registry for its
    ``DataError``.
    """
    errors: list[type[BaseException]] = [UsageError, ValueError, FileNotFoundError]
    for module, name in (
        ("dprank.methods", "MethodInputError"),
        ("dprank.data.datasets", "DataError"),
    ):
        loaded = sys.modules.get(module)
        if loaded is not None:
            errors.append(getattr(loaded, name))
    return tuple(errors)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return its exit status.

    The cyclic garbage collector is paused while the command runs (and restored after, for
    a caller in the same process): a run is one short-lived process whose data live in
    arrays freed by reference counting, and the collector's passes over the objects of the
    modules it imports cost a few percent of ``dprank rank`` on a file of millions of rows.
    The ``dprank`` script and ``python -m dprank`` pause it before the imports too
    (:func:`dprank.__main__.run`).
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        return _run(argv)
    finally:
        if was_enabled:
            gc.enable()


def _run(argv: Sequence[str] | None) -> int:
    if argv is not None:
        _checks.strings(argv, "argv")
    args = parser_for(sys.argv[1:] if argv is None else argv).parse_args(argv)
    try:
        with signals_raise():
            code = args.func(args)
            _flush_stdout()
        return code
    except OutputError as exc:
        to_stderr(f"error: {exc}")
        return EXIT_FAILURE
    except _usage_errors() as exc:
        to_stderr(f"error: {exc}")
        ledger = sys.modules.get("dprank.ledger")
        if ledger is not None and isinstance(exc, ledger.LedgerWriteError):
            return EXIT_FAILURE  # a full disk under the ledger, as under any output
        return EXIT_USAGE
    except (PermissionError, IsADirectoryError, NotADirectoryError, FileExistsError) as exc:
        to_stderr(f"error: cannot write {exc.filename or 'the output'}: {exc.strerror or exc}")
        return EXIT_USAGE
    except OSError as exc:
        if exc.errno not in _WRITE_FAILURES:
            return _internal_error()
        # a full disk, a broken pipe, a read-only file system under a record being written
        name = exc.filename
        if name is None and exc.errno == errno.EPIPE:
            name = "standard output"
            silence_stdout()
        to_stderr(f"error: cannot write {name or 'an output'}: {exc.strerror or exc}")
        return EXIT_FAILURE
    except KeyboardInterrupt:
        to_stderr("interrupted")
        return 130
    except Terminated as exc:
        to_stderr(f"terminated by {exc.name}")
        return 128 + exc.signum
    except ImportError as exc:
        compiled = sys.modules.get("dprank.base._compiled")
        if compiled is None or not isinstance(exc, compiled.NativeMissingError):
            return _internal_error()
        # a build that lacks or predates the compiled part: its message says how to rebuild
        to_stderr(f"error: {exc}")
        return EXIT_FAILURE
    except Exception:
        return _internal_error()


#: errno values of a write that failed for a reason outside the program (exit status 1)
_WRITE_FAILURES = {
    errno.ENOSPC,
    errno.EDQUOT,
    errno.EFBIG,
    errno.EPIPE,
    errno.EIO,
    errno.EROFS,
}


def _flush_stdout() -> None:
    """Flush what a command printed; a broken pipe or a full disk is an :class:`OutputError`."""
    if sys.stdout is not None:
        write_stdout("")


def _internal_error() -> int:
    import traceback  # only here: it loads linecache and tokenize

    to_stderr("internal error (please report it):")
    traceback.print_exc(file=sys.stderr)
    return EXIT_FAILURE
