"""``dprank datasets``, ``dprank methods`` and ``dprank ledger``."""

from __future__ import annotations

import re
import tempfile
from contextlib import ExitStack

from ._common import EXIT_OK
from ._output import OutputPlan, UsageError, csv_writer, to_stderr, write_stdout


def cmd_datasets(args) -> int:
    from ..data.exports import EXPORTABLE, export_frame, registry

    if args.action == "list":
        reg = registry(args.registry)
        lines = []
        for name, ds in reg.items():
            if name in EXPORTABLE:
                first = re.split(r"(?<=[a-z)])\.\s+(?=[A-Z])", ds.description)[0].rstrip(".")
                lines.append(f"{name}\t{first}.\n")
        write_stdout("".join(lines))
        return EXIT_OK
    if args.name is None or args.out is None:
        raise UsageError("datasets export needs NAME and --out FILE.csv")
    plan = OutputPlan({}, {"--out": args.out})
    with ExitStack() as stack:
        data_dir = args.data_dir
        if data_dir is None:
            data_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="dprank-data-"))
        frame = export_frame(args.name, data_dir, registry_path=args.registry)
        plan.write([(args.out, csv_writer(frame))])
    return EXIT_OK


def cmd_methods(args) -> int:
    from ..methods import all_methods

    rows = [("name", "label", "paper", "algorithm", "privacy unit", "trust model")]
    for m in all_methods():
        rows.append((m.name, m.label, m.paper, m.algorithm, m.privacy_unit, m.trust_model))
    widths = [max(len(r[k]) for r in rows) for k in range(len(rows[0]) - 1)]
    lines = ("  ".join(r[k].ljust(w) for k, w in enumerate(widths)) + "  " + r[-1] for r in rows)
    write_stdout("".join(line + "\n" for line in lines))
    return EXIT_OK


def cmd_ledger(args) -> int:
    from ..ledger import Ledger, main_ledger

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
        to_stderr(f"ledger {args.file}: budget at the {args.unit} level set to {args.set_budget!r}")
    elif args.migrate:
        kept = ledger.migrate()
        to_stderr(
            f"ledger {args.file}: migrated to version 2 with its {kept} releases; the key is in "
            f"{ledger.keys.path}, the old file kept as {args.file}.v1"
        )
    elif args.forget:
        gone = ledger.forget()
        to_stderr(
            f"ledger {args.file}: {'forgot its records' if gone else 'nothing to forget'}; a "
            "new ledger may start here"
        )
    else:
        write_stdout(main_ledger(args.file))
    return EXIT_OK
