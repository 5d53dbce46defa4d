"""The contract's checks but the privacy check (private; see :mod:`dprank.testing`)."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from ..data.comparisons import Comparisons
from ..methods import PUBLIC_DETAILS, Method
from ._privacy import claimed_loss
from ._setting import (
    LEVELS,
    N_ITEMS,
    RECORD_FIELDS,
    L,
    calling,
    fail,
    level_of,
    local_input,
    model_of,
    rank_args,
    rank_with,
    short_name,
    tiny_comparisons,
)

# --------------------------------------------------------------------------- the checks


def check_declaration(method: Method, eps: float) -> None:
    level = level_of(method)
    expected = LEVELS[level][1]
    if (method.privacy_unit, method.trust_model) != expected:
        raise fail(
            method,
            "declaration",
            f"the prefix {LEVELS[level][0]}_ means privacy_unit={expected[0]!r} and "
            f"trust_model={expected[1]!r}, the method declares {method.privacy_unit!r} and "
            f"{method.trust_model!r}",
        )
    if not method.description or not method.label:
        raise fail(method, "declaration", "give it a description and a label")
    if method.options is None:
        raise fail(
            method,
            "declaration",
            "its fit takes **options, so an unknown option would pass unnoticed: declare its "
            "options as keyword-only parameters and end with **_ (the registry passes model, "
            "top_k and, under individual DP, max_per_user)",
        )
    if method.trust_model == "local" and method.release not in ("rr", "rr3", "laplace"):
        raise fail(method, "declaration", "a local method names its users' release (rr, laplace)")


def _check_release(method: Method, r, check: str, private: bool) -> None:
    n = N_ITEMS
    scores, ranks = np.asarray(r.scores), np.asarray(r.ranks)
    if scores.shape != (n,) or not np.all(np.isfinite(scores)):
        raise fail(method, check, f"scores of shape {scores.shape}, not {n} finite numbers")
    if ranks.shape != (n,) or ranks.min() < 1 or ranks.max() > n:
        raise fail(method, check, f"ranks {ranks.tolist()} are not places 1..{n}")
    if len(r.items) != n:
        raise fail(method, check, f"{len(r.items)} items ranked, not {n}")
    _check_private(method, r.record(), check, private)


def _check_private(method: Method, record: dict, check: str, private: bool, run: str = "") -> None:
    """``record["private"]``: true for a release of a private method from the secure source
    only (``run`` names the run whose record it is)."""
    if record.get("private") is not private:
        why = (
            "a release from the secure source of a private method"
            if private
            else "a seeded, reproducible run, or a non-private method"
        )
        said = record.get("private")
        raise fail(
            method, check, f"the {run}record says private={said!r}, expected {private} ({why})"
        )


def check_rank_secure(method: Method, eps: float) -> None:
    r = calling(
        method, "rank_secure", "dprank.rank(rng=None)", lambda: rank_with(method, eps, None)
    )
    _check_release(method, r, "rank_secure", method.private)


def _same(a, b) -> bool:
    return np.array_equal(np.asarray(a.scores), np.asarray(b.scores)) and np.array_equal(
        np.asarray(a.ranks), np.asarray(b.ranks)
    )


def check_rank_seeded(method: Method, eps: float) -> None:
    def run(seed):
        return rank_with(method, eps, np.random.default_rng(seed))

    a = calling(method, "rank_seeded", "dprank.rank(rng=Generator)", lambda: run(11))
    b = calling(method, "rank_seeded", "dprank.rank(rng=Generator)", lambda: run(11))
    _check_release(method, a, "rank_seeded", False)
    if not _same(a, b):
        raise fail(
            method,
            "rank_seeded",
            "two runs with the same seeded Generator differ: draw every random number from rng",
        )
    c = calling(method, "rank_seeded", "dprank.rank(rng=int)", lambda: rank_with(method, eps, 5))
    d = calling(method, "rank_seeded", "dprank.rank(rng=int)", lambda: rank_with(method, eps, 5))
    _check_release(method, c, "rank_seeded", False)
    if not _same(c, d):
        raise fail(method, "rank_seeded", "two runs with rng=5 differ")


def _check_record_fields(method: Method, record: dict, check: str, level: str) -> None:
    for key, types in RECORD_FIELDS.items():
        if key not in record:
            raise fail(method, check, f"the record lacks {key!r}")
        value = record[key]
        if not isinstance(value, types) or (bool in types) != isinstance(value, bool):
            names = " or ".join("None" if t is type(None) else t.__name__ for t in types)
            raise fail(method, check, f"record[{key!r}] = {value!r} is not {names}")
    if record["mechanism"] != method.name:
        raise fail(method, check, f"record['mechanism'] is {record['mechanism']!r}")
    if record["privacy"] != level:
        raise fail(method, check, f"record['privacy'] is {record['privacy']!r}, not {level!r}")
    eps = record["epsilon"]
    if level in ("edge", "individual") and not (eps is not None and 0 < eps < math.inf):
        raise fail(method, check, f"a private release states a positive epsilon, not {eps!r}")
    if not 0.0 <= record["delta"] < 1.0:
        raise fail(method, check, f"record['delta'] = {record['delta']!r} is not in [0, 1)")
    extra = sorted(set(record["noise"]) - set(PUBLIC_DETAILS))
    if extra:
        raise fail(method, check, f"the record's noise names non-public details {extra}")
    if method.private and level != "local" and not record["noise"]:
        raise fail(
            method,
            check,
            "a private release states its noise: return Fit(details={'noise': ..., "
            "'noise_scale': ...}) (keys of dprank.methods.PUBLIC_DETAILS)",
        )
    try:
        json.dumps(record, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise fail(method, check, f"the record is not JSON: {exc}") from None


def check_record(method: Method, eps: float) -> None:
    r = calling(method, "record", "dprank.rank", lambda: rank_with(method, eps, 3))
    _check_record_fields(method, r.record(), "record", level_of(method))
    audit = r.audit_record()
    for key in ("n_items", "n_comparisons", "solver", "calibration"):
        if key not in audit:
            raise fail(method, "record", f"the audit record lacks {key!r}")
    loss = claimed_loss(method, eps)
    if loss is not None and level_of(method) in ("edge", "individual"):
        claimed = r.record()["epsilon"]
        if not math.isclose(loss[0], claimed, rel_tol=1e-12):
            raise fail(
                method,
                "record",
                f"the record states epsilon {claimed!r}, the method's privacy map "
                f"{loss[0]!r}: one of them is wrong",
            )


def _write_csv(c: Comparisons, path: Path) -> None:
    """``c`` as the command reads it: ``winner,loser[,user]`` or, with ties, an arena file."""
    labels = np.asarray(c.labels).astype(str)
    if c.ties:
        header, outcome = "model_a,model_b,winner", {1.0: "model_a", 0.5: "tie", 0.0: "model_b"}
        rows = [
            f"{labels[a]},{labels[b]},{outcome[float(y)]}"
            for a, b, y in zip(c.i, c.j, c.y, strict=True)
        ]
        user_col = "judge"
    else:
        header, user_col = "winner,loser", "user"
        rows = [
            f"{labels[a]},{labels[b]}" if y == 1 else f"{labels[b]},{labels[a]}"
            for a, b, y in zip(c.i, c.j, c.y, strict=True)
        ]
    if c.user is not None:
        header += "," + user_col
        rows = [f"{row},u{int(u)}" for row, u in zip(rows, c.user, strict=True)]
    path.write_text("\n".join([header, *rows]) + "\n")


def _command(argv: list[str]) -> tuple[int, str, str]:
    """``dprank ARGV`` in this process: ``(exit status, stdout, stderr)``."""
    from ..cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return int(code), out.getvalue(), err.getvalue()


def _rank_argv(method: Method, data: Path, out: Path, eps: float, seed: int | None) -> list[str]:
    level = level_of(method)
    argv = [
        "rank",
        str(data),
        "--privacy",
        level,
        "--method",
        short_name(method),
        "--out",
        str(out),
    ]
    if method.models:
        argv += ["--model", model_of(method)]
    if level in ("edge", "individual"):
        argv += ["--epsilon", repr(eps)]
    if level == "individual":
        argv += ["--max-per-user", str(L), "--items-from-data"]
    if method.needs_complete_graph:
        argv += ["--top-k", "1"]
    if seed is not None:
        argv += ["--insecure-seed", str(seed)]
    return argv


def _command_input(method: Method, folder: Path, eps: float, seed: int | None) -> Path:
    """The file ``dprank rank`` reads: the tiny data, or for a local method its release by
    ``dprank privatize`` (seeded with ``seed``, or from the secure source)."""
    raw = folder / "comparisons.csv"
    _write_csv(tiny_comparisons(method), raw)
    if level_of(method) != "local":
        return raw
    release = folder / f"release_{seed}.csv"
    mechanism = "laplace" if method.release == "laplace" else "rr"
    argv = ["privatize", str(raw), "--epsilon", repr(eps), "--mechanism", mechanism]
    argv += ["--items-from-data", "--out", str(release), "--quiet"]
    if seed is not None:
        argv += ["--insecure-seed", str(seed)]
    code, _, err = _command(argv)
    if code != 0:
        raise fail(method, "command", f"dprank {' '.join(argv)} exited {code}: {err.strip()}")
    return release


def check_command(method: Method, eps: float) -> None:
    import tempfile

    with tempfile.TemporaryDirectory(prefix="dprank-contract-") as tmp:
        folder = Path(tmp)
        runs = {}
        for tag, seed in (("seeded_a", 9), ("seeded_b", 9), ("secure", None)):
            data = _command_input(method, folder, eps, seed)
            out = folder / f"{tag}.csv"
            argv = _rank_argv(method, data, out, eps, seed)
            code, _, err = _command(argv)
            if code != 0:
                raise fail(
                    method, "command", f"dprank {' '.join(argv[2:])} exited {code}: {err.strip()}"
                )
            if not out.exists() or not out.with_suffix(".json").exists():
                raise fail(method, "command", f"dprank rank wrote no {out.name} and its record")
            runs[tag] = (out.read_bytes(), json.loads(out.with_suffix(".json").read_text()))
        table = runs["secure"][0].decode().splitlines()
        header = table[0].split(",")
        if header[:1] != ["item"] or "rank" not in header:
            raise fail(method, "command", f"ranking.csv has the header {table[0]!r}")
        expected_rows = 1 if method.needs_complete_graph and "score" not in header else N_ITEMS
        if len(table) - 1 != expected_rows:
            raise fail(method, "command", f"ranking.csv has {len(table) - 1} rows")
        if runs["seeded_a"][0] != runs["seeded_b"][0]:
            raise fail(method, "command", "two runs with --insecure-seed 9 wrote different files")
        for tag, private in (("seeded_a", False), ("secure", method.private)):
            record = runs[tag][1]
            if record.get("mechanism") != method.name:
                raise fail(method, "command", f"the record names {record.get('mechanism')!r}")
            _check_private(method, record, "command", private, f"{tag.split('_')[0]} run's ")


def check_benchmark(method: Method, eps: float) -> None:
    raw = tiny_comparisons(method, users=method.needs_users or method.trust_model == "local")
    budget = eps
    if method.trust_model == "local":
        budget = np.full(raw.n_users, eps)  # the benchmark's per-user budgets
    elif not method.private:
        budget = math.inf

    def run():
        return method.run(raw, budget, np.random.default_rng(17))

    a = calling(method, "benchmark", "Method.run(raw, eps, Generator)", run)
    b = calling(method, "benchmark", "Method.run(raw, eps, Generator)", run)
    scores = np.asarray(a.scores, dtype=np.float64)
    if scores.shape != (N_ITEMS,) or not np.all(np.isfinite(scores)):
        raise fail(method, "benchmark", f"scores of shape {scores.shape}, not finite")
    if not np.array_equal(scores, np.asarray(b.scores, dtype=np.float64)):
        raise fail(method, "benchmark", "two runs with the same seeded Generator differ")
    if a.private:
        raise fail(method, "benchmark", "a fit with a numpy Generator says private=True")


def check_intervals(method: Method, eps: float) -> None:
    from ..intervals import supports

    r = calling(method, "intervals", "dprank.rank", lambda: rank_with(method, eps, 21))
    if not supports(method):
        try:
            r.intervals(level=0.9, n_boot=20, rng=0)
        except ValueError as exc:
            if method.name not in str(exc):
                raise fail(
                    method, "intervals", f"the refusal does not name the method: {exc}"
                ) from None
            return
        raise fail(
            method,
            "intervals",
            "dprank.intervals.supports says it has no intervals, yet Ranking.intervals() "
            "returned some",
        )
    frame = calling(
        method, "intervals", "Ranking.intervals()", lambda: r.intervals(0.9, n_boot=20, rng=0)
    )
    for col in ("item", "score_lo", "score_hi", "rank_lo", "rank_hi"):
        if col not in frame.columns:
            raise fail(method, "intervals", f"the intervals lack the column {col!r}")
    if len(frame) != N_ITEMS:
        raise fail(method, "intervals", f"{len(frame)} rows of intervals for {N_ITEMS} items")
    lo, hi = frame["score_lo"].to_numpy(float), frame["score_hi"].to_numpy(float)
    rlo, rhi = frame["rank_lo"].to_numpy(float), frame["rank_hi"].to_numpy(float)
    known = np.isfinite(lo) & np.isfinite(hi)
    if np.any(lo[known] > hi[known]):
        raise fail(method, "intervals", "a score interval with score_lo > score_hi")
    ranked = np.isfinite(rlo) & np.isfinite(rhi)
    if np.any(rlo[ranked] > rhi[ranked]) or np.any(rlo[ranked] < 1) or np.any(rhi > N_ITEMS):
        raise fail(method, "intervals", "rank intervals outside 1..n or reversed")


def _refused(method: Method, what: str, words: Sequence[str], fn: Callable) -> None:
    """``fn()`` must raise a ValueError or TypeError whose message has one of ``words``."""
    try:
        fn()
    except (ValueError, TypeError) as exc:
        text = str(exc).lower()
        if not any(w in text for w in words):
            raise fail(
                method,
                "bad_input",
                f"{what} is refused, but the message does not say "
                f"{' or '.join(map(repr, words))}: {exc}",
            ) from None
        return
    except Exception as exc:
        raise fail(
            method, "bad_input", f"{what} raised {type(exc).__name__} (not a ValueError): {exc}"
        ) from None
    raise fail(method, "bad_input", f"{what} was accepted")


def check_bad_input(method: Method, eps: float) -> None:
    from ..api import rank

    level = level_of(method)
    kw = rank_args(method, eps)
    data = tiny_comparisons(method)
    if level == "local":
        data = local_input(method, data, eps, np.random.default_rng(7))

    def ranking(**changes):
        args = {**kw, **changes}
        args = {k: v for k, v in args.items() if v is not _DROP}
        d = args.pop("data", data)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return rank(d, rng=1, **args)

    if level in ("edge", "individual"):
        for bad in (0.0, -1.0, math.nan, math.inf, "1"):
            _refused(method, f"epsilon={bad!r}", ["epsilon"], lambda b=bad: ranking(epsilon=b))
        _refused(method, "no epsilon", ["epsilon"], lambda: ranking(epsilon=_DROP))
    else:
        what = f"epsilon under privacy {level!r}"
        _refused(method, what, ["epsilon"], lambda: ranking(epsilon=1.0))
    if level == "individual":
        _refused(method, "no max_per_user", ["max_per_user"], lambda: ranking(max_per_user=_DROP))
    if method.needs_users:
        plain = tiny_comparisons(method, users=False)
        if level == "local":
            plain = dataclasses.replace(data, user=None, user_epsilon=None)
        _refused(method, "comparisons without users", ["user"], lambda: ranking(data=plain))
    if not method.ties:
        votes = _with_ties(tiny_comparisons(method, users=method.needs_users))
        if level == "local":
            votes = local_input(method, votes, eps, np.random.default_rng(7))
        _refused(
            method, "votes with ties", ["tie", "three", "outcome"], lambda: ranking(data=votes)
        )
    _refused(
        method,
        "an unknown option",
        ["no_such_option"],
        lambda: ranking(options={"no_such_option": 1}),
    )
    _refused(method, "an unknown model", ["model"], lambda: ranking(model="no_such_model"))
    if level in ("edge", "individual"):
        with __import__("tempfile").TemporaryDirectory(prefix="dprank-contract-") as tmp:
            folder = Path(tmp)
            csv = folder / "comparisons.csv"
            _write_csv(tiny_comparisons(method), csv)
            argv = _rank_argv(method, csv, folder / "ranking.csv", eps, 1)
            argv[argv.index("--epsilon") + 1] = "-1"
            code, _, err = _command(argv)
            last = (err.strip().splitlines() or [""])[-1]
            if code != 2 or not last.startswith("dprank") or "epsilon" not in last:
                raise fail(
                    method,
                    "bad_input",
                    f"dprank rank --epsilon -1 exited {code} with {err.strip()!r}: expected "
                    "status 2 and an error line naming --epsilon",
                )
            if (folder / "ranking.csv").exists():
                raise fail(method, "bad_input", "a refused run left a ranking.csv behind")


_DROP = object()


def _with_ties(c: Comparisons) -> Comparisons:
    """``c`` declared with three outcomes, one of them a tie."""
    y = np.asarray(c.y, dtype=np.float64).copy()
    y[0] = 0.5
    return dataclasses.replace(c, y=y, ties=True)
