"""``dprank privatize``: each user's local-DP release of a comparison file."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np

from ._common import (
    EXIT_OK,
    audit_head,
    comparison_input,
    ledger_entry,
    ledger_release,
    noise_source,
)
from ._output import OutputPlan, Private, UsageError, csv_writer, json_writer, plain, to_stderr


def cmd_privatize(args) -> int:
    from ..data.inputs import free_memory_promptly, read_comparisons
    from ._release import declared_items

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
            "--audit-record": Private(args.audit_record),
            "--ledger": args.ledger,
        },
        external=("--ledger",),
    )
    noise = noise_source(args, args.mechanism, "dprank.privatize")
    universe = declared_items(args, "privatize")
    if args.low_memory:
        free_memory_promptly()
    table = read_comparisons(
        comparison_input(args),
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
    entry = ledger_entry(
        args, "privatize", args.released_mechanism, "comparison", True, np.max(eps_user)
    )
    # a user-level budget by default where the users' bound is declared (L eps per user)
    unit = args.budget_unit or ("user" if args.max_per_user is not None else None)
    with ledger_release(args, table, entry, unit) as receipt:
        outputs = _privatize_outputs(args, table, c, eps_user, noise, universe, record, facts)
        # the ledger's record is written and fsync'ed before any output becomes visible
        plan.write(outputs, before_commit=None if receipt is None else receipt.commit)
    if receipt is not None and not args.quiet:
        to_stderr(f"ledger {args.ledger}: {receipt.describe()}")
    if args.out != "-" and not args.quiet:
        to_stderr(
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
    from ..data.items import restrict_to_items
    from ..privacy.release import bound_user_contributions

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

    from ..privacy.release import local_release
    from ._release import hashing_writer, privatize_record, record_writer

    mechanism = args.released_mechanism
    aggregate = table.has_count and mechanism != "laplace"
    rel = local_release(c, eps_user, noise, mechanism, aggregate=aggregate)
    labels = np.asarray(c.labels).astype(str)
    if rel.ties:  # votes with ties: released in the arena's layout (dprank.data.arena)
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
    outputs = [(args.out, hashing_writer(csv_writer(pd.DataFrame(columns)), sink))]
    if record is not None:
        outputs.append((record, record_writer(public, sink)))
    if args.audit_record is not None:
        audit = {**audit_head(args, table), **facts}
        outputs.append((Private(args.audit_record), json_writer(plain(audit))))
    return outputs
