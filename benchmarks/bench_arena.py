"""Benchmark: an arena leaderboard end to end, against ``arena-rank`` on the same votes.

Two measurements, each on one core, interleaved round by round, every contender in a new
process (start-up included), best of ``--repeats``:

1. **The snapshot** (``chatbotarena_20240814.json``, 129 models, 1.67 M votes as a per-pair
   count table): ``dprank rank`` with Davidson's model, edge DP at eps 1, bootstrap
   intervals, the Elo scale and the HTML page (read, fit, intervals, HTML), and the
   non-private fit alone; against ``arena-rank`` (LMArena's Bradley-Terry in JAX, ties and
   both-bad ties as half wins) fitting the same table and computing its sandwich intervals.
2. **Individual votes** (``--votes``, default 3 M): a battle file ``model_a, model_b,
   winner`` drawn from the snapshot's pairs and outcome shares; ``dprank rank --privacy
   none --model davidson`` end to end against reading the file (``pd.read_csv``, the floor
   of any tool) and against ``arena-rank``'s own pipeline (``pd.read_csv``,
   ``PairDataset.from_pandas``, the fit and its intervals).

It prints the seconds of each and the ratios. Run::

    DPRANK_DATA_MIRROR=/path/to/mirror OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 \\
        python benchmarks/bench_arena.py [--votes 3000000] [--repeats 3]

``arena-rank`` and ``jax`` come with the ``bench`` extra (``make setup``). Timings depend
on the machine and its load; only ratios from one run mean much. Nothing here is asserted
in the tests.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ONE_CORE = {
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1",
    "JAX_PLATFORMS": "cpu",
}

ARENA_RANK = r"""
import sys, json
import numpy as np, pandas as pd
import jax.numpy as jnp
from arena_rank.models.bradley_terry import BradleyTerry
from arena_rank.utils.data_utils import PairDataset
path = sys.argv[1]
if path.endswith(".json"):
    doc = json.load(open(path))
    rows = [(i, j, y, k) for (i, j), c in zip(doc["X"], doc["Y"])
            for y, k in ((1.0, c[0]), (0.0, c[1]), (0.5, c[2] + c[3])) if k > 0]
    arr = np.array(rows, dtype=float)
    counts = jnp.array(arr[:, 3])
    data = PairDataset(competitors=doc["models"], pairs=jnp.array(arr[:, :2].astype(np.int32)),
                       outcomes=jnp.array(arr[:, 2]), counts=counts,
                       weights=jnp.ones_like(counts), opt_weights=counts)
else:
    data = PairDataset.from_pandas(pd.read_csv(path))
model = BradleyTerry(len(data.competitors))
out = model.compute_ratings_and_cis(data)
print(len(out["ratings"]))
"""

READ_FLOOR = "import sys, pandas as pd; print(len(pd.read_csv(sys.argv[1])))"


def make_votes(path: Path, snapshot: Path, n_votes: int, seed: int = 2026) -> None:
    """A battle file of ``n_votes`` votes drawn from the snapshot's pairs and outcome shares."""
    import pandas as pd

    from dprank.data.arena import OUTCOMES, read_arena

    votes = read_arena(snapshot)
    table = np.stack([votes.wins_a, votes.wins_b, votes.ties, votes.both_bad], axis=1)
    p = table.ravel() / table.sum()
    rng = np.random.default_rng(seed)
    cell = rng.choice(p.size, size=n_votes, p=p)
    pair, outcome = np.divmod(cell, 4)
    swap = rng.random(n_votes) < 0.5  # either model may be model_a
    a, b = votes.a[pair], votes.b[pair]
    first, second = np.where(swap, b, a), np.where(swap, a, b)
    flipped = np.where(swap & (outcome < 2), 1 - outcome, outcome)
    models = votes.models.astype(object)
    frame = pd.DataFrame(
        {
            "model_a": models[first],
            "model_b": models[second],
            "winner": np.asarray(OUTCOMES, dtype=object)[flipped],
        }
    )
    frame.to_csv(path, index=False)


def timed(argv, env) -> float:
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def _dprank() -> str:
    exe = Path(sys.executable).with_name("dprank")
    return str(exe) if exe.exists() else "dprank"


def bench(contenders: dict, repeats: int, env) -> dict:
    best = {name: np.inf for name in contenders}
    for _ in range(repeats):
        for name, argv in contenders.items():  # interleaved: the load moves
            best[name] = min(best[name], timed(argv, env))
    return best


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--votes", type=int, default=3_000_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--workdir", default=None, help="keep the files here (default: temp)")
    args = parser.parse_args(argv)
    mirror = os.environ.get("DPRANK_DATA_MIRROR")
    if not mirror:
        parser.error("set DPRANK_DATA_MIRROR to the data mirror (the snapshot's folder)")
    snapshot = Path(mirror) / "chatbot_arena" / "chatbotarena_20240814.json"
    env = {**os.environ, **ONE_CORE}
    work = Path(args.workdir or tempfile.mkdtemp(prefix="bench-arena-"))
    work.mkdir(parents=True, exist_ok=True)
    dprank = _dprank()
    py = sys.executable
    print(f"one core, best of {args.repeats}, interleaved; files in {work}")

    lb = [dprank, "rank", str(snapshot), "--model", "davidson", "--quiet"]
    snap = {
        "dprank edge eps 1 + intervals + HTML": [
            *lb, "--privacy", "edge", "--epsilon", "1", "--scale", "elo",
            "--html", str(work / "lb.html"), "--out", str(work / "lb.csv"),
        ],
        "dprank non-private fit": [*lb, "--privacy", "none", "--out", str(work / "np.csv")],
        "arena-rank fit + sandwich intervals": [py, "-c", ARENA_RANK, str(snapshot)],
    }  # fmt: skip
    best = bench(snap, args.repeats, env)
    print("\nthe snapshot (1.67 M votes, 129 models, per-pair counts):")
    ref = best["arena-rank fit + sandwich intervals"]
    for name, t in best.items():
        print(f"  {name:<40} {t:7.2f} s   {t / ref:5.2f}x arena-rank")

    votes = work / f"votes_{args.votes}.csv"
    if not votes.exists():
        make_votes(votes, snapshot, args.votes)
    size = votes.stat().st_size / 2**20
    many = {
        "read (pd.read_csv)": [py, "-c", READ_FLOOR, str(votes)],
        "dprank non-private Davidson": [
            dprank, "rank", str(votes), "--privacy", "none", "--model", "davidson", "--quiet",
            "--out", str(work / "votes_rank.csv"),
        ],
        "arena-rank read + fit + intervals": [py, "-c", ARENA_RANK, str(votes)],
    }  # fmt: skip
    best = bench(many, args.repeats, env)
    floor = best["read (pd.read_csv)"]
    print(f"\n{args.votes:,} individual votes ({size:.0f} MiB battle file):")
    for name, t in best.items():
        print(f"  {name:<40} {t:7.2f} s   {t / floor:5.2f}x reading")
    return 0


if __name__ == "__main__":
    sys.exit(main())
