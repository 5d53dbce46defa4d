"""Runtime of each Paper A figure and each Paper B (B2) experiment from the ``benchmark:`` files.

Prints the Markdown tables that ``make docs-includes`` writes into
``docs/includes/runtime_paper_{a,b2}.md`` (the logic is ``dprank_papers.docs_includes``)::

    python benchmarks/runtime_table.py                      # config.yaml
    python benchmarks/runtime_table.py --configfile .test/config.yaml

Job seconds are summed: with ``--cores N`` the wall time of a figure is about
the sum divided by N (every job is single-threaded).
"""

from __future__ import annotations

import argparse
from pathlib import Path

import yaml

from dprank_papers._papers import load_papers
from dprank_papers.docs_includes import runtime_paper_a_table, runtime_paper_b2_table

BENCH = Path("results/benchmarks")
PAPERS = Path(__file__).resolve().parents[1] / "workflow" / "papers"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--configfile", default="config.yaml")
    args = parser.parse_args(argv)
    config = yaml.safe_load(Path(args.configfile).read_text())
    config.setdefault("protocols", ["paper", "authors"])
    # what each paper shows, as the workflow loads it (workflow/papers/)
    papers = load_papers(PAPERS, PAPERS.parent / "schemas" / "papers.schema.yaml", config)
    run = {"protocols": config["protocols"], "chunk_size": config["chunk_size"]}
    print(runtime_paper_a_table(papers["paper_a"]["items"], config, BENCH, **run))
    b2_items = papers["paper_b2"]["items"]
    print(runtime_paper_b2_table(config["paper_b2"], b2_items, BENCH, chunk_size=run["chunk_size"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
