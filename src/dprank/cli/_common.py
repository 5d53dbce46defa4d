"""What the subcommands of the ``dprank`` command share: the input, the noise, the records."""

from __future__ import annotations

import contextlib
import sys
from contextlib import contextmanager
from pathlib import Path

from .._version import __version__
from ._output import UsageError, to_stderr

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


def noise_source(args, name: str, domain: str):
    """The release's noise: the OS's secure generator, or ``--insecure-seed``'s stream."""
    from ..base.seeding import Stream, generator, stable_id
    from ..privacy.noise import NoiseSource

    if args.seed is not None:
        raise UsageError(
            "--seed is refused for a release: its noise would be a function of a guessable "
            "number. The noise comes from the operating system's secure generator; for "
            "reproducible noise that is NOT private (tests, teaching) use --insecure-seed S"
        )
    if args.insecure_seed is None:
        return NoiseSource.system()
    gen = generator(args.insecure_seed, domain, stable_id(name), 0, Stream.RELEASE)
    to_stderr(
        "warning: --insecure-seed: the noise is reproducible from the seed, so this output is "
        'NOT private (its record says "private": false)'
    )
    return NoiseSource.from_seed(gen)


def comparison_input(args):
    """The comparison input: its path, or standard input's bytes for ``-``."""
    return sys.stdin.buffer if args.comparisons == "-" else args.comparisons


def input_name(args) -> str:
    """The input's name in records: the file's name, or ``-`` for standard input."""
    return "-" if args.comparisons == "-" else Path(args.comparisons).name


@contextmanager
def option_names():
    """Library errors name the API's arguments (``top_k``); say the option (``--top-k``)."""
    try:
        yield
    except ValueError as exc:
        text = str(exc)
        for arg, option in (("top_k", "--top-k"), ("max_per_user", "--max-per-user")):
            text = text.replace(arg, option)
        raise UsageError(text) from None


def ledger_entry(args, command: str, mechanism: str, unit: str, private: bool, epsilon):
    """The ledger's record of this release (None without ``--ledger``)."""
    if args.budget is not None and args.ledger is None:
        raise UsageError("--budget needs --ledger FILE (the ledger holds the total so far)")
    if args.budget_unit is not None and args.budget is None:
        raise UsageError("--budget-unit needs --budget EPS")
    if args.ledger is None:
        return None
    if not private:
        raise UsageError("--ledger records private releases (--privacy edge or individual)")
    if args.ledger == "-":
        raise UsageError("--ledger needs a file name")
    bounds = {}
    if getattr(args, "max_per_user", None) is not None:
        bounds["max_per_user"] = args.max_per_user
    if epsilon is None:  # ranking a local release: no budget of its own
        return None
    from ..ledger import Release  # with --ledger only (its import: ~10 ms)

    return Release(command, mechanism, unit, float(epsilon), 0.0, bounds)


def audit_head(args, table) -> dict:
    """The first fields of an audit record: version, warning, seed and the input's facts."""
    return {
        "dprank_version": __version__,
        "warning": "private: facts about the input data; do not publish",
        "insecure_seed": args.insecure_seed,
        "input": {
            "file": input_name(args),
            "sha256": table.sha256,
            "layout": table.layout,
            "rows": table.n_rows,
        },
    }


def ledger_release(args, table, entry, budget_unit: str | None):
    """The ledger's ``with`` block of this release (:func:`dprank.ledger.release_to`): nothing
    to do without ``--ledger``."""
    if args.ledger is None and args.budget is None:
        return contextlib.nullcontext()  # what release_to gives: dprank.ledger is not imported
    from ..ledger import release_to

    return release_to(
        args.ledger,
        table,
        entry,
        budget=args.budget,
        name=input_name(args),
        budget_unit=budget_unit,
    )
