"""The contract every ranking method keeps: one suite, run on every registered method.

In the manner of scikit-learn's ``check_estimator``: a method author runs
:func:`check_method` on their method (a registered name or a
:class:`dprank.methods.Method`), and the project's tests run it on every method
of the registry (``tests/test_method_contract.py``). Each check fits the method on
tiny data (four items; users where the method needs them; votes with ties for the
ties methods) and fails with a message that names the method, the check and what
to change. The checks (:func:`method_checks` lists them):

``declaration``
    The name begins with its privacy level's prefix (``edge_``, ``individual_``,
    ``local_``, ``nonprivate_``) and the prefix agrees with ``privacy_unit`` and
    ``trust_model``; the label and description are set; the fit's options are
    declared (keyword-only parameters and ``**_``, so that an unknown option is
    refused).
``rank_secure``
    :func:`dprank.rank` with the operating system's secure generator (``rng=None``,
    the default): finite scores and ranks ``1..n`` for every item, and the record says
    ``"private": true`` (``false`` for a non-private method).
``rank_seeded``
    :func:`dprank.rank` with a seeded :class:`numpy.random.Generator` and with an int
    seed: the same seed gives the same release, bit for bit, and the record says
    ``"private": false``.
``record``
    The public record's fields are there and well typed (:data:`RECORD_FIELDS`), the
    mechanism and privacy level are the method's, the noise details are public ones
    (:data:`dprank.methods.PUBLIC_DETAILS`), the record is JSON.
``command``
    ``dprank rank`` (in-process, on a CSV file written here; local methods on the
    output of ``dprank privatize``): exit status 0, ``ranking.csv`` with every item and
    the JSON record beside it; with ``--insecure-seed`` twice the same bytes and
    ``"private": false``, without it ``"private": true``.
``benchmark``
    :meth:`dprank.methods.Method.run` with a seeded numpy Generator, the call the
    benchmark of methods and the papers' simulations make (raw comparisons; a local
    method's users' release is simulated first): finite scores, the same for the same
    seed, ``Fit.private`` false.
``intervals``
    :meth:`dprank.Ranking.intervals` where :func:`dprank.intervals.supports` says the
    method has them (bounds ordered, ranks within ``1..n``); elsewhere a ValueError that
    names the method.
``bad_input``
    A bad budget (0, negative, NaN, infinite, a string; any budget for a local or
    non-private method), comparisons without users for a method that needs them, votes
    with ties for a two-outcome method, a missing ``max_per_user`` under individual DP
    and an unknown option are refused by :func:`dprank.rank` with a message naming the
    problem; a bad budget is refused by the command with exit status 2 and one line.
``privacy``
    The guarantee the method claims (:meth:`Method.privacy_loss` where the method has
    it, else the release's record: its ``epsilon`` and ``delta``) is not below the
    empirical lower bound of the privacy harness (:func:`dprank.audit.harness.play`):
    the DP game on worst-case neighbouring data sets of the method's privacy unit, a few
    hundred seeded runs per side (:data:`AUDIT_TRIALS`). A lower bound above the claim
    is a proven violation (at confidence ``1 - alpha``).

Examples
--------
>>> from dprank.testing import check_method
>>> report = check_method("edge_counts", checks=["declaration", "rank_seeded"])
>>> report
{'declaration': 'ok', 'rank_seeded': 'ok'}
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import json
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .comparisons import Comparisons
from .methods import PUBLIC_DETAILS, Method, all_methods, get_method, register, unregister

__all__ = [
    "AUDIT_TRIALS",
    "CHECKS",
    "RECORD_FIELDS",
    "Check",
    "ContractError",
    "audit_claim",
    "audit_path",
    "check_method",
    "method_checks",
    "tiny_comparisons",
]

#: The checks of the contract, in the order :func:`check_method` runs them.
CHECKS = (
    "declaration",
    "rank_secure",
    "rank_seeded",
    "record",
    "command",
    "benchmark",
    "intervals",
    "bad_input",
    "privacy",
)

#: The public record's fields and their types (``None`` allowed where listed).
RECORD_FIELDS = {
    "mechanism": (str,),
    "description": (str,),
    "paper": (str,),
    "algorithm": (str,),
    "privacy": (str,),
    "privacy_unit": (str,),
    "trust_model": (str,),
    "private": (bool,),
    "epsilon": (float, type(None)),
    "delta": (float,),
    "max_per_user": (int, type(None)),
    "model": (str, type(None)),
    "top_k": (int, type(None)),
    "noise": (dict,),
    "public": (str,),
    "items": (str,),
}

#: Runs per data set of the privacy check's game (half choose each distinguisher's event,
#: half count it): enough to catch a release with no noise or far too little, at the
#: cost of a few seconds per method.
AUDIT_TRIALS = 100

#: The distinguishers of the privacy check (a cheap part of the harness's battery).
AUDIT_DISTINGUISHERS = ("threshold", "difference", "likelihood_ratio", "order", "ranking")

#: Privacy levels of :func:`dprank.rank`, the prefix of their methods' names, and the
#: ``(privacy_unit, trust_model)`` each prefix stands for.
LEVELS = {
    "edge": ("edge", ("comparison", "central")),
    "individual": ("individual", ("user", "central")),
    "local": ("local", ("user", "local")),
    "none": ("nonprivate", ("none", "none")),
}

#: The declared bound on one user's comparisons used under individual DP.
L = 3
#: The tiny data's items.
N_ITEMS = 4


class ContractError(AssertionError):
    """A method breaks its contract: the message names the method, the check and the fix."""


@dataclass(frozen=True)
class Check:
    """One check of the contract on one method: ``check()`` runs it (raises ContractError)."""

    method: str
    name: str
    run: Callable[[], None]

    def __call__(self) -> None:
        self.run()

    def __repr__(self) -> str:
        return f"Check({self.method!r}, {self.name!r})"


# --------------------------------------------------------------------------- the method's setting


def _level(method: Method) -> str:
    for level, (prefix, _) in LEVELS.items():
        if method.name.startswith(prefix + "_"):
            return level
    raise ContractError(
        f"method {method.name}: its name must begin with its privacy level's prefix "
        "(edge_, individual_, local_ or nonprivate_), so that dprank rank --privacy LEVEL "
        "--method NAME finds it"
    )


def _model(method: Method) -> str:
    """The comparison model the checks fit with."""
    if method.ties and "davidson" in method.models:
        return "davidson"
    return method.models[0] if method.models else "btl"


def _short(method: Method) -> str:
    """The name the command takes after ``--method`` (the registry name less its prefix)."""
    return method.name.split("_", 1)[1]


def tiny_comparisons(method: Method | str, *, users: bool | None = None) -> Comparisons:
    """The tiny raw data the checks fit ``method`` on.

    Four items, every pair compared (once each for a method that needs a complete
    tournament, else twice, with upsets); users ``u0..u3`` (at most :data:`L` comparisons
    each) where the method needs them (or ``users=True``); votes with ties
    (``ties=True``: outcomes 1, 1/2, 0) for a ties method.
    """
    method = _as_method(method)
    if users is not None and not isinstance(users, bool):
        raise TypeError(f"users must be True, False or None, got {users!r}")
    users = method.needs_users if users is None else users
    pairs = [(a, b) for a in range(N_ITEMS) for b in range(a + 1, N_ITEMS)]
    rounds = 1 if method.needs_complete_graph else 2
    i, j, y = [], [], []
    for r in range(rounds):
        for k, (a, b) in enumerate(pairs):
            i.append(a)
            j.append(b)
            if method.ties:
                y.append((1.0, 0.5, 1.0, 0.0)[(k + r) % 4])
            else:
                y.append(0.0 if (k + r) % 4 == 3 else 1.0)  # the lower index wins, with upsets
    n = len(i)
    user = np.arange(n) % N_ITEMS if users else None  # 4 users, 1 to 3 comparisons each
    return Comparisons(
        n_items=N_ITEMS,
        i=np.array(i, dtype=np.int64),
        j=np.array(j, dtype=np.int64),
        y=np.array(y),
        count=np.ones(n),
        user=None if user is None else user.astype(np.int64),
        labels=np.array([f"item{k}" for k in range(N_ITEMS)]),
        ties=bool(method.ties),
    )


def _local_input(method: Method, raw: Comparisons, eps: float, rng) -> Comparisons:
    """The users' local release of ``raw`` that a local method ranks."""
    from .noise import as_noise_source
    from .release import local_release

    mechanism = method.release or "rr"
    if mechanism == "rr3" or raw.ties:
        mechanism = "rr"  # comparisons with ties: three-outcome randomized response
    return local_release(raw, np.full(raw.n_users, eps), as_noise_source(rng), mechanism)


def _rank_args(method: Method, eps: float) -> dict:
    """The keyword arguments of :func:`dprank.rank` for ``method`` (data and rng apart)."""
    level = _level(method)
    kw = {"privacy": level, "method": method.name, "model": _model(method)}
    if level in ("edge", "individual"):
        kw["epsilon"] = eps
    if level == "individual":
        kw["max_per_user"] = L
    if level in ("individual", "local"):
        kw["items_from_data"] = True
    if method.needs_complete_graph:
        kw["top_k"] = 1
    return kw


def _rank(method: Method, eps: float, rng, data: Comparisons | None = None):
    """:func:`dprank.rank` of ``method`` on its tiny data (a local release of it, seeded)."""
    from .api import rank

    raw = tiny_comparisons(method) if data is None else data
    if _level(method) == "local":
        raw = _local_input(method, raw, eps, np.random.default_rng(7))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the as-published counts warn
        return rank(raw, rng=rng, **_rank_args(method, eps))


def _as_method(method) -> Method:
    if isinstance(method, Method):
        return method
    if isinstance(method, str):
        return get_method(method)
    raise TypeError(
        f"method must be a registry name (str) or a dprank.methods.Method, got "
        f"{type(method).__name__}"
    )


_NOISE_HINT = (
    "; under dprank.rank and the command rng is a dprank.noise.NoiseSource (exact samplers: "
    "rng.laplace_mechanism(values, sensitivity, eps, bound=...), rng.laplace(scale, size)), "
    "under the benchmark a numpy Generator: dprank.noise.as_noise_source(rng) turns either "
    "into a NoiseSource"
)


def _fail(method: Method, check: str, what: str) -> ContractError:
    return ContractError(f"method {method.name}, check {check}: {what}")


def _calling(method: Method, check: str, what: str, fn: Callable):
    """``fn()``; an exception becomes a ContractError naming the call (and the noise hint)."""
    try:
        return fn()
    except ContractError:
        raise
    except Exception as exc:
        hint = _NOISE_HINT if "NoiseSource" in str(exc) or "Generator" in str(exc) else ""
        raise _fail(method, check, f"{what} raised {type(exc).__name__}: {exc}{hint}") from exc


# --------------------------------------------------------------------------- the checks


def _check_declaration(method: Method, eps: float) -> None:
    level = _level(method)
    expected = LEVELS[level][1]
    if (method.privacy_unit, method.trust_model) != expected:
        raise _fail(
            method,
            "declaration",
            f"the prefix {LEVELS[level][0]}_ means privacy_unit={expected[0]!r} and "
            f"trust_model={expected[1]!r}, the method declares {method.privacy_unit!r} and "
            f"{method.trust_model!r}",
        )
    if not method.description or not method.label:
        raise _fail(method, "declaration", "give it a description and a label")
    if method.options is None:
        raise _fail(
            method,
            "declaration",
            "its fit takes **options, so an unknown option would pass unnoticed: declare its "
            "options as keyword-only parameters and end with **_ (the registry passes model, "
            "top_k and, under individual DP, max_per_user)",
        )
    if method.trust_model == "local" and method.release not in ("rr", "rr3", "laplace"):
        raise _fail(method, "declaration", "a local method names its users' release (rr, laplace)")


def _check_release(method: Method, r, check: str, private: bool) -> None:
    n = N_ITEMS
    scores, ranks = np.asarray(r.scores), np.asarray(r.ranks)
    if scores.shape != (n,) or not np.all(np.isfinite(scores)):
        raise _fail(method, check, f"scores of shape {scores.shape}, not {n} finite numbers")
    if ranks.shape != (n,) or ranks.min() < 1 or ranks.max() > n:
        raise _fail(method, check, f"ranks {ranks.tolist()} are not places 1..{n}")
    if len(r.items) != n:
        raise _fail(method, check, f"{len(r.items)} items ranked, not {n}")
    record = r.record()
    if record.get("private") is not private:
        raise _fail(
            method,
            check,
            f"the record says private={record.get('private')!r}, expected {private}"
            + (
                " (a release from the secure source of a private method)"
                if private
                else " (a seeded, reproducible run, or a non-private method)"
            ),
        )


def _check_rank_secure(method: Method, eps: float) -> None:
    r = _calling(method, "rank_secure", "dprank.rank(rng=None)", lambda: _rank(method, eps, None))
    _check_release(method, r, "rank_secure", method.private)


def _same(a, b) -> bool:
    return np.array_equal(np.asarray(a.scores), np.asarray(b.scores)) and np.array_equal(
        np.asarray(a.ranks), np.asarray(b.ranks)
    )


def _check_rank_seeded(method: Method, eps: float) -> None:
    def run(seed):
        return _rank(method, eps, np.random.default_rng(seed))

    a = _calling(method, "rank_seeded", "dprank.rank(rng=Generator)", lambda: run(11))
    b = _calling(method, "rank_seeded", "dprank.rank(rng=Generator)", lambda: run(11))
    _check_release(method, a, "rank_seeded", False)
    if not _same(a, b):
        raise _fail(
            method,
            "rank_seeded",
            "two runs with the same seeded Generator differ: draw every random number from rng",
        )
    c = _calling(method, "rank_seeded", "dprank.rank(rng=int)", lambda: _rank(method, eps, 5))
    d = _calling(method, "rank_seeded", "dprank.rank(rng=int)", lambda: _rank(method, eps, 5))
    _check_release(method, c, "rank_seeded", False)
    if not _same(c, d):
        raise _fail(method, "rank_seeded", "two runs with rng=5 differ")


def _check_record_fields(method: Method, record: dict, check: str, level: str) -> None:
    for key, types in RECORD_FIELDS.items():
        if key not in record:
            raise _fail(method, check, f"the record lacks {key!r}")
        value = record[key]
        if not isinstance(value, types) or (bool in types) != isinstance(value, bool):
            names = " or ".join("None" if t is type(None) else t.__name__ for t in types)
            raise _fail(method, check, f"record[{key!r}] = {value!r} is not {names}")
    if record["mechanism"] != method.name:
        raise _fail(method, check, f"record['mechanism'] is {record['mechanism']!r}")
    if record["privacy"] != level:
        raise _fail(method, check, f"record['privacy'] is {record['privacy']!r}, not {level!r}")
    eps = record["epsilon"]
    if level in ("edge", "individual") and not (eps is not None and 0 < eps < math.inf):
        raise _fail(method, check, f"a private release states a positive epsilon, not {eps!r}")
    if not 0.0 <= record["delta"] < 1.0:
        raise _fail(method, check, f"record['delta'] = {record['delta']!r} is not in [0, 1)")
    extra = sorted(set(record["noise"]) - set(PUBLIC_DETAILS))
    if extra:
        raise _fail(method, check, f"the record's noise names non-public details {extra}")
    if method.private and level != "local" and not record["noise"]:
        raise _fail(
            method,
            check,
            "a private release states its noise: return Fit(details={'noise': ..., "
            "'noise_scale': ...}) (keys of dprank.methods.PUBLIC_DETAILS)",
        )
    try:
        json.dumps(record, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _fail(method, check, f"the record is not JSON: {exc}") from None


def _check_record(method: Method, eps: float) -> None:
    r = _calling(method, "record", "dprank.rank", lambda: _rank(method, eps, 3))
    _check_record_fields(method, r.record(), "record", _level(method))
    audit = r.audit_record()
    for key in ("n_items", "n_comparisons", "solver", "calibration"):
        if key not in audit:
            raise _fail(method, "record", f"the audit record lacks {key!r}")
    loss = _privacy_loss(method, eps)
    if loss is not None and _level(method) in ("edge", "individual"):
        claimed = r.record()["epsilon"]
        if not math.isclose(loss[0], claimed, rel_tol=1e-12):
            raise _fail(
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
    from .cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as exc:  # argparse's usage errors
            code = exc.code if isinstance(exc.code, int) else 2
    return int(code), out.getvalue(), err.getvalue()


def _rank_argv(method: Method, data: Path, out: Path, eps: float, seed: int | None) -> list[str]:
    level = _level(method)
    argv = ["rank", str(data), "--privacy", level, "--method", _short(method), "--out", str(out)]
    if method.models:
        argv += ["--model", _model(method)]
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
    if _level(method) != "local":
        return raw
    release = folder / f"release_{seed}.csv"
    mechanism = "laplace" if method.release == "laplace" else "rr"
    argv = ["privatize", str(raw), "--epsilon", repr(eps), "--mechanism", mechanism]
    argv += ["--items-from-data", "--out", str(release), "--quiet"]
    if seed is not None:
        argv += ["--insecure-seed", str(seed)]
    code, _, err = _command(argv)
    if code != 0:
        raise _fail(method, "command", f"dprank {' '.join(argv)} exited {code}: {err.strip()}")
    return release


def _check_command(method: Method, eps: float) -> None:
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
                raise _fail(
                    method, "command", f"dprank {' '.join(argv[2:])} exited {code}: {err.strip()}"
                )
            if not out.exists() or not out.with_suffix(".json").exists():
                raise _fail(method, "command", f"dprank rank wrote no {out.name} and its record")
            runs[tag] = (out.read_bytes(), json.loads(out.with_suffix(".json").read_text()))
        table = runs["secure"][0].decode().splitlines()
        header = table[0].split(",")
        if header[:1] != ["item"] or "rank" not in header:
            raise _fail(method, "command", f"ranking.csv has the header {table[0]!r}")
        expected_rows = 1 if method.needs_complete_graph and "score" not in header else N_ITEMS
        if len(table) - 1 != expected_rows:
            raise _fail(method, "command", f"ranking.csv has {len(table) - 1} rows")
        if runs["seeded_a"][0] != runs["seeded_b"][0]:
            raise _fail(method, "command", "two runs with --insecure-seed 9 wrote different files")
        for tag, private in (("seeded_a", False), ("secure", method.private)):
            record = runs[tag][1]
            if record.get("mechanism") != method.name:
                raise _fail(method, "command", f"the record names {record.get('mechanism')!r}")
            if record.get("private") is not private:
                raise _fail(
                    method,
                    "command",
                    f"the {tag.split('_')[0]} run's record says private="
                    f"{record.get('private')!r}, expected {private}",
                )


def _check_benchmark(method: Method, eps: float) -> None:
    raw = tiny_comparisons(method, users=method.needs_users or method.trust_model == "local")
    budget = eps
    if method.trust_model == "local":
        budget = np.full(raw.n_users, eps)  # the benchmark's per-user budgets
    elif not method.private:
        budget = math.inf

    def run():
        return method.run(raw, budget, np.random.default_rng(17))

    a = _calling(method, "benchmark", "Method.run(raw, eps, Generator)", run)
    b = _calling(method, "benchmark", "Method.run(raw, eps, Generator)", run)
    scores = np.asarray(a.scores, dtype=np.float64)
    if scores.shape != (N_ITEMS,) or not np.all(np.isfinite(scores)):
        raise _fail(method, "benchmark", f"scores of shape {scores.shape}, not finite")
    if not np.array_equal(scores, np.asarray(b.scores, dtype=np.float64)):
        raise _fail(method, "benchmark", "two runs with the same seeded Generator differ")
    if a.private:
        raise _fail(method, "benchmark", "a fit with a numpy Generator says private=True")


def _check_intervals(method: Method, eps: float) -> None:
    from .intervals import supports

    r = _calling(method, "intervals", "dprank.rank", lambda: _rank(method, eps, 21))
    if not supports(method):
        try:
            r.intervals(level=0.9, n_boot=20, rng=0)
        except ValueError as exc:
            if method.name not in str(exc):
                raise _fail(
                    method, "intervals", f"the refusal does not name the method: {exc}"
                ) from None
            return
        raise _fail(
            method,
            "intervals",
            "dprank.intervals.supports says it has no intervals, yet Ranking.intervals() "
            "returned some",
        )
    frame = _calling(
        method, "intervals", "Ranking.intervals()", lambda: r.intervals(0.9, n_boot=20, rng=0)
    )
    for col in ("item", "score_lo", "score_hi", "rank_lo", "rank_hi"):
        if col not in frame.columns:
            raise _fail(method, "intervals", f"the intervals lack the column {col!r}")
    if len(frame) != N_ITEMS:
        raise _fail(method, "intervals", f"{len(frame)} rows of intervals for {N_ITEMS} items")
    lo, hi = frame["score_lo"].to_numpy(float), frame["score_hi"].to_numpy(float)
    rlo, rhi = frame["rank_lo"].to_numpy(float), frame["rank_hi"].to_numpy(float)
    known = np.isfinite(lo) & np.isfinite(hi)
    if np.any(lo[known] > hi[known]):
        raise _fail(method, "intervals", "a score interval with score_lo > score_hi")
    ranked = np.isfinite(rlo) & np.isfinite(rhi)
    if np.any(rlo[ranked] > rhi[ranked]) or np.any(rlo[ranked] < 1) or np.any(rhi > N_ITEMS):
        raise _fail(method, "intervals", "rank intervals outside 1..n or reversed")


def _refused(method: Method, what: str, words: Sequence[str], fn: Callable) -> None:
    """``fn()`` must raise a ValueError or TypeError whose message has one of ``words``."""
    try:
        fn()
    except (ValueError, TypeError) as exc:
        text = str(exc).lower()
        if not any(w in text for w in words):
            raise _fail(
                method,
                "bad_input",
                f"{what} is refused, but the message does not say "
                f"{' or '.join(map(repr, words))}: {exc}",
            ) from None
        return
    except Exception as exc:
        raise _fail(
            method, "bad_input", f"{what} raised {type(exc).__name__} (not a ValueError): {exc}"
        ) from None
    raise _fail(method, "bad_input", f"{what} was accepted")


def _check_bad_input(method: Method, eps: float) -> None:
    from .api import rank

    level = _level(method)
    kw = _rank_args(method, eps)
    data = tiny_comparisons(method)
    if level == "local":
        data = _local_input(method, data, eps, np.random.default_rng(7))

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
            votes = _local_input(method, votes, eps, np.random.default_rng(7))
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
                raise _fail(
                    method,
                    "bad_input",
                    f"dprank rank --epsilon -1 exited {code} with {err.strip()!r}: expected "
                    "status 2 and an error line naming --epsilon",
                )
            if (folder / "ranking.csv").exists():
                raise _fail(method, "bad_input", "a refused run left a ranking.csv behind")


_DROP = object()


def _with_ties(c: Comparisons) -> Comparisons:
    """``c`` declared with three outcomes, one of them a tie."""
    y = np.asarray(c.y, dtype=np.float64).copy()
    y[0] = 0.5
    return dataclasses.replace(c, y=y, ties=True)


# --------------------------------------------------------------------------- privacy


def _privacy_loss(method: Method, eps: float) -> tuple[float, float] | None:
    """``(epsilon, delta)`` of the method's privacy map at ``eps``, or None without one."""
    loss = getattr(method, "privacy_loss", None)
    if not callable(loss):
        return None
    declared = {"n_items": N_ITEMS, "L": L, "max_per_user": L, "k": 1, "top_k": 1}
    out = loss(eps, **declared)
    return float(out.epsilon), float(out.delta)


def audit_claim(method: Method | str, eps: float = 1.0) -> tuple[float, float]:
    """The ``(epsilon, delta)`` that ``method`` claims at budget ``eps`` on the tiny data.

    :meth:`Method.privacy_loss` where the method has one (its privacy map); otherwise
    the record of a release: its ``epsilon`` and ``delta`` (for a local method, whose
    record states no epsilon, ``eps`` per comparison and the record's ``delta``).
    """
    method = _as_method(method)
    eps = _epsilon(eps, "eps")
    loss = _privacy_loss(method, eps)
    if loss is not None:
        return loss
    record = _rank(method, eps, 0).record()
    claimed = record["epsilon"] if record["epsilon"] is not None else float(eps)
    return float(claimed), float(record["delta"])


def _shipped_path(method: Method):
    """The privacy harness's own release path of ``method``, if it has one."""
    from .api import method_name
    from .audit import harness

    for path in harness.PATHS.values():
        opts = path.options
        if "privacy" not in opts or "method" not in opts:
            continue
        try:
            name = method_name(
                opts["privacy"],
                opts["method"],
                as_published=bool(opts.get("as_published")),
                model=opts.get("model", "btl"),
            )
        except ValueError:
            continue
        if name == method.name:
            return path
    return None


def _template_path(method: Method):
    """A shipped path of the same privacy level, outcomes and release: its neighbours."""
    from .audit import harness

    level = _level(method)
    if level == "edge":
        name = (
            "rank --privacy edge --model davidson (edge_ties)"
            if method.ties
            else "rank --privacy edge --method counts"
        )
    elif level == "individual":
        name = (
            "rank --privacy individual --model davidson --max-per-user 2 (individual_ties)"
            if method.ties
            else "rank --privacy individual --method counts --max-per-user 2"
        )
    elif method.ties or method.release == "rr3":
        name = "privatize (votes with ties) | rank --privacy local --model davidson (local_ties)"
    else:
        mechanism = "laplace" if method.release == "laplace" else "rr"
        name = f"privatize --mechanism {mechanism} | rank --privacy local --method " + (
            "laplace" if mechanism == "laplace" else "adrr"
        )
    return harness.PATHS[name]


def audit_path(method: Method | str, claim: tuple[float, float] | None = None):
    """The release path the contract's privacy check plays for ``method``.

    The privacy harness's own path of the method (:data:`dprank.audit.harness.PATHS`)
    where it has one, else the neighbours of a shipped path of its privacy level and
    outcomes (edge, individual, local; two or three outcomes) with the method run
    through :func:`dprank.rank` (a local method on the users' release). Its claim is
    ``claim``, by default :func:`audit_claim` at each budget.

    Returns
    -------
    dprank.audit.harness.ReleasePath
    """
    from .api import rank
    from .audit import harness
    from .noise import NoiseSource
    from .release import local_release

    method = _as_method(method)
    if not method.private:
        raise ValueError(f"method {method.name} is not private: it has no privacy claim to audit")
    if claim is not None:
        if not isinstance(claim, tuple) or len(claim) != 2:
            raise TypeError(f"claim must be a pair (epsilon, delta) or None, got {claim!r}")
        claim = (_epsilon(claim[0], "claim"), float(claim[1]))
        if not 0.0 <= claim[1] < 1.0:
            raise ValueError(f"claim's delta must be in [0, 1), got {claim[1]!r}")

    def claimed(eps):
        return audit_claim(method, eps) if claim is None else claim

    shipped = _shipped_path(method)
    if shipped is not None:
        return dataclasses.replace(shipped, claim=claimed)
    template = _template_path(method)
    level = _level(method)
    opts = dict(template.options)
    mechanism = {"rr3": "rr"}.get(opts.get("mechanism", "rr"), opts.get("mechanism", "rr"))

    def api(data: Comparisons, eps: float, noise: NoiseSource):
        kw = {"method": method.name, "model": _model(method)}
        if level in ("edge", "individual"):
            kw["epsilon"] = eps
        if level == "individual":
            kw["max_per_user"] = int(opts.get("max_per_user", 2))
        kw["items"] = list(np.asarray(data.labels).astype(str))
        if level == "local":
            data = local_release(data, np.full(data.n_users, eps), noise, mechanism)
        r = rank(data, privacy=level, rng=noise, **kw)
        values = np.asarray(r.scores, dtype=np.float64).copy()
        ranks = np.asarray(r.ranks, dtype=np.float64)
        if not r.fit.scores_released:
            values[:] = np.nan
        return harness.Output(values, ranks, r.record())

    return harness.ReleasePath(
        f"contract: {method.name}",
        "scores",
        template.relation,
        template.neighbours,
        claimed,
        None,
        api,
        options={**opts, "method": _short(method), "privacy": level},
    )


def _check_privacy(method: Method, eps: float, trials: int = AUDIT_TRIALS) -> None:
    if not method.private:
        return
    from .audit import harness

    claim = _calling(
        method, "privacy", "the claimed privacy loss", lambda: audit_claim(method, eps)
    )
    path = audit_path(method, claim)
    rng = np.random.default_rng(20_531)
    results = _calling(
        method,
        "privacy",
        "the privacy harness's game",
        lambda: harness.play(
            path, eps, trials, rng, distinguishers=list(AUDIT_DISTINGUISHERS), alpha=0.05
        ),
    )
    for res in results:
        if res.eps_lower_bound > claim[0] + 1e-9:
            top = max(res.results, key=lambda r: r["eps_lower"])
            raise _fail(
                method,
                "privacy",
                f"the audit's lower bound on epsilon, {res.eps_lower_bound:.3f} (distinguisher "
                f"{top['distinguisher']}: {top['event']}; neighbours {res.neighbours}, "
                f"{trials} runs per side), exceeds the claimed epsilon {claim[0]:.3f} "
                f"(delta {claim[1]:g}) at a requested {eps:g}: the release leaks more than it "
                "claims",
            )


_RUNNERS = {
    "declaration": _check_declaration,
    "rank_secure": _check_rank_secure,
    "rank_seeded": _check_rank_seeded,
    "record": _check_record,
    "command": _check_command,
    "benchmark": _check_benchmark,
    "intervals": _check_intervals,
    "bad_input": _check_bad_input,
    "privacy": _check_privacy,
}


# --------------------------------------------------------------------------- the suite


@contextlib.contextmanager
def _registered(method: Method):
    """``method`` in the registry for the duration (the command looks methods up by name)."""
    known = {m.name: m for m in all_methods()}
    if method.name in known:
        if known[method.name] is not method:
            raise ContractError(
                f"method {method.name}: another method of that name is registered; "
                "check the registered one by name, or give yours another name"
            )
        yield
        return
    register(method)
    try:
        yield
    finally:
        unregister(method.name)


def method_checks(
    method: Method | str,
    *,
    checks: Sequence[str] | None = None,
    epsilon: float = 1.0,
) -> list[Check]:
    """The contract's checks of ``method``, each a callable :class:`Check`.

    For a test suite (``pytest.mark.parametrize`` over them); an unregistered
    :class:`Method` is registered while a check runs.

    Parameters
    ----------
    method : str or Method
        A registry name or a method.
    checks : sequence of str, optional
        Names in :data:`CHECKS` (default: all).
    epsilon : float
        The budget the checks release with (positive, finite).

    Raises
    ------
    TypeError, ValueError
        A method that is neither, an unknown check, a bad epsilon (naming them).
    """
    method = _as_method(method)
    names = list(CHECKS) if checks is None else _check_names(checks)
    eps = _epsilon(epsilon, "epsilon")

    def runner(name):
        def run():
            with _registered(method):
                _RUNNERS[name](method, eps)

        return run

    return [Check(method.name, name, runner(name)) for name in names]


def _epsilon(value, name: str) -> float:
    """``value`` as a positive, finite float; a TypeError or ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.number)):
        raise TypeError(f"{name} must be a number, got {value!r}")
    out = float(value)
    if not 0 < out < math.inf:
        raise ValueError(f"{name} must be positive and finite, got {value!r}")
    return out


def _check_names(checks) -> list[str]:
    if isinstance(checks, str) or not isinstance(checks, Sequence):
        raise TypeError(f"checks must be a list of names of {list(CHECKS)}, got {checks!r}")
    unknown = [c for c in checks if c not in CHECKS]
    if unknown:
        raise ValueError(f"unknown checks {unknown}; the contract's checks are {list(CHECKS)}")
    return list(checks)


def check_method(
    method: Method | str,
    *,
    checks: Sequence[str] | None = None,
    epsilon: float = 1.0,
) -> dict[str, str]:
    """Run the contract on ``method``; raise :class:`ContractError` listing every failure.

    Parameters
    ----------
    method : str or Method
        A registry name, or a :class:`dprank.methods.Method` (registered for the
        duration of the checks if it is not).
    checks : sequence of str, optional
        Names in :data:`CHECKS` (default: all of them).
    epsilon : float
        The budget of the releases (default 1).

    Returns
    -------
    dict
        ``{check: "ok"}`` for each check run.

    Raises
    ------
    ContractError
        An AssertionError whose message has one line per failed check (the method,
        the check, what went wrong and what to change).
    """
    report, failures = {}, []
    for check in method_checks(method, checks=checks, epsilon=epsilon):
        try:
            check()
        except ContractError as exc:
            failures.append(str(exc))
            report[check.name] = "failed"
        else:
            report[check.name] = "ok"
    if failures:
        raise ContractError("\n".join(failures))
    return report
