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
``summarise``). ``--designs`` and ``--n-boot`` make a small run (the tests').
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


def include_text(summary, command: str, reps: int, seed: int, n_boot: int, load: float) -> str:
    """The include: the benchmark header naming ``command``, then the coverage table."""
    from dprank_papers.docs_includes import benchmark_header
    from dprank_papers.studies.intervals import coverage_table

    note = (
        f"{reps} replicates per design, n_boot {n_boot}, seed {seed} (config.yaml's intervals "
        f"section), the study's functions; load {load:.1f} as it started"
    )
    return benchmark_header(command, note) + coverage_table(summary)


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
    args = parser.parse_args(argv)
    if args.reps < 2:
        parser.error("--reps must be at least 2")
    import yaml

    config = yaml.safe_load(args.config.read_text())
    section, seed = config["intervals"], int(config["seed"])
    load = os.getloadavg()[0]
    summary = rerun(section, seed, args.reps, args.designs, args.n_boot)
    from dprank_papers.studies.intervals import coverage_table

    print(coverage_table(summary), end="")
    if args.csv:
        from dprank.base.io import write_csv

        write_csv(args.csv, summary)
    if args.markdown:
        words = sys.argv[1:] if argv is None else list(argv)
        command = "python benchmarks/intervals_rerun.py " + " ".join(map(str, words))
        n_boot = section["n_boot"] if args.n_boot is None else args.n_boot
        path = args.markdown / INCLUDE
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(include_text(summary, command, args.reps, seed, n_boot, load))
        tmp.replace(path)
        print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
