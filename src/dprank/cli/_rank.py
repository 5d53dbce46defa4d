"""``dprank rank``: a private ranking of a comparison file."""

from __future__ import annotations

import math
import os
import warnings
from pathlib import Path

import numpy as np

from .._version import __version__
from ._common import (
    EXIT_OK,
    audit_head,
    comparison_input,
    input_name,
    ledger_entry,
    ledger_release,
    noise_source,
    option_names,
)
from ._output import (
    OutputPlan,
    Private,
    Progress,
    UsageError,
    csv_writer,
    json_writer,
    plain,
    plot_writer,
    text_writer,
    to_stderr,
)


def _sidecar_path(args) -> str | None:
    if args.sidecar is not None:
        return args.sidecar
    if args.out == "-":
        return None
    return os.fspath(Path(args.out).with_suffix(".json"))


def cmd_rank(args) -> int:
    from ._release import check_stream_record, declared_items, local_source

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
            "--audit-record": Private(args.audit_record),
            "--ledger": args.ledger,
        },
        external=("--ledger",),
    )
    noise = noise_source(args, name, "dprank.rank")
    # public facts before the data: where a local release's guarantee comes from, the items
    args.local_source, record_items = local_source(args)
    args.universe = declared_items(args, args.privacy, record_items)
    progress = Progress(3, args.quiet)
    try:
        table = _read_rank_input(args, method, name, progress)
        check_stream_record(args, table)
        receipt = _release_ranking(args, table, method, name, noise, plan, progress)
    finally:
        progress.close()
    if receipt is not None and not args.quiet:
        to_stderr(f"ledger {args.ledger}: {receipt.describe()}")
    if args.method is None and not args.quiet:  # after the release: a failure says one thing
        to_stderr(_default_method_note(args.privacy, method, args.model))
    return EXIT_OK


def _rank_method(args):
    """``(name, method)``: the registered method that ``rank``'s options ask for, once checked."""
    from ..api import method_name
    from ..methods import get_method

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
    from ..api import PRIVACY, TIE_MODEL_NAMES
    from ..methods import all_methods

    prefix = PRIVACY[privacy] + "_"
    short = method.name.removeprefix(prefix)
    if model in TIE_MODEL_NAMES:
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
    from ..intervals import NO_INTERVALS, TIES_METHODS, supports

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


def _read_rank_input(args, method, name: str, progress: Progress):
    """The first stage: the comparison file, read and validated for ``method``."""
    from ..data.inputs import free_memory_promptly, read_comparisons

    progress.stage("reading")
    if args.low_memory:
        free_memory_promptly()
    table = read_comparisons(
        comparison_input(args),
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


def _release_ranking(args, table, method, name: str, noise, plan: OutputPlan, progress: Progress):
    """The fit and the outputs, as one release of the ``--ledger``; its receipt (or None)."""
    from dataclasses import replace

    # the guarantee actually given (the method's privacy map: 2 eps for the as-published
    # counts); its delta is the ranking's, once the item universe is known
    loss = None
    if args.epsilon is not None:
        declared = {"L": args.max_per_user, "n_items": table.comparisons.n_items}
        loss = method.privacy_loss(args.epsilon, **declared)
    unit = method.privacy_unit if loss is None else loss.unit
    eps_given = None if loss is None else loss.epsilon
    entry = ledger_entry(args, "rank", method.name, unit, method.private, eps_given)
    if entry is not None and method.trust_model == "local":
        raise UsageError(
            "--ledger records releases of raw data: ranking a local release spends no "
            "budget (record the budget where the data were privatized)"
        )
    with ledger_release(args, table, entry, args.budget_unit) as receipt:
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
    from ..api import rank
    from ._release import route_warnings

    with warnings.catch_warnings(record=True) as caught, option_names():
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
        to_stderr(f"warning: {text}")
    return ranking


def _with_intervals(args, ranking, frame, name: str):
    """``frame`` with the intervals of ``--intervals`` (post-processing: no privacy spent).

    The bootstrap's randomness is fresh entropy, or ``--insecure-seed``'s stream.
    Items the release does not locate (``informative`` False) get empty interval
    cells, and standard error says how many and why. The ties methods' intervals
    (:func:`dprank.privacy.private_ties.ties_intervals`) locate every item and leave the tie
    classes to the leaderboard (:func:`_leaderboard`).
    """
    from ..base.seeding import Stream, generator, stable_id

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
    why = _undeclared_users(iv, int(vague.sum()))
    if vague.all():
        to_stderr(
            f"note: --intervals {args.intervals:g}: the release does not locate any of the {n} "
            "items (each rank interval spans at least 90% of the places): "
            + (
                why
                or "the privacy noise outweighs what the comparisons resolve; the interval cells "
                "are left empty (a larger epsilon or more comparisons per item would help)"
            )
        )
    elif vague.any():
        to_stderr(
            f"note: --intervals {args.intervals:g}: {int(vague.sum())} of {n} items are not "
            "located by the release (rank interval over at least 90% of the places); their "
            "interval cells are left empty" + (f": {why}" if why else "")
        )
    iv = iv.drop(columns="informative")
    return frame.merge(iv, on="item", how="left")


def _undeclared_users(iv, not_located: int) -> str:
    """Under individual DP, why the intervals are wide when the users' totals are not declared.

    The intervals hold for every total of comparisons from ``m * min_per_user`` to ``m * L``
    that the release is consistent with (``attrs["totals"]``); where the largest total alone
    would locate more items, the range is what widens them, and declaring the least number
    of comparisons of one user (``--min-per-user``) is what narrows them. Empty otherwise.
    """
    totals = iv.attrs.get("totals") or []
    located = iv.attrs.get("located_per_design") or []
    if len(totals) < 2 or len(located) != len(totals) or located[-1] <= len(iv) - not_located:
        return ""
    return (
        "under individual DP the users' numbers of comparisons are private, so the intervals "
        f"hold for every total from {totals[0]:.0f} to {totals[-1]:.0f} comparisons the "
        f"release is consistent with; at {totals[-1]:.0f} alone {located[-1]} items would be "
        "located: declare the least number of comparisons of one user with --min-per-user K "
        "where it is known"
    )


def _leaderboard(args, ranking, frame):
    """The leaderboard's columns (:mod:`dprank.leaderboard`): the ``--scale``, and with
    intervals the rank upper bound, the tie class and the released vote counts."""
    if args.scale == "logit" and args.intervals is None:
        return frame
    from ..leaderboard import leaderboard_columns  # only where used (its import: ~10 ms)

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
        from ..intervals import TIES_METHODS

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
        (args.out, csv_writer(frame)),
        (sidecar, json_writer(plain(record))),
    ]
    if args.plot is not None:
        outputs.append((args.plot, plot_writer(ranking, args.plot)))
    if args.html is not None:
        outputs.append((args.html, _html_writer(frame, record, args)))
    if args.audit_record is not None:
        audit = {
            **audit_head(args, table),
            **ranking.audit_record(),
            "warnings": getattr(args, "private_warnings", []),
        }
        if method.trust_model == "local":
            eps_user = np.asarray(table.comparisons.user_epsilon)
            audit["user_epsilon"] = {"min": eps_user.min(), "max": eps_user.max()}
        outputs.append((Private(args.audit_record), json_writer(plain(audit))))
    return outputs


def _html_writer(frame, record, args):
    """The self-contained leaderboard page (:func:`dprank.leaderboard.html_page`)."""
    from ..leaderboard import html_page

    name = input_name(args)
    title = f"Leaderboard: {'standard input' if name == '-' else name}"
    if not isinstance(frame, dict):  # empty interval cells: NaN for the page
        frame = {
            k: frame[k].to_numpy(dtype="float64", na_value=np.nan)
            if str(frame[k].dtype) == "Int64"
            else frame[k].to_numpy()
            for k in frame.columns
        }
    return text_writer(html_page(frame, {**record, "intervals_level": args.intervals}, title=title))
