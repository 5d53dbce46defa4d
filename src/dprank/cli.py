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
output is checked before any work (:class:`dprank._cli_output.OutputPlan`: a
regular file or absent, in a folder where a file can be created, never an input
or another output), written to a temporary name and renamed into place with the
others once all are complete, so a failed or interrupted run leaves every
existing file as it was.

Releases (``rank --privacy edge|individual|local``, ``privatize``) draw their
noise from the operating system's secure generator through exact samplers
(:mod:`dprank.noise`); ``--insecure-seed`` is the explicit opt-in to
reproducible, not private noise. The ranking file and its JSON record hold only
the release and public parameters; ``--audit-record`` writes the private facts
(input hash, counts, solver trace) to a file only its owner can read.
"""

from __future__ import annotations

import argparse
import errno
import math
import os
import re
import sys
import tempfile
import traceback
import warnings
from collections.abc import Sequence
from contextlib import ExitStack, contextmanager
from pathlib import Path

import numpy as np

from . import __version__, _checks
from ._cli_output import (
    PROG,
    OutputError,
    OutputPlan,
    Terminated,
    UsageError,
    _csv_writer,
    _json_writer,
    _plain,
    _plot_writer,
    _Private,
    _Progress,
    _signals_raise,
    _silence_stdout,
    _stderr,
    _text_writer,
    _write_stdout,
)
from ._input_stream import FORMATS as INPUT_FORMATS

__all__ = ["main"]

EXIT_OK, EXIT_FAILURE, EXIT_USAGE = 0, 1, 2


# --------------------------------------------------------------------------- argument types


def _positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}") from None
    if not value > 0 or math.isinf(value) or math.isnan(value):
        raise argparse.ArgumentTypeError(f"must be a positive finite number, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return value


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be a non-negative integer, got {text!r}")
    return value


def _noise_source(args, name: str, domain: str):
    """The release's noise: the OS's secure generator, or ``--insecure-seed``'s stream."""
    from .noise import NoiseSource
    from .seeding import Stream, generator, stable_id

    if args.seed is not None:
        raise UsageError(
            "--seed is refused for a release: its noise would be a function of a guessable "
            "number. The noise comes from the operating system's secure generator; for "
            "reproducible noise that is NOT private (tests, teaching) use --insecure-seed S"
        )
    if args.insecure_seed is None:
        return NoiseSource.system()
    gen = generator(args.insecure_seed, domain, stable_id(name), 0, Stream.RELEASE)
    _stderr(
        "warning: --insecure-seed: the noise is reproducible from the seed, so this output is "
        'NOT private (its record says "private": false)'
    )
    return NoiseSource.from_seed(gen)


# --------------------------------------------------------------------------- input


def _input(args):
    """The comparison input: its path, or standard input's bytes for ``-``."""
    return sys.stdin.buffer if args.comparisons == "-" else args.comparisons


def _input_name(args) -> str:
    """The input's name in records: the file's name, or ``-`` for standard input."""
    return "-" if args.comparisons == "-" else Path(args.comparisons).name


def _add_input_arguments(p: argparse.ArgumentParser, help_text: str) -> None:
    """The comparison input (a path or ``-``) and ``--format``."""
    p.add_argument("comparisons", metavar="COMPARISONS.csv", help=help_text)
    p.add_argument(
        "--format",
        choices=INPUT_FORMATS,
        help="the input's format where it cannot be told from its name or first bytes "
        "(standard input, a pipe); by default Parquet by its magic bytes, else by the suffix "
        "(.csv .tsv .parquet .jsonl), else JSON lines if it starts with '{', else CSV or TSV",
    )


# --------------------------------------------------------------------------- rank


def _sidecar_path(args) -> str | None:
    if args.sidecar is not None:
        return args.sidecar
    if args.out == "-":
        return None
    return os.fspath(Path(args.out).with_suffix(".json"))


def _cmd_rank(args) -> int:
    from ._cli_release import check_stream_record, declared_items, local_source

    name, method = _rank_method(args)
    sidecar = _sidecar_path(args)
    plan = OutputPlan(
        {
            "COMPARISONS": args.comparisons,
            **({"--items": args.items} if args.items else {}),
            **({"--input-record": args.input_record} if args.input_record else {}),
        },
        {
            "--out": args.out,
            "--sidecar": sidecar,
            "--plot": args.plot,
            "--html": args.html,
            "--audit-record": _Private(args.audit_record),
            "--ledger": args.ledger,
        },
        external=("--ledger",),
    )
    noise = _noise_source(args, name, "dprank.rank")
    # public facts before the data: where a local release's guarantee comes from, the items
    args.local_source, record_items = local_source(args)
    args.universe = declared_items(args, args.privacy, record_items)
    progress = _Progress(3, args.quiet)
    try:
        table = _read_rank_input(args, method, name, progress)
        check_stream_record(args, table)
        receipt = _release_ranking(args, table, method, name, noise, plan, progress)
    finally:
        progress.close()
    if receipt is not None and not args.quiet:
        _stderr(f"ledger {args.ledger}: {receipt.describe()}")
    if args.method is None and not args.quiet:  # after the release: a failure says one thing
        _stderr(_default_method_note(args.privacy, method, args.model))
    return EXIT_OK


def _rank_method(args):
    """``(name, method)``: the registered method that ``rank``'s options ask for, once checked."""
    from .api import method_name
    from .methods import get_method

    if args.privacy in ("edge", "individual") and args.epsilon is None:
        raise UsageError(f"--privacy {args.privacy} needs --epsilon")
    if args.privacy == "local" and args.epsilon is not None:
        raise UsageError(
            "--epsilon is not used with --privacy local: the users' budgets are in the "
            "file's epsilon column"
        )
    if args.as_published and not (args.privacy == "individual" and args.method == "counts"):
        raise UsageError("--as-published applies only to --privacy individual --method counts")
    if args.privacy == "individual" and args.max_per_user is None:
        raise UsageError(
            "--privacy individual needs --max-per-user L: the declared, public bound on the "
            "comparisons of one user (the noise is calibrated to it; a user with more keeps L "
            "of them, chosen at random)"
        )
    if args.max_per_user is not None and args.privacy != "individual":
        raise UsageError("--max-per-user applies only to --privacy individual")
    try:
        name = method_name(
            args.privacy, args.method, as_published=args.as_published, model=args.model
        )
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    method = get_method(name)
    if args.plot is not None and args.plot == "-":
        raise UsageError("--plot needs a file name")
    _check_leaderboard_options(args)
    if args.audit_record == "-":
        raise UsageError("--audit-record needs a file name (it is written with mode 0600)")
    _check_interval_options(args, method, name)
    return name, method


def _default_method_note(privacy: str, method, model: str = "btl") -> str:
    """What ``rank`` says when ``--method`` was not given: the method, why, and the others.

    A function of the options alone (nothing of the data), written once the release is out.
    """
    from .api import PRIVACY
    from .methods import all_methods
    from .objective import TIE_MODELS

    prefix = PRIVACY[privacy] + "_"
    short = method.name.removeprefix(prefix)
    if model in TIE_MODELS:
        return (
            f"method {short} ({method.label}), the default of --privacy {privacy} with "
            f"--model {model} (a three-outcome release; docs/leaderboard.md)"
        )
    others = [m.name.removeprefix(prefix) for m in all_methods() if m.name.startswith(prefix)]
    others = [o for o in others if o != short and not o.endswith("_as_published")]
    return (
        f"method {short} ({method.label}), the default of --privacy {privacy}: the best of "
        f"its level on the benchmark of methods (docs/cli.md); others: --method "
        f"{', '.join(others)}"
    )


def _check_leaderboard_options(args) -> None:
    """``--scale``, ``--anchor`` and ``--html`` (which computes intervals at 0.95 by default)."""
    if args.html is not None:
        if args.html == "-":
            raise UsageError("--html needs a file name")
        if args.intervals is None:
            args.intervals = 0.95
    if args.anchor is not None:
        if args.scale != "elo":
            raise UsageError("--anchor MODEL=VALUE applies to --scale elo")
        model, sep, value = args.anchor.rpartition("=")
        try:
            number = float(value)
        except ValueError:
            number = math.nan
        if not sep or not model or not math.isfinite(number):
            raise UsageError(
                f"--anchor must be MODEL=VALUE (e.g. gpt-4-0613=1000), got {args.anchor!r}"
            )
        args.anchor = (model, number)


def _check_interval_options(args, method, name: str) -> None:
    """``--intervals`` and its companions, checked before any data is read."""
    if args.intervals is None:
        for flag, given in (
            ("--intervals-joint", args.intervals_joint),
            ("--intervals-method", args.intervals_method != "auto"),
            ("--min-per-user", args.min_per_user is not None),
        ):
            if given:
                raise UsageError(f"{flag} needs --intervals LEVEL")
        return
    from .intervals import NO_INTERVALS, TIES_METHODS, supports

    if not 0 < args.intervals < 1:
        raise UsageError(f"--intervals must lie strictly between 0 and 1, got {args.intervals}")
    if not supports(method):
        raise UsageError(f"--intervals: method {name} has no intervals: {NO_INTERVALS[name]}")
    if name in TIES_METHODS:
        for flag, given in (
            ("--intervals-joint", args.intervals_joint),
            ("--intervals-method asymptotic", args.intervals_method == "asymptotic"),
            ("--min-per-user", args.min_per_user is not None),
        ):
            if given:
                raise UsageError(
                    f"{flag} does not apply to method {name}: its intervals are the marginal "
                    "parametric bootstrap of its release (docs/leaderboard.md)"
                )
    if args.min_per_user is not None:
        if args.privacy != "individual":
            raise UsageError("--min-per-user applies only to --privacy individual")
        if args.min_per_user > args.max_per_user:
            raise UsageError(
                f"--min-per-user {args.min_per_user} exceeds --max-per-user {args.max_per_user}"
            )


def _read_rank_input(args, method, name: str, progress: _Progress):
    """The first stage: the comparison file, read and validated for ``method``."""
    from .inputs import _free_memory_promptly, read_comparisons

    progress.stage("reading")
    if args.low_memory:
        _free_memory_promptly()
    table = read_comparisons(
        _input(args),
        need_users=method.needs_users,
        need_epsilon=method.trust_model == "local",
        real_outcomes=name == "local_laplace",
        format=args.format,
        both_bad=args.both_bad,
        # the input's sha256 goes to the audit record and is checked against a streamed
        # release's record; else it is not computed
        sha256=args.audit_record is not None or getattr(args, "expected_sha256", None) is not None,
    )
    progress.done()
    return table


def _release_ranking(args, table, method, name: str, noise, plan: OutputPlan, progress: _Progress):
    """The fit and the outputs, as one release of the ``--ledger``; its receipt (or None)."""
    from dataclasses import replace

    from .ledger import release_to

    # the guarantee actually given (the method's privacy map: 2 eps for the as-published
    # counts); its delta is the ranking's, once the item universe is known
    loss = None
    if args.epsilon is not None:
        declared = {"L": args.max_per_user, "n_items": table.comparisons.n_items}
        loss = method.privacy_loss(args.epsilon, **declared)
    unit = method.privacy_unit if loss is None else loss.unit
    eps_given = None if loss is None else loss.epsilon
    entry = _ledger_entry(args, "rank", method.name, unit, method.private, eps_given)
    if entry is not None and method.trust_model == "local":
        raise UsageError(
            "--ledger records releases of raw data: ranking a local release spends no "
            "budget (record the budget where the data were privatized)"
        )
    with release_to(
        args.ledger,
        table,
        entry,
        budget=args.budget,
        name=_input_name(args),
        budget_unit=args.budget_unit,
    ) as receipt:
        progress.stage("fitting")
        ranking = _fit_ranking(args, table, noise)
        progress.done()
        frame = ranking.columns()  # written without pandas
        if args.intervals is not None:
            progress.stage("intervals")
            frame = _with_intervals(args, ranking, ranking.to_frame(), name)
        frame = _leaderboard(args, ranking, frame)
        progress.stage("writing")
        if receipt is not None:
            receipt.entry = replace(receipt.entry, delta=ranking.delta)
        # the ledger's record is written and fsync'ed before any output becomes visible
        plan.write(
            _rank_outputs(args, table, ranking, frame, _sidecar_path(args), method),
            before_commit=None if receipt is None else receipt.commit,
        )
    progress.done()
    return receipt


def _fit_ranking(args, table, noise):
    """:func:`dprank.rank` of the table with ``rank``'s options.

    Its warnings go to standard error where they depend on public facts only,
    else (a private release) to the audit record (``args.private_warnings``).
    """
    from ._cli_release import route_warnings
    from .api import rank

    with warnings.catch_warnings(record=True) as caught, _option_names():
        warnings.simplefilter("always")
        ranking = rank(
            table.comparisons,
            privacy=args.privacy,
            epsilon=args.epsilon,
            method=args.method,
            model=args.model,
            top_k=args.top_k,
            rng=noise,
            max_per_user=args.max_per_user,
            as_published=args.as_published,
            items=args.universe,
            items_from_data=args.items_from_data,
            local_source=args.local_source,
        )
    public, args.private_warnings = route_warnings(caught, args.privacy)
    for text in public:
        _stderr(f"warning: {text}")
    return ranking


@contextmanager
def _option_names():
    """Library errors name the API's arguments (``top_k``); say the option (``--top-k``)."""
    try:
        yield
    except ValueError as exc:
        text = str(exc)
        for arg, option in (("top_k", "--top-k"), ("max_per_user", "--max-per-user")):
            text = text.replace(arg, option)
        raise UsageError(text) from None


def _ledger_entry(args, command: str, mechanism: str, unit: str, private: bool, epsilon):
    """The ledger's record of this release (None without ``--ledger``)."""
    from .ledger import Release

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
    return Release(command, mechanism, unit, float(epsilon), 0.0, bounds)


def _with_intervals(args, ranking, frame, name: str):
    """``frame`` with the intervals of ``--intervals`` (post-processing: no privacy spent).

    The bootstrap's randomness is fresh entropy, or ``--insecure-seed``'s stream.
    Items the release does not locate (``informative`` False) get empty interval
    cells, and standard error says how many and why. The ties methods' intervals
    (:func:`dprank.private_ties.ties_intervals`) locate every item and leave the tie
    classes to the leaderboard (:func:`_leaderboard`).
    """
    from .seeding import Stream, generator, stable_id

    if args.insecure_seed is None:
        rng = np.random.default_rng()
    else:
        rng = generator(args.insecure_seed, "dprank.rank", stable_id(name), 0, Stream.BOOTSTRAP)
    iv = ranking.intervals(
        args.intervals,
        rng=rng,
        kind=args.intervals_method,
        joint=args.intervals_joint,
        min_per_user=args.min_per_user,
    )
    if "informative" not in iv.columns:  # the ties methods' bootstrap, centred on the score
        return frame.merge(iv.drop(columns="estimate"), on="item", how="left")
    vague = ~iv["informative"].to_numpy()
    for column in ("score_lo", "score_hi", "rank_lo", "rank_hi"):
        iv[column] = iv[column].astype("float64").where(~vague)
    iv[["rank_lo", "rank_hi"]] = iv[["rank_lo", "rank_hi"]].astype("Int64")
    args.intervals_summary = {
        "kind": iv.attrs["kind"],
        "items_not_located": int(vague.sum()),
        "tie_classes": int(iv["tie_class"].max()),
    }
    n = len(iv)
    if vague.all():
        _stderr(
            f"note: --intervals {args.intervals:g}: the release does not locate any of the {n} "
            "items (each rank interval spans at least 90% of the places): the privacy noise "
            "outweighs what the comparisons resolve; the interval cells are left empty "
            "(a larger epsilon or more comparisons per item would help)"
        )
    elif vague.any():
        _stderr(
            f"note: --intervals {args.intervals:g}: {int(vague.sum())} of {n} items are not "
            "located by the release (rank interval over at least 90% of the places); their "
            "interval cells are left empty"
        )
    iv = iv.drop(columns="informative")
    return frame.merge(iv, on="item", how="left")


def _audit_head(args, table) -> dict:
    """The first fields of an audit record: version, warning, seed and the input's facts."""
    return {
        "dprank_version": __version__,
        "warning": "private: facts about the input data; do not publish",
        "insecure_seed": args.insecure_seed,
        "input": {
            "file": _input_name(args),
            "sha256": table.sha256,
            "layout": table.layout,
            "rows": table.n_rows,
        },
    }


def _leaderboard(args, ranking, frame):
    """The leaderboard's columns (:mod:`dprank.leaderboard`): the ``--scale``, and with
    intervals the rank upper bound, the tie class and the released vote counts."""
    if args.scale == "logit" and args.intervals is None:
        return frame
    from .leaderboard import leaderboard_columns  # only where used (its import: ~10 ms)

    nullable = []  # the intervals' integer columns with empty cells (pandas' Int64)
    if not isinstance(frame, dict):
        nullable = [k for k in frame.columns if str(frame[k].dtype) == "Int64"]
        frame = {
            k: frame[k].to_numpy(dtype="float64", na_value=np.nan)
            if k in nullable
            else frame[k].to_numpy()
            for k in frame.columns
        }
    if "score" not in frame:
        return frame  # the one-shot release: labels of its top k only
    release = getattr(ranking.fit, "release", None)
    votes = None
    if release is not None and hasattr(release, "votes") and args.intervals is not None:
        votes = dict(zip(ranking.items.tolist(), release.votes.tolist(), strict=True))
    try:
        out = leaderboard_columns(frame, scale=args.scale, anchor=args.anchor, votes=votes)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if not nullable:
        return out
    import pandas as pd

    table = pd.DataFrame(out)
    for k in nullable:
        table[k] = table[k].astype("Int64")
    return table


def _rank_outputs(args, table, ranking, frame, sidecar, method) -> list:
    """The ranking CSV, its public record, the plot, the HTML page and the private audit
    record."""
    record = {"dprank_version": __version__, **ranking.record()}
    if args.intervals is not None:
        from .intervals import TIES_METHODS

        summary = getattr(args, "intervals_summary", {})
        columns = (
            "score_lo, score_hi: bounds of the model's centred parameter around {centre}; "
            "rank_lo, rank_hi; rank_ub: 1 + the items whose interval lies wholly above "
            "(dprank.leaderboard)"
        )
        if method.name in TIES_METHODS:
            record["intervals"] = {
                "level": args.intervals,
                "joint": False,
                "method": "dprank.private_ties.ties_intervals, parametric bootstrap, 200 draws",
                "centre": "score: the model's parameter fitted to the release",
                "columns": columns.format(centre="score"),
                "tie_class": "a tie class groups models the release cannot order against the "
                "class's first model (dprank.leaderboard)",
            }
        else:
            record["intervals"] = {
                "level": args.intervals,
                "joint": bool(args.intervals_joint),
                "method": f"dprank.intervals, {summary.get('kind', args.intervals_method)}",
                "centre": "estimate: the model's parameter estimated from the release, centred "
                "to mean 0 (score is the release itself)",
                "columns": columns.format(centre="estimate")
                + "; empty cells: the release does not locate the item",
                "tie_class": "a tie class groups the items whose places the simultaneous rank "
                "intervals cannot split (dprank.intervals)",
                **{k: v for k, v in summary.items() if k != "kind"},
            }
            if args.min_per_user is not None:
                record["intervals"]["min_per_user"] = args.min_per_user
    if args.scale != "logit":
        anchor = None if args.anchor is None else {"model": args.anchor[0], "value": args.anchor[1]}
        record["scale"] = {"name": args.scale, "points_per_logit": "400 / ln(10)", "anchor": anchor}
    outputs = [
        (args.out, _csv_writer(frame)),
        (sidecar, _json_writer(_plain(record))),
    ]
    if args.plot is not None:
        outputs.append((args.plot, _plot_writer(ranking, args.plot)))
    if args.html is not None:
        outputs.append((args.html, _html_writer(frame, record, args)))
    if args.audit_record is not None:
        audit = {
            **_audit_head(args, table),
            **ranking.audit_record(),
            "warnings": getattr(args, "private_warnings", []),
        }
        if method.trust_model == "local":
            eps_user = np.asarray(table.comparisons.user_epsilon)
            audit["user_epsilon"] = {"min": eps_user.min(), "max": eps_user.max()}
        outputs.append((_Private(args.audit_record), _json_writer(_plain(audit))))
    return outputs


def _html_writer(frame, record, args):
    """The self-contained leaderboard page (:func:`dprank.leaderboard.html_page`)."""
    from .leaderboard import html_page

    name = _input_name(args)
    title = f"Leaderboard: {'standard input' if name == '-' else name}"
    if not isinstance(frame, dict):  # empty interval cells: NaN for the page
        frame = {
            k: frame[k].to_numpy(dtype="float64", na_value=np.nan)
            if str(frame[k].dtype) == "Int64"
            else frame[k].to_numpy()
            for k in frame.columns
        }
    return _text_writer(
        html_page(frame, {**record, "intervals_level": args.intervals}, title=title)
    )


# --------------------------------------------------------------------------- privatize


def _cmd_privatize(args) -> int:
    from ._cli_release import declared_items
    from .inputs import _free_memory_promptly, read_comparisons
    from .ledger import release_to

    if (args.epsilon is None) == (args.user_epsilon_column is None):
        raise UsageError("give exactly one of --epsilon and --user-epsilon-column")
    record = _privatize_record_path(args)
    if args.audit_record == "-":
        raise UsageError("--audit-record needs a file name (it is written with mode 0600)")
    plan = OutputPlan(
        {"COMPARISONS": args.comparisons, **({"--items": args.items} if args.items else {})},
        {
            "--out": args.out,
            "--record": record,
            "--audit-record": _Private(args.audit_record),
            "--ledger": args.ledger,
        },
        external=("--ledger",),
    )
    noise = _noise_source(args, args.mechanism, "dprank.privatize")
    universe = declared_items(args, "privatize")
    if args.low_memory:
        _free_memory_promptly()
    table = read_comparisons(
        _input(args),
        need_users=True,
        need_epsilon=args.user_epsilon_column is not None,
        epsilon_column=args.user_epsilon_column or "epsilon",
        format=args.format,
        both_bad=args.both_bad,
        sha256=args.audit_record is not None,  # the audit record's; else not computed
    )
    c, facts = _privatize_input(args, table, universe, noise)
    eps_user = np.full(c.n_users, args.epsilon) if args.epsilon is not None else c.user_epsilon
    # votes with ties (an arena file, three outcomes declared by its form): randomized
    # response over the three outcomes, recorded as such
    args.released_mechanism = _privatize_mechanism(args, c)
    entry = _ledger_entry(
        args, "privatize", args.released_mechanism, "comparison", True, np.max(eps_user)
    )
    # a user-level budget by default where the users' bound is declared (L eps per user)
    unit = args.budget_unit or ("user" if args.max_per_user is not None else None)
    with release_to(
        args.ledger,
        table,
        entry,
        budget=args.budget,
        name=_input_name(args),
        budget_unit=unit,
    ) as receipt:
        outputs = _privatize_outputs(args, table, c, eps_user, noise, universe, record, facts)
        # the ledger's record is written and fsync'ed before any output becomes visible
        plan.write(outputs, before_commit=None if receipt is None else receipt.commit)
    if receipt is not None and not args.quiet:
        _stderr(f"ledger {args.ledger}: {receipt.describe()}")
    if args.out != "-" and not args.quiet:
        _stderr(
            f"released ({args.released_mechanism}) to {args.out}"
            + (f", its record {record}" if record else "")
            + "; each comparison's outcome is eps-LDP with its user's budget"
            + ("" if noise.secure else " only if the seed stays secret (--insecure-seed)")
        )
    return EXIT_OK


def _privatize_mechanism(args, c) -> str:
    """The mechanism ``privatize`` applies: ``--mechanism``, or ``rr3`` for votes with ties."""
    if not c.ties:
        return args.mechanism
    if args.mechanism == "laplace":
        raise UsageError(
            "--mechanism laplace releases two outcomes; an arena file's votes have three (win, "
            "tie, loss) and are released by three-outcome randomized response (--mechanism rr)"
        )
    return "rr3"


def _privatize_record_path(args) -> str | None:
    """``--record``, else the ``--out`` file with ``.json`` (none for standard output)."""
    if args.record is not None:
        if args.record == "-":
            raise UsageError("--record needs a file name")
        return args.record
    if args.out == "-":
        return None
    return os.fspath(Path(args.out).with_suffix(".json"))


def _privatize_input(args, table, universe, noise):
    """``(comparisons, facts)``: on the declared items, each user bounded to ``--max-per-user``.

    ``facts`` are the private counts of what was dropped (for the audit record).
    """
    from .items import restrict_to_items
    from .release import bound_user_contributions

    c = table.comparisons
    n_undeclared = n_dropped = 0
    if universe is not None:
        c, n_undeclared = restrict_to_items(c, universe)
    if args.max_per_user is not None:
        c, n_dropped = bound_user_contributions(c, args.max_per_user, noise)
    facts = {
        "n_users": int(c.n_users),
        "n_comparisons": round(float(c.n_comparisons)),
        "n_dropped_by_max_per_user": n_dropped,
        "n_dropped_naming_undeclared_items": n_undeclared,
    }
    return c, facts


def _privatize_outputs(args, table, c, eps_user, noise, universe, record, facts) -> list:
    """The released CSV, its public release record and the private audit record."""
    import pandas as pd

    from ._cli_release import hashing_writer, privatize_record, record_writer
    from .release import local_release

    mechanism = args.released_mechanism
    aggregate = table.has_count and mechanism != "laplace"
    rel = local_release(c, eps_user, noise, mechanism, aggregate=aggregate)
    labels = np.asarray(c.labels).astype(str)
    if rel.ties:  # votes with ties: released in the arena's layout (dprank.arena)
        columns = {
            "model_a": labels[rel.i],
            "model_b": labels[rel.j],
            "winner": np.array(["model_b", "tie", "model_a"])[np.rint(2 * rel.y).astype(int)],
            "judge": np.asarray(table.user_labels)[rel.user],
        }
    else:
        columns = {
            "item_a": labels[rel.i],
            "item_b": labels[rel.j],
            "outcome": rel.y if mechanism == "laplace" else rel.y.astype(np.int64),
            "user": np.asarray(table.user_labels)[rel.user],
        }
    if aggregate:
        columns["count"] = rel.count.astype(np.int64)
    columns["epsilon"] = eps_user[rel.user]
    sink: dict = {}
    source = (
        "the input's own items, declared public by the data owner (--items-from-data)"
        if universe is None
        else universe.source
    )
    public = privatize_record(
        args,
        mechanism=mechanism,
        private=noise.secure,
        epsilon=float(np.max(eps_user)),
        items=(labels if universe is None else universe.labels).tolist(),
        items_source=source,
    )
    outputs = [(args.out, hashing_writer(_csv_writer(pd.DataFrame(columns)), sink))]
    if record is not None:
        outputs.append((record, record_writer(public, sink)))
    if args.audit_record is not None:
        audit = {**_audit_head(args, table), **facts}
        outputs.append((_Private(args.audit_record), _json_writer(_plain(audit))))
    return outputs


# --------------------------------------------------------------------------- datasets, methods


def _cmd_datasets(args) -> int:
    from .exports import EXPORTABLE, export_frame, registry

    if args.action == "list":
        reg = registry(args.registry)
        lines = []
        for name, ds in reg.items():
            if name in EXPORTABLE:
                first = re.split(r"(?<=[a-z)])\.\s+(?=[A-Z])", ds.description)[0].rstrip(".")
                lines.append(f"{name}\t{first}.\n")
        _write_stdout("".join(lines))
        return EXIT_OK
    if args.name is None or args.out is None:
        raise UsageError("datasets export needs NAME and --out FILE.csv")
    plan = OutputPlan({}, {"--out": args.out})
    with ExitStack() as stack:
        data_dir = args.data_dir
        if data_dir is None:
            data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="dprank-data-"))
        frame = export_frame(args.name, data_dir, registry_path=args.registry)
        plan.write([(args.out, _csv_writer(frame))])
    return EXIT_OK


def _cmd_methods(args) -> int:
    from .methods import all_methods

    rows = [("name", "label", "paper", "algorithm", "privacy unit", "trust model")]
    for m in all_methods():
        rows.append((m.name, m.label, m.paper, m.algorithm, m.privacy_unit, m.trust_model))
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]) - 1)]
    lines = ("  ".join(r[k].ljust(w) for k, w in enumerate(widths)) + "  " + r[-1] for r in rows)
    _write_stdout("".join(line + "\n" for line in lines))
    return EXIT_OK


# --------------------------------------------------------------------------- parser


_RANK_EPILOG = """\
input: CSV or TSV with a header (or Parquet, or JSON lines), from a file or
standard input ('-'); one comparison per row, either
  winner,loser                 (the first item won), or
  item_a,item_b,outcome        (outcome 1 if item_a won, 0 if item_b won);
optional columns: user (who compared; needed for individual and local),
count (identical comparisons), epsilon (each user's budget, local only).

arena files (votes with ties): battles model_a,model_b,winner (winner one of
model_a, model_b, tie, tie (bothbad); optional judge = the voter, count,
epsilon) as CSV, TSV, JSON lines or a JSON array, or a per-pair count table
(JSON with models, X, Y, as `dprank datasets export chatbot_arena` writes it).

methods per privacy (--method):
  edge        mle (Algorithm 1, default), counts (Algorithm 2), one_shot, noisy_obj,
              ties (votes with ties; the default with --model davidson)
  individual  mle (Algorithm 3, default), counts (Laplace(2L/eps); --as-published: L/eps),
              ties (votes with ties, per voter)
  local       adrr (default), debiased_rr, classic_rr, laplace, count, ties
  none        mle (default), counts

items: individual and local DP rank declared items: --items FILE (a CSV with
an 'item' column, e.g. a ranking.csv) or --items-from-data (the input's items,
declared public). --privacy local ranks what dprank privatize wrote (its record
FILE.json beside it) or what --randomised-elsewhere describes.

privacy: the noise comes from the operating system's secure generator through
exact samplers (docs/privacy.md). ranking.csv and ranking.json are the release:
the ranking, the mechanism and its public parameters (epsilon, delta, declared
bounds), nothing else about the data; facts derived from the data go to
--audit-record only. Keep the input and any --audit-record file secret.
--insecure-seed S makes the noise reproducible and the output NOT private
(tests, teaching).

example:
  dprank rank games.csv --privacy edge --epsilon 1 --out ranking.csv
  dprank rank survey.csv --privacy individual --epsilon 1 --max-per-user 20 \\
      --items items.csv
  dprank rank arena.json --privacy edge --epsilon 1 --model davidson --scale elo \\
      --html leaderboard.html --out leaderboard.csv
writes ranking.csv (item,score,rank) and ranking.json (the public record).
"""

_PRIVATIZE_EPILOG = """\
Each comparison is released on its own with randomized response (flipped with
probability 1/(e^eps + 1), exactly; Paper B) or, with --mechanism laplace, as
outcome + exact Laplace(1/eps) noise on a power-of-two grid. The noise comes
from the operating system's secure generator (docs/privacy.md). Rows are
oriented (item_a before item_b in label order) and sorted canonically, so
neither order nor orientation tells the true outcome; with a count column the
released comparisons are counted again per user, pair and released outcome.
The input needs a user column and the items are declared (--items FILE or
--items-from-data); the output has item_a,item_b,outcome,user[,count],epsilon
and, beside it, its public release record (released.json): the input of
`dprank rank --privacy local`. Each outcome is eps-LDP; with --max-per-user L
each user is protected at L * eps. Keep the input secret.

example:
  dprank privatize survey.csv --epsilon 1 --items items.csv --out released.csv
  dprank rank released.csv --privacy local --out ranking.csv
"""

_DATASETS_EPILOG = """\
The files are the workflow's copies in resources/data/ when it has them all,
else they come from the data mirror $DPRANK_DATA_MIRROR or are downloaded;
either way they are checked against the sha256 of resources/datasets.yaml.

example:
  dprank datasets list
  dprank datasets export car_preferences --out cars.csv
"""


def _add_ledger_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--ledger",
        metavar="FILE",
        help="record the release in this privacy-budget ledger (created if missing, mode "
        "0600; see 'dprank ledger')",
    )
    p.add_argument(
        "--budget",
        type=_positive_float,
        metavar="EPS",
        help="with --ledger: refuse (exit 2, nothing written) a release that would take the "
        "data set's total epsilon past EPS. The budget is stored in the ledger and applies to "
        "later releases with or without --budget; a release may set it or lower it, raising it "
        "takes 'dprank ledger FILE --set-budget'",
    )
    p.add_argument(
        "--budget-unit",
        choices=("comparison", "user"),
        help="the privacy unit of --budget (default: the release's unit; for privatize with "
        "--max-per-user, user)",
    )


def _cmd_ledger(args) -> int:
    from .ledger import Ledger, main_ledger

    actions = [args.set_budget is not None, args.migrate, args.forget]
    if sum(actions) > 1:
        raise UsageError("give one of --set-budget, --migrate and --forget")
    if args.unit is not None and args.set_budget is None:
        raise UsageError("--unit goes with --set-budget EPS")
    ledger = Ledger(args.file)
    if args.set_budget is not None:
        if args.unit is None:
            raise UsageError("--set-budget needs --unit comparison or --unit user")
        ledger.set_budget(args.set_budget, args.unit)
        _stderr(f"ledger {args.file}: budget at the {args.unit} level set to {args.set_budget!r}")
    elif args.migrate:
        kept = ledger.migrate()
        _stderr(
            f"ledger {args.file}: migrated to version 2 with its {kept} releases; the key is in "
            f"{ledger.keys.path}, the old file kept as {args.file}.v1"
        )
    elif args.forget:
        gone = ledger.forget()
        _stderr(
            f"ledger {args.file}: {'forgot its records' if gone else 'nothing to forget'}; a "
            "new ledger may start here"
        )
    else:
        _write_stdout(main_ledger(args.file))
    return EXIT_OK


def _add_seed_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--insecure-seed",
        type=_seed,
        metavar="S",
        help="reproducible noise from seed S for tests and teaching: the output is NOT "
        "private (default: the operating system's secure generator)",
    )
    # refused with a message that names --insecure-seed (see _noise_source)
    p.add_argument("--seed", type=_seed, help=argparse.SUPPRESS)


#: the help formatter of every parser: the epilogs' line breaks are kept
_FORMAT = argparse.RawDescriptionHelpFormatter
#: The help formatter of every parser of the command (the docs' generated usage uses it too).
HELP_FORMATTER = _FORMAT


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dprank`` command."""
    parser = argparse.ArgumentParser(
        prog=PROG,
        description="Differentially private ranking from pairwise comparisons.",
        epilog="Run 'dprank SUBCOMMAND --help' for the options of each subcommand.",
        formatter_class=_FORMAT,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    _add_rank_parser(sub)
    _add_privatize_parser(sub)
    _add_ledger_parser(sub)
    _add_datasets_parser(sub)
    _add_methods_parser(sub)
    return parser


def _add_rank_parser(sub) -> None:
    p = sub.add_parser(
        "rank",
        help="rank the items of a comparison file privately",
        description="Rank the items of a comparison file under differential privacy.",
        epilog=_RANK_EPILOG,
        formatter_class=_FORMAT,
    )
    _add_input_arguments(
        p, "the comparison file (CSV, TSV, Parquet or JSON lines; '-' for standard input)"
    )
    _add_rank_model_options(p)
    _add_rank_interval_options(p)
    _add_seed_options(p)
    _add_rank_output_options(p)
    p.add_argument(
        "--as-published",
        action="store_true",
        help="individual counts with Algorithm 3's printed Laplace(L/eps): only 2 eps-DP "
        "(the record says epsilon = 2 EPS)",
    )
    _add_release_provenance_options(p)
    _add_ledger_options(p)
    _add_low_memory_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.set_defaults(func=_cmd_rank)


def _add_release_provenance_options(p: argparse.ArgumentParser) -> None:
    """``rank``'s declared items and the source of a local release's guarantee."""
    from ._cli_release import add_items_options, add_local_source_options

    add_items_options(p)
    add_local_source_options(p)


def _add_low_memory_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--low-memory",
        action="store_true",
        help="hand freed buffers back to the system at once: a lower peak memory for "
        "more time; the same output",
    )


def _add_rank_model_options(p: argparse.ArgumentParser) -> None:
    """``rank``'s privacy model, budget, method and what the ranking reports."""
    p.add_argument(
        "--privacy",
        required=True,
        choices=("edge", "individual", "local", "none"),
        help="what is protected: one comparison (edge), one user's comparisons at a "
        "trusted curator (individual), users who released their own data (local), "
        "or nothing (none, the non-private reference)",
    )
    p.add_argument(
        "--epsilon",
        type=_positive_float,
        metavar="EPS",
        help="privacy budget (edge and individual; positive)",
    )
    from ._default_methods import DEFAULT_METHOD

    defaults = ", ".join(f"{level} {name}" for level, name in DEFAULT_METHOD.items())
    p.add_argument(
        "--method",
        metavar="NAME",
        help="estimator: mle|counts (edge, individual, none; edge also one_shot, noisy_obj); "
        "adrr|debiased_rr|classic_rr|laplace|count (local). Default: the best of the level "
        f"on the benchmark of methods ({defaults}; docs/cli.md)",
    )
    p.add_argument(
        "--model",
        choices=("btl", "tm", "davidson", "raokupper"),
        default="btl",
        help="comparison model of the likelihood methods: Bradley-Terry-Luce or "
        "Thurstone (default btl; Paper A's perturbed MLE needs btl); with ties, Davidson's "
        "or Rao-Kupper's model (selects --method ties: votes with ties, docs/leaderboard.md)",
    )
    _add_both_bad_option(p)
    p.add_argument(
        "--top-k",
        type=_positive_int,
        metavar="K",
        help="add an in_top_k column (at most the number of items)",
    )
    p.add_argument(
        "--max-per-user",
        type=_positive_int,
        metavar="L",
        help="individual (required): declared public bound on one user's comparisons; the "
        "noise is calibrated to it and a user with more keeps L, chosen at random",
    )


def _add_rank_interval_options(p: argparse.ArgumentParser) -> None:
    """``rank``'s intervals: post-processing of the release, no privacy spent."""
    g = p.add_argument_group(
        "intervals",
        "post-processing of the release and public inputs only: no privacy budget is spent "
        "(docs/intervals.md)",
    )
    g.add_argument(
        "--intervals",
        type=float,
        metavar="LEVEL",
        help="add estimate, score_lo, score_hi, rank_lo, rank_hi, tie_class (and p_top_k "
        "with --top-k) at this level, e.g. 0.95. The score intervals are centred on "
        "'estimate', the model's parameter estimated from the release (centred to mean 0), "
        "not on 'score' (the release itself, shrunk by the method's ridge); tie_class groups "
        "the items whose order the release cannot resolve. Cells stay empty for items the "
        "release does not locate (rank interval over 90%% of the places)",
    )
    g.add_argument(
        "--intervals-joint",
        action="store_true",
        help="simultaneous intervals: all items' intervals hold at once at LEVEL (wider)",
    )
    g.add_argument(
        "--intervals-method",
        choices=("auto", "bootstrap", "asymptotic"),
        default="auto",
        help="the error law: refits of simulated releases (bootstrap) or their "
        "linearisation (asymptotic, fast at scale); auto: the bootstrap up to 100 items",
    )
    g.add_argument(
        "--min-per-user",
        type=_positive_int,
        metavar="K",
        help="individual: declared least comparisons of one user (default 1); the "
        "intervals hold for every design between K and --max-per-user comparisons per user",
    )


def _add_rank_output_options(p: argparse.ArgumentParser) -> None:
    """``rank``'s output files: the ranking, its public record, the audit record, the plot."""
    p.add_argument(
        "--out",
        default="ranking.csv",
        metavar="FILE",
        help="output CSV item,score,rank[,in_top_k] sorted by rank (default ranking.csv; "
        "'-' writes it to standard output and nothing else)",
    )
    p.add_argument(
        "--sidecar",
        metavar="FILE",
        help="public JSON record of the release: mechanism, epsilon, delta, declared bounds "
        "(default: the --out file with .json; none with --out -)",
    )
    p.add_argument(
        "--audit-record",
        metavar="FILE",
        help="private JSON record for the data owner (input hash, counts, solver trace), "
        "written with mode 0600; never publish it",
    )
    p.add_argument("--plot", metavar="FILE", help="dot plot of the scores (top 50 items)")
    p.add_argument(
        "--scale",
        choices=("logit", "elo"),
        default="logit",
        help="scores as log-strengths (default) or on the arena's Elo-like scale: "
        "400/ln(10) per unit, the mean model at 1000 (or --anchor)",
    )
    p.add_argument(
        "--anchor",
        metavar="MODEL=VALUE",
        help="with --scale elo: shift the scale so that MODEL scores VALUE (e.g. gpt-4-0613=1000)",
    )
    p.add_argument(
        "--html",
        metavar="FILE",
        help="a self-contained leaderboard page: sortable table, intervals drawn, the privacy "
        "guarantee in words (computes --intervals 0.95 unless given)",
    )


def _add_both_bad_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--both-bad",
        choices=("tie", "drop"),
        default="tie",
        help="arena files: a 'tie (bothbad)' vote counts as a tie (default, as LMArena) or is "
        "dropped (as leaderbot's default)",
    )


def _add_privatize_parser(sub) -> None:
    p = sub.add_parser(
        "privatize",
        help="release each user's comparisons with local DP (randomized response)",
        description="Release each user's comparisons under local differential privacy.",
        epilog=_PRIVATIZE_EPILOG,
        formatter_class=_FORMAT,
    )
    _add_input_arguments(p, "raw comparisons with users ('-' for standard input)")
    p.add_argument(
        "--epsilon", type=_positive_float, metavar="EPS", help="one budget for every user"
    )
    p.add_argument(
        "--user-epsilon-column",
        metavar="COL",
        help="take each user's budget from this column of the input instead",
    )
    p.add_argument(
        "--mechanism",
        choices=("rr", "laplace"),
        default="rr",
        help="randomized response (default; three-outcome on an arena file's votes with ties) "
        "or the Laplace mechanism",
    )
    _add_both_bad_option(p)
    _add_seed_options(p)
    p.add_argument(
        "--out", required=True, metavar="FILE", help="released CSV ('-' for standard output)"
    )
    _add_privatize_release_options(p)
    _add_ledger_options(p)
    _add_low_memory_option(p)
    p.add_argument("--quiet", action="store_true", help="no summary on standard error")
    p.set_defaults(func=_cmd_privatize)


def _add_privatize_release_options(p: argparse.ArgumentParser) -> None:
    """``privatize``'s declared items, bound per user and records."""
    from ._cli_release import add_items_options

    add_items_options(p)
    p.add_argument(
        "--max-per-user",
        type=_positive_int,
        metavar="L",
        help="declared bound on one user's comparisons: a user with more keeps L, chosen at "
        "random; each user is then protected at L * epsilon (the ledger charges that at the "
        "user level)",
    )
    p.add_argument(
        "--record",
        metavar="FILE",
        help="the public release record (default: the --out file with .json; none with "
        "--out - unless given): what `rank --privacy local` checks the file against",
    )
    p.add_argument(
        "--audit-record",
        metavar="FILE",
        help="private JSON record for the data owner (input hash, comparisons dropped), "
        "written with mode 0600; never publish it",
    )


def _add_ledger_parser(sub) -> None:
    from .ledger import KEY_FILE_ENV, default_key_file

    p = sub.add_parser(
        "ledger",
        help="list a privacy-budget ledger: data sets, releases, budget spent",
        description="List the data sets of a privacy-budget ledger (--ledger of rank and "
        "privatize), their releases, its budgets and the epsilon spent per privacy unit; or "
        "set a budget, migrate a version-1 ledger, or give up a deleted one.",
        epilog=f"key file: {default_key_file()}\n"
        f"  (mode 0600; ${KEY_FILE_ENV} names another). It holds each ledger's HMAC key and\n"
        "  the count and last MAC of its records: an edited, deleted or truncated record,\n"
        "  or a deleted ledger, is detected and refused. Keep it (and back it up) with the\n"
        "  ledgers; without it no ledger can be verified.\n"
        "docs: docs/ledger.md",
        formatter_class=_FORMAT,
    )
    p.add_argument("file", metavar="FILE", help="the ledger file")
    p.add_argument(
        "--set-budget",
        type=_positive_float,
        metavar="EPS",
        help="set the ledger's budget per data set at --unit to EPS (the one way to raise it)",
    )
    p.add_argument(
        "--unit", choices=("comparison", "user"), help="the privacy unit of --set-budget"
    )
    p.add_argument(
        "--migrate",
        action="store_true",
        help="turn a version-1 ledger (key inside the file) into a version-2 one, keeping its "
        "releases; the old file is kept as FILE.v1",
    )
    p.add_argument(
        "--forget",
        action="store_true",
        help="give up the records of a deleted ledger (the key file remembers it and refuses "
        "a new ledger at its path until told)",
    )
    p.set_defaults(func=_cmd_ledger)


def _add_datasets_parser(sub) -> None:
    p = sub.add_parser(
        "datasets",
        help="list or export the registered real data sets",
        description="List the registered real data sets, or export one in the input format.",
        epilog=_DATASETS_EPILOG,
        formatter_class=_FORMAT,
    )
    p.add_argument("action", choices=("list", "export"), help="list, or export NAME")
    p.add_argument("name", nargs="?", metavar="NAME", help="data set to export")
    p.add_argument("--out", metavar="FILE", help="output CSV of the export ('-' for stdout)")
    p.add_argument(
        "--data-dir",
        metavar="DIR",
        help="keep the fetched files here (default: a temporary folder)",
    )
    p.add_argument(
        "--registry",
        metavar="FILE",
        help="data set registry (default: resources/datasets.yaml of the source tree, or the "
        "copy an installed package ships)",
    )
    p.set_defaults(func=_cmd_datasets)


def _add_methods_parser(sub) -> None:
    p = sub.add_parser(
        "methods",
        help="list the registered methods",
        description="List every registered method: name (what the benchmark's config and "
        "plug-ins use), label (what figures and tables print), paper, algorithm, privacy unit "
        "and trust model.",
        formatter_class=_FORMAT,
    )
    p.set_defaults(func=_cmd_methods)


def _usage_errors() -> tuple[type[BaseException], ...]:
    """The errors reported as usage errors: those of the modules the command has loaded.

    A module's errors are caught only where it is imported (only then can it have
    raised them), so ``rank`` does not import the data sets' registry for its
    ``DataError``.
    """
    errors: list[type[BaseException]] = [UsageError, ValueError, FileNotFoundError]
    for module, name in (("dprank.methods", "MethodInputError"), ("dprank.datasets", "DataError")):
        loaded = sys.modules.get(module)
        if loaded is not None:
            errors.append(getattr(loaded, name))
    return tuple(errors)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return its exit status."""
    if argv is not None:
        _checks.strings(argv, "argv")
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        with _signals_raise():
            code = args.func(args)
            _flush_stdout()
        return code
    except OutputError as exc:
        _stderr(f"error: {exc}")
        return EXIT_FAILURE
    except _usage_errors() as exc:
        _stderr(f"error: {exc}")
        ledger = sys.modules.get("dprank.ledger")
        if ledger is not None and isinstance(exc, ledger.LedgerWriteError):
            return EXIT_FAILURE  # a full disk under the ledger, as under any output
        return EXIT_USAGE
    except (PermissionError, IsADirectoryError, NotADirectoryError, FileExistsError) as exc:
        _stderr(f"error: cannot write {exc.filename or 'the output'}: {exc.strerror or exc}")
        return EXIT_USAGE
    except OSError as exc:
        if exc.errno not in _WRITE_FAILURES:
            return _internal_error()
        # a full disk, a broken pipe, a read-only file system under a record being written
        name = exc.filename
        if name is None and exc.errno == errno.EPIPE:
            name = "standard output"
            _silence_stdout()
        _stderr(f"error: cannot write {name or 'an output'}: {exc.strerror or exc}")
        return EXIT_FAILURE
    except KeyboardInterrupt:
        _stderr("interrupted")
        return 130
    except Terminated as exc:
        _stderr(f"terminated by {exc.name}")
        return 128 + exc.signum
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
        _write_stdout("")


def _internal_error() -> int:
    _stderr("internal error (please report it):")
    traceback.print_exc(file=sys.stderr)
    return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
