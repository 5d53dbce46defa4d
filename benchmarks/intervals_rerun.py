"""A rerun of the intervals' coverage study on fewer replicates, written as docs' include.

docs/intervals.md shows, beside the coverage study's own table (the target ``intervals``, its
``reps`` replicates per design, docs/includes/intervals_coverage.md), a table of the present
construction from fewer replicates: this script makes it, with the study's own functions
(:func:`dprank_papers.studies.intervals.run_design`, ``summarise``, ``coverage_table``), the
designs, ``n_boot``, targets and root seed of ``config.yaml``'s ``intervals`` section, and the
replicates ``0 .. reps - 1`` of every design (the first replicates of the target's run: the
same seeds)::

    nice -n 10 python benchmarks/intervals_rerun.py --reps 20 --markdown docs/includes

writes docs/includes/intervals_rerun.md (its first line names the command) and prints the
table; ``--csv FILE`` also keeps the summary (one row per design, the columns of
``summarise``), from which ``python -m dprank_papers.docs_generate`` fills the numbers the
page's text quotes (``--csv results/measured/intervals_rerun.csv``, what it reads).
``--from-csv FILE`` writes the table again from a kept summary, running no design.
``--designs`` and ``--n-boot`` make a small run (the tests').
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The include this script writes into the folder of ``--markdown``
INCLUDE = "intervals_rerun.md"


def rerun(section: dict, seed: int, reps: int, designs=None, n_boot=None, log=print):
    """The summary of ``reps`` replicates of each design of ``section`` (config's intervals)."""
    import pandas as pd

    from dprank_papers.studies import intervals as iv

    chosen = iv.selected_designs(section)
    if designs:
        unknown = sorted(set(designs) - set(chosen))
        if unknown:
            raise SystemExit(f"unknown designs {unknown}; config.yaml has {sorted(chosen)}")
        chosen = {name: chosen[name] for name in designs}
    settings = {
        "level": section["level"],
        "n_boot": section["n_boot"] if n_boot is None else n_boot,
        "comparator": section.get("comparator", True),
    }
    frames = []
    for name, spec in chosen.items():
        start = time.perf_counter()
        frames.append(iv.run_design(name, spec, settings, range(reps), seed))
        log(f"# {name}: {reps} replicates in {time.perf_counter() - start:.0f} s")
    frame = pd.concat(frames, ignore_index=True)
    return iv.summarise(frame, chosen, section["target"], section["item_target"])


def include_text(summary, command: str, note: str) -> str:
    """The include: the benchmark header naming ``command`` (and ``note``), then the coverage
    table of ``summary``."""
    from dprank_papers.docs_includes import benchmark_header
    from dprank_papers.studies.intervals import coverage_table

    return benchmark_header(command, note) + coverage_table(summary)


def read_summary(path: Path):
    """A summary kept by ``--csv`` (the columns of ``summarise``), with its ``meets`` a bool."""
    from dprank.base.io import read_csv

    if not path.is_file():
        raise SystemExit(f"--from-csv: {path} does not exist (write it with --csv FILE)")
    summary = read_csv(path)
    if "meets" in summary:
        summary["meets"] = summary["meets"].astype(str).str.lower() == "true"
    return summary


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--reps", type=int, default=20, help="replicates per design (20)")
    parser.add_argument("--designs", nargs="+", help="only these designs (default: all)")
    parser.add_argument("--n-boot", type=int, help="bootstrap releases (default: config's)")
    parser.add_argument("--config", type=Path, default=ROOT / "config.yaml", help="config file")
    parser.add_argument(
        "--markdown", type=Path, metavar="DIR", help=f"write {INCLUDE} into DIR (docs/includes)"
    )
    parser.add_argument("--csv", type=Path, help="also write the summary to this CSV file")
    parser.add_argument(
        "--from-csv",
        type=Path,
        metavar="FILE",
        help="run nothing: the table of a summary kept by --csv (with --markdown: its include)",
    )
    args = parser.parse_args(argv)
    if args.reps < 2:
        parser.error("--reps must be at least 2")
    if args.from_csv and (args.csv or args.designs or args.n_boot is not None):
        parser.error("--from-csv runs nothing: it takes no --csv, --designs or --n-boot")
    import yaml

    config = yaml.safe_load(args.config.read_text())
    section, seed = config["intervals"], int(config["seed"])
    n_boot = section["n_boot"] if args.n_boot is None else args.n_boot
    if args.from_csv:
        summary = read_summary(args.from_csv)
        reps = "/".join(str(r) for r in sorted(set(summary["replicates"].astype(int))))
        note = f"the table of {args.from_csv.as_posix()}, {reps} replicates per design"
    else:
        load = os.getloadavg()[0]
        summary = rerun(section, seed, args.reps, args.designs, args.n_boot)
        note = (
            f"{args.reps} replicates per design, n_boot {n_boot}, seed {seed} (config.yaml's "
            f"intervals section), the study's functions; load {load:.1f} as it started"
        )
    from dprank_papers.studies.intervals import coverage_table

    print(coverage_table(summary), end="")
    if args.csv:
        from dprank.base.io import write_csv

        write_csv(args.csv, summary)
    if args.markdown:
        words = sys.argv[1:] if argv is None else list(argv)
        command = "python benchmarks/intervals_rerun.py " + " ".join(map(str, words))
        path = args.markdown / INCLUDE
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(include_text(summary, command, note))
        tmp.replace(path)
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
