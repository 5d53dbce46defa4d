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
no output file written), 1 on an internal failure. Outputs are written through
temporary names, so a failed run leaves nothing behind; no output may be an
input or another output (paths compared after resolving links).

Releases (``rank --privacy edge|individual|local``, ``privatize``) draw their
noise from the operating system's secure generator through exact samplers
(:mod:`dprank.noise`); ``--insecure-seed`` is the explicit opt-in to
reproducible, not private noise. The ranking file and its JSON record hold only
the release and public parameters; ``--audit-record`` writes the private facts
(input hash, counts, solver trace) to a file only its owner can read.
"""

from __future__ import annotations

import argparse
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
    UsageError,
    _check_paths,
    _csv_writer,
    _json_writer,
    _plain,
    _plot_writer,
    _Private,
    _Progress,
    _stderr,
    _write_outputs,
)

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


# --------------------------------------------------------------------------- rank


def _sidecar_path(args) -> str | None:
    if args.sidecar is not None:
        return args.sidecar
    if args.out == "-":
        return None
    return os.fspath(Path(args.out).with_suffix(".json"))


def _cmd_rank(args) -> int:
    name, method = _rank_method(args)
    sidecar = _sidecar_path(args)
    _check_paths(
        {"COMPARISONS": args.comparisons},
        {
            "--out": args.out,
            "--sidecar": sidecar,
            "--plot": args.plot,
            "--audit-record": args.audit_record,
            "--ledger": args.ledger,
        },
    )
    noise = _noise_source(args, name, "dprank.rank")
    progress = _Progress(3, args.quiet)
    try:
        table = _read_rank_input(args, method, name, progress)
        receipt = _release_ranking(args, table, method, name, noise, sidecar, progress)
    finally:
        progress.close()
    if receipt is not None and not args.quiet:
        _stderr(f"ledger {args.ledger}: {receipt.describe()}")
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
        name = method_name(args.privacy, args.method, as_published=args.as_published)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    method = get_method(name)
    if args.plot is not None and args.plot == "-":
        raise UsageError("--plot needs a file name")
    if args.audit_record == "-":
        raise UsageError("--audit-record needs a file name (it is written with mode 0600)")
    _check_interval_options(args, method, name)
    return name, method


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
    from .intervals import NO_INTERVALS, supports

    if not 0 < args.intervals < 1:
        raise UsageError(f"--intervals must lie strictly between 0 and 1, got {args.intervals}")
    if not supports(method):
        raise UsageError(f"--intervals: method {name} has no intervals: {NO_INTERVALS[name]}")
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
        args.comparisons,
        need_users=method.needs_users,
        need_epsilon=method.trust_model == "local",
        real_outcomes=name == "local_laplace",
    )
    progress.done()
    return table


def _release_ranking(args, table, method, name: str, noise, sidecar, progress: _Progress):
    """The fit and the outputs, as one release of the ``--ledger``; its receipt (or None)."""
    from dataclasses import replace

    from .ledger import release_to

    # the guarantee actually given: 2 eps for the as-published counts
    eps_given = None if args.epsilon is None else args.epsilon * (2 if args.as_published else 1)
    entry = _ledger_entry(args, "rank", method.name, method.privacy_unit, method.private, eps_given)
    if entry is not None and method.trust_model == "local":
        raise UsageError(
            "--ledger records releases of raw data: ranking a local release spends no "
            "budget (record the budget where the data were privatized)"
        )
    with release_to(
        args.ledger, table, entry, budget=args.budget, name=Path(args.comparisons).name
    ) as receipt:
        progress.stage("fitting")
        ranking = _fit_ranking(args, table, noise)
        progress.done()
        frame = ranking.columns()  # written without pandas
        if args.intervals is not None:
            progress.stage("intervals")
            frame = _with_intervals(args, ranking, ranking.to_frame(), name)
        progress.stage("writing")
        if receipt is not None:
            receipt.entry = replace(receipt.entry, delta=ranking.delta)
        _write_outputs(_rank_outputs(args, table, ranking, frame, sidecar, method))
    progress.done()
    return receipt


def _fit_ranking(args, table, noise):
    """:func:`dprank.rank` of the table with ``rank``'s options; its warnings to standard error."""
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
        )
    for w in caught:
        _stderr(f"warning: {w.message}")
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
    cells, and standard error says how many and why.
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


def _rank_outputs(args, table, ranking, frame, sidecar, method) -> list:
    """The ranking CSV, its public record, the plot and the private audit record."""
    record = {"dprank_version": __version__, **ranking.record()}
    if args.intervals is not None:
        summary = getattr(args, "intervals_summary", {})
        record["intervals"] = {
            "level": args.intervals,
            "joint": bool(args.intervals_joint),
            "method": f"dprank.intervals, {summary.get('kind', args.intervals_method)}",
            "centre": "estimate: the model's parameter estimated from the release, centred "
            "to mean 0 (score is the release itself)",
            "columns": "score_lo, score_hi: bounds of the centred parameter around estimate; "
            "rank_lo, rank_hi; tie_class: groups the release cannot order; empty cells: the "
            "release does not locate the item",
            **{k: v for k, v in summary.items() if k != "kind"},
        }
        if args.min_per_user is not None:
            record["intervals"]["min_per_user"] = args.min_per_user
    outputs = [
        (args.out, _csv_writer(frame)),
        (sidecar, _json_writer(_plain(record))),
    ]
    if args.plot is not None:
        outputs.append((args.plot, _plot_writer(ranking, args.plot)))
    if args.audit_record is not None:
        audit = {
            "dprank_version": __version__,
            "warning": "private: facts about the input data; do not publish",
            "insecure_seed": args.insecure_seed,
            "input": {
                "file": Path(args.comparisons).name,
                "sha256": table.sha256,
                "layout": table.layout,
                "rows": table.n_rows,
            },
            **ranking.audit_record(),
        }
        if method.trust_model == "local":
            eps_user = np.asarray(table.comparisons.user_epsilon)
            audit["user_epsilon"] = {"min": eps_user.min(), "max": eps_user.max()}
        outputs.append((_Private(args.audit_record), _json_writer(_plain(audit))))
    return outputs


# --------------------------------------------------------------------------- privatize


def _cmd_privatize(args) -> int:
    import pandas as pd

    from .inputs import _free_memory_promptly, read_comparisons
    from .ledger import release_to
    from .release import local_release

    if (args.epsilon is None) == (args.user_epsilon_column is None):
        raise UsageError("give exactly one of --epsilon and --user-epsilon-column")
    _check_paths({"COMPARISONS": args.comparisons}, {"--out": args.out, "--ledger": args.ledger})
    noise = _noise_source(args, args.mechanism, "dprank.privatize")
    if args.low_memory:
        _free_memory_promptly()
    table = read_comparisons(
        args.comparisons,
        need_users=True,
        need_epsilon=args.user_epsilon_column is not None,
        epsilon_column=args.user_epsilon_column or "epsilon",
    )
    c = table.comparisons
    eps_user = np.full(c.n_users, args.epsilon) if args.epsilon is not None else c.user_epsilon
    aggregate = table.has_count and args.mechanism == "rr"
    entry = _ledger_entry(args, "privatize", args.mechanism, "user", True, np.max(eps_user))
    with release_to(
        args.ledger, table, entry, budget=args.budget, name=Path(args.comparisons).name
    ) as receipt:
        rel = local_release(c, eps_user, noise, args.mechanism, aggregate=aggregate)
        labels = np.asarray(c.labels).astype(str)
        columns = {
            "item_a": labels[rel.i],
            "item_b": labels[rel.j],
            "outcome": rel.y if args.mechanism == "laplace" else rel.y.astype(np.int64),
            "user": np.asarray(table.user_labels)[rel.user],
        }
        if aggregate:
            columns["count"] = rel.count.astype(np.int64)
        columns["epsilon"] = eps_user[rel.user]
        frame = pd.DataFrame(columns)
        _write_outputs([(args.out, _csv_writer(frame))])
    if receipt is not None and not args.quiet:
        _stderr(f"ledger {args.ledger}: {receipt.describe()}")
    if args.out != "-" and not args.quiet:
        _stderr(
            f"released {len(frame)} rows ({args.mechanism}) to {args.out}; each comparison "
            "is eps-LDP with its user's budget"
            + ("" if noise.secure else " only if the seed stays secret (--insecure-seed)")
        )
    return EXIT_OK


# --------------------------------------------------------------------------- datasets, methods


def _cmd_datasets(args) -> int:
    from .exports import EXPORTABLE, export_frame, registry

    if args.action == "list":
        reg = registry(args.registry)
        for name, ds in reg.items():
            if name in EXPORTABLE:
                first = re.split(r"(?<=[a-z)])\.\s+(?=[A-Z])", ds.description)[0].rstrip(".")
                print(f"{name}\t{first}.")
        return EXIT_OK
    if args.name is None or args.out is None:
        raise UsageError("datasets export needs NAME and --out FILE.csv")
    with ExitStack() as stack:
        data_dir = args.data_dir
        if data_dir is None:
            data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="dprank-data-"))
        frame = export_frame(args.name, data_dir, registry_path=args.registry)
        _write_outputs([(args.out, _csv_writer(frame))])
    return EXIT_OK


def _cmd_methods(args) -> int:
    from .methods import all_methods

    rows = [("name", "label", "paper", "algorithm", "privacy unit", "trust model")]
    for m in all_methods():
        rows.append((m.name, m.label, m.paper, m.algorithm, m.privacy_unit, m.trust_model))
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]) - 1)]
    for r in rows:
        print("  ".join(r[k].ljust(w) for k, w in enumerate(widths)) + "  " + r[-1])
    return EXIT_OK


# --------------------------------------------------------------------------- parser


_RANK_EPILOG = """\
input: CSV or TSV with a header; one comparison per row, either
  winner,loser                 (the first item won), or
  item_a,item_b,outcome        (outcome 1 if item_a won, 0 if item_b won);
optional columns: user (who compared; needed for individual and local),
count (identical comparisons), epsilon (each user's budget, local only).

methods per privacy (--method):
  edge        mle (Algorithm 1, default), counts (Algorithm 2), one_shot, noisy_obj
  individual  mle (Algorithm 3, default), counts (Laplace(2L/eps); --as-published: L/eps)
  local       adrr (default), debiased_rr, classic_rr, laplace, count
  none        mle (default), counts

privacy: the noise comes from the operating system's secure generator through
exact samplers (docs/privacy.md). ranking.csv and ranking.json are the release:
the ranking, the mechanism and its public parameters (epsilon, delta, declared
bounds), nothing else about the data. Keep the input and any --audit-record
file secret. --insecure-seed S makes the noise reproducible and the output NOT
private (tests, teaching).

example:
  dprank rank games.csv --privacy edge --epsilon 1 --out ranking.csv
  dprank rank survey.csv --privacy individual --epsilon 1 --max-per-user 20
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
The input needs a user column; the output has item_a,item_b,outcome,user[,count],epsilon
and is the input of `dprank rank --privacy local`. Keep the input secret.

example:
  dprank privatize survey.csv --epsilon 1 --out released.csv
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
        "data set's total epsilon past EPS",
    )


def _cmd_ledger(args) -> int:
    from .ledger import main_ledger

    sys.stdout.write(main_ledger(args.file))
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
    p.add_argument("comparisons", metavar="COMPARISONS.csv", help="the comparison file")
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
    _add_ledger_options(p)
    _add_low_memory_option(p)
    p.add_argument("--quiet", action="store_true", help="no progress display")
    p.set_defaults(func=_cmd_rank)


def _add_low_memory_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--low-memory",
        action="store_true",
        help="hand freed buffers back to the system at once: a lower peak memory "
        "(about 7%% on large files) for more time (about 1.5x); same output",
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
    p.add_argument(
        "--method",
        metavar="NAME",
        help="estimator: mle|counts (edge, individual, none; edge also one_shot, noisy_obj); "
        "adrr|debiased_rr|classic_rr|laplace|count (local). Default: mle (adrr for local)",
    )
    p.add_argument(
        "--model",
        choices=("btl", "tm"),
        default="btl",
        help="comparison model of the likelihood methods: Bradley-Terry-Luce or "
        "Thurstone (default btl; Paper A's perturbed MLE needs btl)",
    )
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


def _add_privatize_parser(sub) -> None:
    p = sub.add_parser(
        "privatize",
        help="release each user's comparisons with local DP (randomized response)",
        description="Release each user's comparisons under local differential privacy.",
        epilog=_PRIVATIZE_EPILOG,
        formatter_class=_FORMAT,
    )
    p.add_argument("comparisons", metavar="COMPARISONS.csv", help="raw comparisons with users")
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
        help="randomized response (default) or the Laplace mechanism",
    )
    _add_seed_options(p)
    p.add_argument(
        "--out", required=True, metavar="FILE", help="released CSV ('-' for standard output)"
    )
    _add_ledger_options(p)
    _add_low_memory_option(p)
    p.add_argument("--quiet", action="store_true", help="no summary on standard error")
    p.set_defaults(func=_cmd_privatize)


def _add_ledger_parser(sub) -> None:
    p = sub.add_parser(
        "ledger",
        help="list a privacy-budget ledger: data sets, releases, budget spent",
        description="List the data sets of a privacy-budget ledger (--ledger of rank and "
        "privatize), their releases and the epsilon spent per privacy unit.",
        formatter_class=_FORMAT,
    )
    p.add_argument("file", metavar="FILE", help="the ledger file")
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
        help="data set registry (default: resources/datasets.yaml of the source tree)",
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
        return args.func(args)
    except _usage_errors() as exc:
        _stderr(f"error: {exc}")
        return EXIT_USAGE
    except (PermissionError, IsADirectoryError, NotADirectoryError, FileExistsError) as exc:
        _stderr(f"error: cannot write {exc.filename or 'the output'}: {exc.strerror or exc}")
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_OK
    except KeyboardInterrupt:
        _stderr("interrupted")
        return 130
    except Exception:
        _stderr("internal error (please report it):")
        traceback.print_exc(file=sys.stderr)
        return EXIT_FAILURE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
