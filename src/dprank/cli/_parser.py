"""The argument parser of the ``dprank`` command: every subcommand's options and help."""

from __future__ import annotations

import argparse
import math
from collections.abc import Sequence

from .._version import __version__
from ..data._input_stream import FORMATS as INPUT_FORMATS
from ._listings import cmd_datasets, cmd_ledger, cmd_methods
from ._output import PROG
from ._privatize import cmd_privatize
from ._rank import cmd_rank


def _number(text: str, convert, ok, unreadable: str, refused: str):
    """``convert(text)`` where ``ok`` of it; else an argparse error that says what it must be."""
    try:
        value = convert(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be {unreadable}, got {text!r}") from None
    if not ok(value):
        raise argparse.ArgumentTypeError(f"must be {refused}, got {text!r}")
    return value


def _positive_float(text: str) -> float:
    positive = "a positive number"
    return _number(
        text, float, lambda v: v > 0 and math.isfinite(v), positive, "a positive finite number"
    )


def _positive_int(text: str) -> int:
    positive = "a positive integer"
    return _number(text, int, lambda v: v >= 1, positive, positive)


def _seed(text: str) -> int:
    natural = "a non-negative integer"
    return _number(text, int, lambda v: v >= 0, natural, natural)


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


def add_ledger_options(p: argparse.ArgumentParser) -> None:
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


def add_seed_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--insecure-seed",
        type=_seed,
        metavar="S",
        help="reproducible noise from seed S for tests and teaching: the output is NOT "
        "private (default: the operating system's secure generator)",
    )
    # refused with a message that names --insecure-seed (see noise_source)
    p.add_argument("--seed", type=_seed, help=argparse.SUPPRESS)


#: The help formatter of every parser of the command, which keeps the epilogs' line breaks (the
#: docs' generated usage uses it too).
HELP_FORMATTER = argparse.RawDescriptionHelpFormatter


class _Parser(argparse.ArgumentParser):
    """An argument parser whose epilog may be a function, called when the help is printed.

    The ``ledger`` subcommand's epilog names the key file (:func:`dprank.ledger.default_key_file`):
    made at ``--help`` only, so the other subcommands do not import :mod:`dprank.ledger`.
    Subparsers are of the class of their parent (argparse's default), so every parser of the
    command has :data:`HELP_FORMATTER`.
    """

    def __init__(self, *args, formatter_class=HELP_FORMATTER, **kwargs):
        super().__init__(*args, formatter_class=formatter_class, **kwargs)

    def format_help(self) -> str:
        if callable(self.epilog):
            self.epilog = self.epilog()
        return super().format_help()


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``dprank`` command."""
    return _build_parser(_SUBCOMMAND_NAMES)


def parser_for(argv: Sequence[str]) -> argparse.ArgumentParser:
    """The parser :func:`dprank.cli.main` parses ``argv`` with: :func:`build_parser`'s, with
    the options of the subcommand ``argv`` names only.

    The command's own options (``--help``, ``--version``) take no value, so the subcommand is
    ``argv``'s first word that is not an option. The other subcommands keep their name and
    help line (all that ``dprank --help`` and argparse's messages show), not their options,
    whose construction can import their modules (``rank``'s help names the default method of
    each level, from the method registry): ``dprank ledger`` or ``dprank --help`` builds no
    ``rank`` options.
    """
    words = [word for word in argv if not word.startswith("-")]
    return _build_parser(_SUBCOMMAND_NAMES.intersection(words[:1]))


def _build_parser(options_of: frozenset[str]) -> argparse.ArgumentParser:
    """The command's parser, with the options of the subcommands ``options_of``."""
    parser = _Parser(
        prog=PROG,
        description="Differentially private ranking from pairwise comparisons.",
        epilog="Run 'dprank SUBCOMMAND --help' for the options of each subcommand.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="SUBCOMMAND", required=True)
    for name, help_line, description, epilog, add_options, func in _SUBCOMMANDS:
        p = sub.add_parser(name, help=help_line, description=description, epilog=epilog)
        if name in options_of:
            add_options(p)
        p.set_defaults(func=func)
    return parser


def _add_rank_options(p: argparse.ArgumentParser) -> None:
    _add_input_arguments(
        p, "the comparison file (CSV, TSV, Parquet or JSON lines; '-' for standard input)"
    )
    _add_rank_model_options(p)
    _add_rank_interval_options(p)
    add_seed_options(p)
    _add_rank_output_options(p)
    p.add_argument(
        "--as-published",
        action="store_true",
        help="individual counts with Algorithm 3's printed Laplace(L/eps): only 2 eps-DP "
        "(the record says epsilon = 2 EPS)",
    )
    _add_release_provenance_options(p)
    _add_release_tail(p, "no progress display")


def _add_release_provenance_options(p: argparse.ArgumentParser) -> None:
    """``rank``'s declared items and the source of a local release's guarantee."""
    from ._release import add_items_options, add_local_source_options

    add_items_options(p)
    add_local_source_options(p)


def _add_release_tail(p: argparse.ArgumentParser, quiet_help: str) -> None:
    """What both release commands end with: the ledger's options, ``--low-memory`` and
    ``--quiet`` (``quiet_help`` says what it silences)."""
    add_ledger_options(p)
    p.add_argument(
        "--low-memory",
        action="store_true",
        help="hand freed buffers back to the system at once: a lower peak memory for "
        "more time; the same output",
    )
    p.add_argument("--quiet", action="store_true", help=quiet_help)


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
    from ..methods._default_methods import DEFAULT_METHOD

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
        "linearisation (asymptotic, fast at scale); auto: the bootstrap up to 250 items",
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
    _add_audit_record_option(p, "input hash, counts, solver trace")
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


def _add_privatize_options(p: argparse.ArgumentParser) -> None:
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
    add_seed_options(p)
    p.add_argument(
        "--out", required=True, metavar="FILE", help="released CSV ('-' for standard output)"
    )
    _add_privatize_release_options(p)
    _add_release_tail(p, "no summary on standard error")


def _add_privatize_release_options(p: argparse.ArgumentParser) -> None:
    """``privatize``'s declared items, bound per user and records."""
    from ._release import add_items_options

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
    _add_audit_record_option(p, "input hash, comparisons dropped")


def _add_audit_record_option(p: argparse.ArgumentParser, contents: str) -> None:
    """``--audit-record`` of both release commands; ``contents`` says what the record holds."""
    p.add_argument(
        "--audit-record",
        metavar="FILE",
        help=f"private JSON record for the data owner ({contents}), written with mode 0600; "
        "never publish it",
    )


def _ledger_epilog() -> str:
    from ..ledger import KEY_FILE_ENV, default_key_file  # at --help only (its import: ~10 ms)

    return (
        f"key file: {default_key_file()}\n"
        f"  (mode 0600; ${KEY_FILE_ENV} names another). It holds each ledger's HMAC key and\n"
        "  the count and last MAC of its records: an edited, deleted or truncated record,\n"
        "  or a deleted ledger, is detected and refused. Keep it (and back it up) with the\n"
        "  ledgers; without it no ledger can be verified.\n"
        "docs: docs/ledger.md"
    )


def _add_ledger_options(p: argparse.ArgumentParser) -> None:
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


def _add_datasets_options(p: argparse.ArgumentParser) -> None:
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


#: The subcommands, in the order of the command's help: name, the line of that list, the
#: description atop the subcommand's help, its epilog (a function: made at --help only), the
#: function that adds its options and the one that runs it.
_SUBCOMMANDS = (
    (
        "rank",
        "rank the items of a comparison file privately",
        "Rank the items of a comparison file under differential privacy.",
        _RANK_EPILOG,
        _add_rank_options,
        cmd_rank,
    ),
    (
        "privatize",
        "release each user's comparisons with local DP (randomized response)",
        "Release each user's comparisons under local differential privacy.",
        _PRIVATIZE_EPILOG,
        _add_privatize_options,
        cmd_privatize,
    ),
    (
        "ledger",
        "list a privacy-budget ledger: data sets, releases, budget spent",
        "List the data sets of a privacy-budget ledger (--ledger of rank and privatize), their "
        "releases, its budgets and the epsilon spent per privacy unit; or set a budget, migrate "
        "a version-1 ledger, or give up a deleted one.",
        _ledger_epilog,
        _add_ledger_options,
        cmd_ledger,
    ),
    (
        "datasets",
        "list or export the registered real data sets",
        "List the registered real data sets, or export one in the input format.",
        _DATASETS_EPILOG,
        _add_datasets_options,
        cmd_datasets,
    ),
    (
        "methods",
        "list the registered methods",
        "List every registered method: name (what the benchmark's config and plug-ins use), "
        "label (what figures and tables print), paper, algorithm, privacy unit and trust model.",
        None,
        lambda p: None,  # no options
        cmd_methods,
    ),
)
#: what :func:`parser_for` looks for in argv
_SUBCOMMAND_NAMES = frozenset(entry[0] for entry in _SUBCOMMANDS)
