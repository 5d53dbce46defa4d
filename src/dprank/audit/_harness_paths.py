"""The privacy harness's release paths: neighbouring data sets, runners, declarations.

Each path is one :class:`ReleasePath` registered with :func:`register_path`; adding a
release path to the harness is one more declaration in :func:`_declare_paths` (or a
``register_path`` call anywhere). Private: see :mod:`dprank.audit.harness`.
"""

from __future__ import annotations

import contextlib
import csv
import functools
import io
import itertools
import json
import tempfile
import warnings
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np

from ..base import _checks
from ..data.comparisons import Comparisons
from ..privacy.noise import NoiseSource
from ._harness_core import (
    Channel,
    Game,
    Neighbours,
    Output,
    ReleasePath,
    register_path,
)

# --------------------------------------------------------------------------- data sets


def _labels(n: int) -> np.ndarray:
    return np.array([f"item{k}" for k in range(n)])


def _comparisons(n: int, pairs, users=None) -> Comparisons:
    """Records ``winner beats loser`` for each ``(winner, loser)`` of ``pairs``."""
    w = np.array([p[0] for p in pairs], dtype=np.int64)
    lo = np.array([p[1] for p in pairs], dtype=np.int64)
    return Comparisons(
        n_items=n,
        i=w,
        j=lo,
        y=np.ones(w.size),
        count=np.ones(w.size),
        user=None if users is None else np.asarray(users, dtype=np.int64),
        labels=_labels(n),
    )


def _tournament(n: int) -> list[tuple[int, int]]:
    """Every pair once, the lower index winning."""
    return [(a, b) for a, b in itertools.combinations(range(n), 2)]


def edge_flip(n: int = 5) -> Callable[[float], list[Neighbours]]:
    """Edge DP: a complete tournament on ``n`` items, and the same with ``(0, 1)`` flipped.

    Returns ``eps -> [Neighbours]`` (the pair does not depend on ``eps``); ``n >= 2``.
    """
    _checks.count(n, "n", 2)

    def make(eps):
        pairs = _tournament(n)
        flipped = [(1, 0) if p == (0, 1) else p for p in pairs]
        return [Neighbours("flip (0, 1)", _comparisons(n, pairs), _comparisons(n, flipped))]

    return make


def user_replace(
    n: int = 5, L: int = 2, heavy: bool = False
) -> Callable[[float], list[Neighbours]]:
    """Individual DP: every other user makes one comparison of a tournament; the target user's
    ``L`` comparisons are ``0 beats 1`` in ``D0`` and ``n-1 beats n-2, n-1 beats n-3, ...``
    in ``D1`` (other pairs, other winners: the gradient and the Hessian both move).
    ``heavy``: also a pair where the target makes ``3 L`` comparisons ``1 beats 0`` in
    ``D1`` (bounded to ``L`` at random by the release). ``n >= 3``, ``L >= 1``."""
    _checks.count(n, "n", 3)
    _checks.count(L, "L", 1)
    _checks.flag(heavy, "heavy")

    def make(eps):
        others = _tournament(n)
        users = np.arange(len(others)) + 1
        t0 = tuple([(0, 1)] * L)
        t1 = tuple((n - 1, n - 2 - (k % (n - 2))) for k in range(L))

        def data(target):
            pairs = list(target) + others
            return _comparisons(n, pairs, np.concatenate([np.zeros(len(target)), users]))

        out = [
            Neighbours(
                f"replace user 0 (L = {L})",
                data(t0),
                data(t1),
                t0,
                t1,
                _comparisons(n, others, users - 1),
            )
        ]
        if heavy:  # identical comparisons: the attacker knows the L kept
            t2, kept = tuple([(1, 0)] * (3 * L)), tuple([(1, 0)] * L)
            others_c = _comparisons(n, others, users - 1)
            out.append(
                Neighbours(
                    f"heavy user 0 (3L = {3 * L})",
                    data(t0),
                    data(t2),
                    t0,
                    kept,
                    others_c,
                    view1=data(kept),
                )
            )
        return out

    return make


def one_shot_tournaments(n: int = 5) -> Callable[[float], list[Neighbours]]:
    """Edge DP for the one-shot top-1: the worst flipped tournament pair at ``eps`` (exhaustive
    over the tournaments on ``n`` items, ``3 <= n <= 6``)."""
    if _checks.count(n, "n", 3) > 6:
        raise ValueError(f"n must be at most 6 (every tournament is enumerated), got {n}")

    def make(eps):
        from . import one_shot_worst_neighbours

        w0, w1, _ = one_shot_worst_neighbours(n, eps)
        c0 = Comparisons.from_wins(w0)
        c1 = Comparisons.from_wins(w1)
        relabel = [_relabel(c, _labels(n)) for c in (c0, c1)]
        return [Neighbours("worst flip (exhaustive)", *relabel)]

    return make


def _relabel(c: Comparisons, labels) -> Comparisons:
    """``c`` with item labels ``labels``."""
    return Comparisons(
        n_items=c.n_items, i=c.i, j=c.j, y=c.y, count=c.count, user=c.user, labels=labels
    )


def local_flip(n: int = 4, users: int = 4) -> Callable[[float], list[Neighbours]]:
    """Local DP per comparison: ``users`` users each compare every pair once (lower index
    wins); in ``D1`` user 0's comparison of ``(0, 1)`` is flipped. ``n >= 2``, ``users >= 1``."""
    _checks.count(n, "n", 2)
    _checks.count(users, "users", 1)

    def make(eps):
        pairs = _tournament(n)
        rows = [(u, p) for u in range(users) for p in pairs]
        base = [p for _, p in rows]
        who = [u for u, _ in rows]
        flipped = [(1, 0) if (u, p) == (0, (0, 1)) else p for u, p in rows]
        return [
            Neighbours(
                "flip user 0's (0, 1)", _comparisons(n, base, who), _comparisons(n, flipped, who)
            )
        ]

    return make


def _tie_votes(n: int, per_pair: int, extra=(), users=None) -> Comparisons:
    """Votes with ties (``ties=True``): every pair of ``n`` items voted ``per_pair`` times (a
    win of the first, a tie, a win of the second in turn), after the ``extra`` votes
    ``(i, j, y)``. ``users``: ``"each"`` gives every base vote its own voter (the extra
    votes are voter 0's), ``"all"`` gives each voter (``per_pair`` of them) one vote on
    every pair, the extra votes voter 0's too."""
    a, b = np.triu_indices(n, 1)
    i, j = np.repeat(a, per_pair), np.repeat(b, per_pair)
    y = np.tile([1.0, 0.5, 0.0], i.size // 3 + 1)[: i.size]
    extra = np.asarray(extra, dtype=np.float64).reshape(-1, 3)
    user = None
    if users == "each":
        user = np.concatenate([np.zeros(len(extra)), np.arange(i.size) + 1])
    elif users == "all":
        user = np.concatenate([np.zeros(len(extra)), np.tile(np.arange(per_pair), a.size)])
    return Comparisons(
        n_items=n,
        i=np.concatenate([extra[:, 0], i]).astype(np.int64),
        j=np.concatenate([extra[:, 1], j]).astype(np.int64),
        y=np.concatenate([extra[:, 2], y]),
        count=np.ones(len(extra) + i.size),
        user=None if user is None else user.astype(np.int64),
        labels=_labels(n),
        ties=True,
    )


def ties_flip(n: int = 4, per_pair: int = 3) -> Callable[[float], list[Neighbours]]:
    """Edge DP for votes with ties: every pair voted ``per_pair`` times; one more vote on
    ``(0, 1)`` is a win of 0 in ``D0`` and a win of 1 (or a tie) in ``D1``. ``n >= 2``."""
    _checks.count(n, "n", 2)
    _checks.count(per_pair, "per_pair", 1)

    def make(eps):
        d0 = _tie_votes(n, per_pair, [(0, 1, 1.0)])
        return [
            Neighbours(f"vote on (0, 1): {name}", d0, _tie_votes(n, per_pair, [(0, 1, y)]))
            for name, y in (("win -> loss", 0.0), ("win -> tie", 0.5))
        ]

    return make


def ties_user_replace(n: int = 4, L: int = 2) -> Callable[[float], list[Neighbours]]:
    """Voter-level DP for votes with ties: every other voter casts one vote; the target voter
    0 casts ``L`` wins of 0 over 1 in ``D0``, and in ``D1`` ``L`` ties of ``n - 1`` and
    ``n - 2`` (other pairs, other outcomes), or ``3 L`` wins of 1 over 0 (a heavy voter,
    bounded to ``L`` at random by the release). ``n >= 3``, ``L >= 1``."""
    _checks.count(n, "n", 3)
    _checks.count(L, "L", 1)

    def make(eps):
        d0 = _tie_votes(n, 2, [(0, 1, 1.0)] * L, users="each")
        moved = _tie_votes(n, 2, [(n - 1, n - 2, 0.5)] * L, users="each")
        heavy = _tie_votes(n, 2, [(0, 1, 0.0)] * (3 * L), users="each")
        kept = _tie_votes(n, 2, [(0, 1, 0.0)] * L, users="each")
        return [
            Neighbours(f"replace voter 0 (L = {L})", d0, moved),
            Neighbours(f"heavy voter 0 (3L = {3 * L})", d0, heavy, view1=kept),
        ]

    return make


def ties_local_flip(n: int = 3, voters: int = 3) -> Callable[[float], list[Neighbours]]:
    """Local DP for votes with ties: ``voters`` voters each vote on every pair; in ``D1``
    voter 0's vote on ``(0, 1)`` is a win of 1 instead of a win of 0. ``n >= 2``."""
    _checks.count(n, "n", 2)
    _checks.count(voters, "voters", 1)

    def make(eps):
        d0 = _tie_votes(n, voters, [(0, 1, 1.0)], users="all")
        d1 = _tie_votes(n, voters, [(0, 1, 0.0)], users="all")
        return [Neighbours("voter 0's vote on (0, 1): win -> loss", d0, d1)]

    return make


# --------------------------------------------------------------------------- running a path


def seeded_source(rng: np.random.Generator) -> NoiseSource:
    """A source of ``rng``'s bits that reports itself secure: the releases and their records
    are the shipped ones, only the bits are reproducible (the harness's own use)."""
    source = NoiseSource.from_seed(rng)
    source.secure = True
    return source


def seeded_system_source(source: NoiseSource):
    """A context manager: within it, :meth:`NoiseSource.system` returns ``source`` (the command
    runs as shipped, on reproducible bits).

    Raises
    ------
    TypeError
        If ``source`` is not a :class:`dprank.privacy.noise.NoiseSource`.
    """
    _checks.instance(source, "source", NoiseSource, "a dprank.privacy.noise.NoiseSource")
    return _system_answers(source)


@contextlib.contextmanager
def _system_answers(source: NoiseSource):
    original = NoiseSource.__dict__["system"]
    NoiseSource.system = classmethod(lambda cls: source)
    try:
        yield
    finally:
        NoiseSource.system = original


def _write_csv(c: Comparisons, path: Path, users: bool) -> None:
    if c.ties:
        _write_arena(c, path, users)
        return
    labels = np.asarray(c.labels).astype(str)
    lines = ["winner,loser" + (",user" if users else "")]
    for r in range(c.n_records):
        won = c.y[r] == 1.0
        w, lo = (c.i[r], c.j[r]) if won else (c.j[r], c.i[r])
        for _ in range(int(c.count[r])):
            row = f"{labels[w]},{labels[lo]}"
            lines.append(row + (f",user{int(c.user[r])}" if users else ""))
    path.write_text("\n".join(lines) + "\n")


def _write_arena(c: Comparisons, path: Path, users: bool) -> None:
    """Votes with ties as an arena battle file (``model_a,model_b,winner[,judge]``)."""
    labels = np.asarray(c.labels).astype(str)
    winner = {1.0: "model_a", 0.5: "tie", 0.0: "model_b"}
    lines = ["model_a,model_b,winner" + (",judge" if users else "")]
    for r in range(c.n_records):
        row = f"{labels[c.i[r]]},{labels[c.j[r]]},{winner[float(c.y[r])]}"
        row += f",user{int(c.user[r])}" if users else ""
        lines += [row] * int(c.count[r])
    path.write_text("\n".join(lines) + "\n")


def _run_command(argvs: list[list[str]]) -> Channel:
    """Run the ``dprank`` command lines in-process; the last one's channels."""
    from .. import cli

    status, out, err = 0, io.StringIO(), io.StringIO()
    for argv in argvs:
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                status = cli.main(argv)
            except SystemExit as exc:  # argparse
                status = int(exc.code or 0)
        if status != 0:
            break
    return Channel(status, out.getvalue().encode(), err.getvalue().encode(), {})


def _files(workdir: Path, exclude: Sequence[str]) -> dict[str, bytes]:
    return {
        p.name: p.read_bytes()
        for p in sorted(workdir.iterdir())
        if p.is_file() and p.name not in exclude
    }


def _read_ranking(workdir: Path, nb: Neighbours):
    """Scores and ranks by item index from ``ranking.csv`` (and its record)."""
    labels = list(np.asarray(nb.d0.labels).astype(str))
    n = len(labels)
    values, ranks = np.full(n, np.nan), None
    path = workdir / "ranking.csv"
    record = {}
    if path.exists():
        rows = list(csv.DictReader(io.StringIO(path.read_text())))
        ranks = np.full(n, len(rows) + 1.0)
        for row in rows:
            k = labels.index(row["item"])
            ranks[k] = float(row["rank"])
            if "score" in row:
                values[k] = float(row["score"])
    if (workdir / "ranking.json").exists():
        record = json.loads((workdir / "ranking.json").read_text())
    return values, ranks, record


def _read_release(workdir: Path, nb: Neighbours):
    """The outcomes of ``privatize``'s file, in row order."""
    path = workdir / "release.csv"
    if not path.exists():
        return np.full(nb.d0.n_records, np.nan), None, {}
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    return np.array([float(r["outcome"]) for r in rows]), None, {}


def _read_release3(workdir: Path, nb: Neighbours):
    """The outcomes (1, 1/2, 0 for model_a, tie, model_b) of ``privatize``'s arena file, one per
    vote in its canonical order (a row with a ``count`` stands for that many votes)."""
    path = workdir / "release.csv"
    if not path.exists():
        return np.full(nb.d0.n_records, np.nan), None, {}
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    value = {"model_a": 1.0, "tie": 0.5, "model_b": 0.0}
    votes = [[value[r["winner"]]] * int(r.get("count") or 1) for r in rows]
    return np.array([v for row in votes for v in row]), None, {}


def _one_run_command(game: Game, data: Path, workdir: Path) -> Output:
    for p in workdir.iterdir():
        if p.is_file() and p.name not in (data.name, "items.csv"):
            p.unlink()
    channel = _run_command(game.path.command(data, game.eps, workdir))
    files = _files(workdir, exclude=[data.name, "input.csv", "items.csv"])
    channel = Channel(channel.exit_status, channel.stdout, channel.stderr, files)
    values, ranks, record = (game.path.read or _read_ranking)(workdir, game.neighbours)
    return Output(values, ranks, record, channel)


def game_runs(game: Game, data: Comparisons, size: int, source: NoiseSource) -> list[Output]:
    """``size`` runs of the game's path on ``data`` (``via`` the API or the command)."""
    if game.via == "api":
        return [game.path.api(data, game.eps, source) for _ in range(size)]
    users = data.user is not None
    with tempfile.TemporaryDirectory(prefix="dprank-harness-") as tmp:
        workdir = Path(tmp)
        path = workdir / "input.csv"
        _write_csv(data, path, users)
        _items_file(data, workdir)
        with seeded_system_source(source):
            return [_one_run_command(game, path, workdir) for _ in range(size)]


# --------------------------------------------------------------------------- the release paths


@functools.cache
def _declares_items() -> tuple[bool, bool]:
    """Whether ``dprank rank`` takes ``--items FILE`` and :func:`dprank.rank` ``items=``.

    Where they do, the harness declares every game's items public (all items of both data
    sets, the same for both), as a data owner would.
    """
    import inspect

    from .. import cli
    from ..api import rank

    parser = cli.build_parser()
    subparsers = [a for a in parser._actions if hasattr(a, "choices") and a.choices]
    rank_parser = next(a.choices["rank"] for a in subparsers if "rank" in a.choices)
    return "--items" in rank_parser._option_string_actions, "items" in inspect.signature(
        rank
    ).parameters


def _items_file(data: Comparisons, workdir: Path) -> Path:
    """The declared item set: a CSV with a column ``item``, one label per row."""
    path = workdir / "items.csv"
    path.write_text("item\n" + "".join(f"{x}\n" for x in np.asarray(data.labels).astype(str)))
    return path


def _rank_api(options: Mapping) -> Callable:
    def run(data: Comparisons, eps: float, noise: NoiseSource) -> Output:
        from ..api import rank

        kw = {
            k: options[k]
            for k in ("method", "model", "max_per_user", "top_k", "as_published")
            if k in options
        }
        if _declares_items()[1]:
            kw["items"] = list(np.asarray(data.labels).astype(str))
        with warnings.catch_warnings():  # the as-published counts warn on every run
            warnings.simplefilter("ignore", UserWarning)
            r = rank(data, privacy=options["privacy"], epsilon=eps, rng=noise, **kw)
        return _ranking_output(r)

    return run


def _ranking_output(r) -> Output:
    ranks = r.ranks.astype(np.float64)
    values = r.scores.copy()
    if not r.fit.scores_released:  # the one-shot method: only its top k, in order
        values = np.full(values.size, np.nan)
        ranks = np.where(ranks <= r.top_k, ranks, r.top_k + 1.0)
    return Output(values, ranks, r.record())


def _rank_argv(options: Mapping, data: Path, eps, out: Path) -> list[str]:
    argv = ["rank", str(data), "--privacy", options["privacy"], "--out", str(out)]
    if eps is not None:
        argv += ["--epsilon", repr(float(eps))]
    for key, flag in (
        ("method", "--method"),
        ("model", "--model"),
        ("max_per_user", "--max-per-user"),
        ("top_k", "--top-k"),
        ("intervals", "--intervals"),  # post-processing: the intervals and their note
        ("intervals_method", "--intervals-method"),
        ("min_per_user", "--min-per-user"),
    ):
        if key in options:
            argv += [flag, str(options[key])]
    if options.get("as_published"):
        argv.append("--as-published")
    items = Path(out).parent / "items.csv"
    if items.exists() and _declares_items()[0]:
        argv += ["--items", str(items)]
    return argv


def _rank_command(options: Mapping) -> Callable:
    def argvs(data: Path, eps: float, workdir: Path) -> list[list[str]]:
        return [_rank_argv(options, data, eps, workdir / "ranking.csv")]

    return argvs


def _privatize_argv(mechanism: str, data: Path, eps: float, out: Path) -> list[str]:
    argv = ["privatize", str(data), "--epsilon", repr(float(eps)), "--mechanism", mechanism]
    items = Path(out).parent / "items.csv"
    if items.exists() and _declares_items()[0]:
        argv += ["--items", str(items)]  # declared, as dprank privatize requires
    return [*argv, "--out", str(out)]


def _privatize_api(mechanism: str) -> Callable:
    def run(data: Comparisons, eps: float, noise: NoiseSource) -> Output:
        from ..privacy.release import local_release

        rel = local_release(data, np.full(data.n_users, eps), noise, mechanism)
        return Output(np.asarray(rel.y, dtype=np.float64), None, {})

    return run


def _local_rank_api(mechanism: str, method: str, model: str = "btl") -> Callable:
    def run(data: Comparisons, eps: float, noise: NoiseSource) -> Output:
        from ..api import rank
        from ..privacy.release import local_release

        rel = local_release(data, np.full(data.n_users, eps), noise, mechanism)
        kw = {"items": list(np.asarray(data.labels).astype(str))} if _declares_items()[1] else {}
        r = rank(rel, privacy="local", method=method, model=model, rng=noise, **kw)
        return _ranking_output(r)

    return run


def _local_rank_command(mechanism: str, method: str, model: str = "btl") -> Callable:
    def argvs(data: Path, eps: float, workdir: Path) -> list[list[str]]:
        release = workdir / "release.csv"
        opts = {"privacy": "local", "method": method}
        if model != "btl":
            opts["model"] = model
        return [
            _privatize_argv(mechanism, data, eps, release),
            _rank_argv(opts, release, None, workdir / "ranking.csv"),
        ]

    return argvs


def _pure(eps: float) -> tuple[float, float]:
    """The claim of a local release (``dprank privatize``): each comparison ``eps``-LDP."""
    return float(eps), 0.0


def _method_claim(options: Mapping, **declared) -> Callable[[float], tuple[float, float]]:
    """The claim of a ``dprank rank`` path: its method's privacy map at the requested ``eps``
    (:meth:`dprank.methods.Method.privacy_loss`), with the path's declared parameters."""

    def claim(eps: float) -> tuple[float, float]:
        from ..api import method_name
        from ..methods import get_method

        name = method_name(
            options["privacy"],
            options.get("method"),
            as_published=bool(options.get("as_published", False)),
            model=options.get("model", "btl"),
        )
        loss = get_method(name).privacy_loss(eps, L=options.get("max_per_user"), **declared)
        return loss.epsilon, loss.delta

    return claim


#: Items of the one-shot path's tournaments (its delta is ``1 / n^2``).
_ONE_SHOT_N = 5


_EDGE = "edge DP: one comparison's outcome flipped (the comparison graph is public)"
_USER = (
    "individual DP: one user's comparisons (pairs and outcomes) replaced; items, L, users public"
)
_LOCAL = "local DP: one comparison's outcome flipped (each comparison is eps-LDP)"
_EDGE_TIES = (
    "edge DP, votes with ties: one vote's outcome changed among win, tie and loss (the votes' "
    "pairs are public)"
)
_USER_TIES = "voter-level DP, votes with ties: one voter's votes replaced; items, L, voters public"
_LOCAL_TIES = "local DP, votes with ties: one vote's outcome changed (each vote is eps-LDP)"


def _declare_paths() -> None:
    L = 2
    rank_paths = [
        (
            "rank --privacy edge --method counts",
            "counts",
            _EDGE,
            edge_flip(),
            {},
            {"privacy": "edge", "method": "counts"},
        ),
        (
            "rank --privacy edge --method mle",
            "mle_edge",
            _EDGE,
            edge_flip(),
            {},
            {"privacy": "edge", "method": "mle"},
        ),
        (
            "rank --privacy edge --method noisy_obj",
            "noisy_obj",
            _EDGE,
            edge_flip(),
            {},
            # OpenDP's Gaussian draws its own bits: this path always runs on the system's
            {"privacy": "edge", "method": "noisy_obj", "source": "system"},
        ),
        (
            "rank --privacy edge --method one_shot --top-k 1",
            "top_k",
            _EDGE,
            one_shot_tournaments(_ONE_SHOT_N),
            {"n_items": _ONE_SHOT_N},
            {"privacy": "edge", "method": "one_shot", "top_k": 1},
        ),
        (
            f"rank --privacy individual --method counts --max-per-user {L}",
            "counts",
            _USER,
            user_replace(L=L, heavy=True),
            {},
            {"privacy": "individual", "method": "counts", "max_per_user": L},
        ),
        (
            f"rank --privacy individual --method counts --max-per-user {L} --as-published",
            "counts",
            _USER,
            user_replace(L=L),
            {},
            {"privacy": "individual", "method": "counts", "max_per_user": L, "as_published": True},
        ),
        (
            f"rank --privacy individual --method mle --max-per-user {L}",
            "mle_individual",
            _USER,
            user_replace(L=L, heavy=True),
            {},
            {"privacy": "individual", "method": "mle", "max_per_user": L},
        ),
    ]
    rank_paths += [
        (
            "rank --privacy edge --model davidson (edge_ties)",
            "ties_edge",
            _EDGE_TIES,
            ties_flip(),
            {},
            {"privacy": "edge", "method": "ties", "model": "davidson"},
        ),
        (
            f"rank --privacy individual --model davidson --max-per-user {L} (individual_ties)",
            "ties_individual",
            _USER_TIES,
            ties_user_replace(L=L),
            {},
            {"privacy": "individual", "method": "ties", "model": "davidson", "max_per_user": L},
        ),
    ]
    for name, kind, relation, neighbours, declared, options in rank_paths:
        register_path(
            ReleasePath(
                name,
                kind,
                relation,
                neighbours,
                _method_claim(options, **declared),
                _rank_command(options),
                _rank_api(options),
                options=options,
            )
        )
    for mechanism, kind in (("rr", "local_rr"), ("laplace", "local_laplace")):
        register_path(
            ReleasePath(
                f"privatize --mechanism {mechanism}",
                kind,
                _LOCAL,
                local_flip(),
                _pure,
                lambda data, eps, workdir, m=mechanism: [
                    _privatize_argv(m, data, eps, workdir / "release.csv")
                ],
                _privatize_api(mechanism),
                read=_read_release,
                options={"mechanism": mechanism},
            )
        )
    for mechanism, method in (
        ("rr", "adrr"),
        ("rr", "debiased_rr"),
        ("rr", "classic_rr"),
        ("rr", "count"),
        ("laplace", "laplace"),
    ):
        register_path(
            ReleasePath(
                f"privatize --mechanism {mechanism} | rank --privacy local --method {method}",
                "local_rank",
                _LOCAL,
                local_flip(),
                _method_claim({"privacy": "local", "method": method}),
                _local_rank_command(mechanism, method),
                _local_rank_api(mechanism, method),
                options={"mechanism": mechanism, "method": method, "privacy": "local"},
            )
        )

    register_path(
        ReleasePath(
            "privatize (votes with ties: three-outcome randomized response)",
            "local_rr3",
            _LOCAL_TIES,
            ties_local_flip(),
            _pure,
            lambda data, eps, workdir: [_privatize_argv("rr", data, eps, workdir / "release.csv")],
            _privatize_api("rr"),
            read=_read_release3,
            options={"mechanism": "rr3"},
        )
    )
    register_path(
        ReleasePath(
            "privatize (votes with ties) | rank --privacy local --model davidson (local_ties)",
            "local_rank",
            _LOCAL_TIES,
            ties_local_flip(),
            _method_claim({"privacy": "local", "method": "ties", "model": "davidson"}),
            _local_rank_command("rr", "ties", "davidson"),
            _local_rank_api("rr", "ties", "davidson"),
            options={"mechanism": "rr3", "method": "ties", "model": "davidson", "privacy": "local"},
        )
    )


_declare_paths()
