"""The privacy harness: every release path in the DP game against a battery of distinguishers.

A *release path* is a way the project hands somebody's data to others: ``dprank
rank`` and :func:`dprank.rank` with each privacy level and method, ``dprank
privatize`` and :func:`dprank.privacy.release.local_release`, and ranking a local release.
Each is declared once (:class:`ReleasePath`, :func:`register_path`) with its
neighbour relation (the worst-case pairs of data sets it is played on), its claim
``(eps, delta)`` and how to run it through the API and through the command. The
harness then plays the differential-privacy game (:func:`play`): ``trials`` runs on
each of two neighbouring data sets ``D0, D1``, the first half of the runs to
choose each distinguisher's event (its statistic, threshold and direction), the
second half, fresh, to count it. For each distinguisher it reports

* the *success rate* of guessing which data set produced a run, beside the
  ``(eps, delta)``-DP bound ``(e^eps + delta) / (e^eps + 1)`` and its standard
  error (``se = sqrt(bound (1 - bound) / runs)``): a rate above
  ``bound + 3 se`` is a finding;
* a *lower bound on epsilon*, Clopper-Pearson at confidence ``1 - alpha``
  Bonferroni-split over the distinguishers (:func:`dprank.audit.epsilon_lower_bound`):
  a bound above the claim is a finding.

The battery (:data:`DISTINGUISHERS`): thresholds on every released coordinate and
on every difference of two; the likelihood ratio where the output law is known
(the noisy counts, Algorithm 1 through its win totals, the exact-minimiser density
of the individual-DP MLE, NoisyObj, the local releases); float bits (trailing
zeros and the lowest bit of each mantissa); grid residues of the released values,
of the win totals they imply and of the penalised gradient of each candidate
data set at the released scores (the attack of issue 44); the ``l1`` norm of
that gradient; a search over the target user's candidate comparison sets (the
attacker knows every other user's data, the record and the solver, and guesses
the candidate whose gradient lies on the noise grid, or whose likelihood is
largest); the order of every pair of items and the whole ranking; a logistic
classifier trained on the first half; and, for the command, its other channels
(exit status, standard output and error, the public files, numbers masked; for a path
whose messages carry numbers that are functions of the release, ``options
["unmasked_channels"]``, also standard output and error unmasked and each word of
standard error, numbers kept: tests/test_privacy_intervals_note.py). A
distinguisher is a :class:`Distinguisher` (:func:`register_distinguisher`), whose
``build(game, sel0, sel1)`` returns a :func:`statistic` of the outputs;
``channel=True`` ones see the command's :class:`Channel`.

Adding a release path is one declaration::

    from dprank.audit import harness
    harness.register_path(harness.ReleasePath(
        "rank --privacy edge --method counts", "counts", "edge DP: one outcome flipped",
        harness.edge_flip(), lambda eps: (eps, 0.0), command=..., api=...))

(the shipped paths are declared in ``_harness_paths``; the battery in
``_harness_battery``).

Randomness: the game draws the releases' bits from a seeded source through the
shipped exact samplers (:class:`dprank.privacy.noise.NoiseSource`): the API gets the
source as ``rng``, the command runs in-process with
:meth:`dprank.privacy.noise.NoiseSource.system` answering with it (the command's code path
is unchanged, its record says ``"private": true``). ``source="system"`` uses the
operating system's generator instead (not reproducible); NoisyObj always does (its
OpenDP sampler draws its own bits).

Profiles (:data:`PROFILES`): ``quick`` (the test suite) and ``full`` (the workflow
target ``privacy_audit_full``: 1,000 runs per side through the API and 100 through
the command at eps 0.1, 1 and 8).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..base import _checks
from ..data.comparisons import Comparisons
from ..privacy.noise import NoiseSource
from . import _harness_battery, _harness_paths  # noqa: F401  (they register on import)
from ._core import eps_bound_arrays
from ._harness_core import (
    DISTINGUISHERS,
    PATHS,
    Channel,
    Distinguisher,
    Game,
    Neighbours,
    Output,
    ReleasePath,
    accuracy_bound,
    register_distinguisher,
    register_path,
    statistic,
)
from ._harness_paths import (
    edge_flip,
    game_runs,
    local_flip,
    one_shot_tournaments,
    seeded_source,
    seeded_system_source,
    user_replace,
)

__all__ = [
    "DISTINGUISHERS",
    "PATHS",
    "PROFILES",
    "Channel",
    "Distinguisher",
    "Game",
    "GameResult",
    "Neighbours",
    "Output",
    "ReleasePath",
    "accuracy_bound",
    "audit_table",
    "edge_flip",
    "local_flip",
    "one_shot_tournaments",
    "path_id",
    "play",
    "profile_games",
    "register_distinguisher",
    "register_path",
    "run_path",
    "seeded_system_source",
    "statistic",
    "summary_markdown",
    "user_replace",
]

# --------------------------------------------------------------------------- the game


@dataclass(frozen=True)
class GameResult:
    """One game's outcome: a row per distinguisher (:meth:`rows`) and the verdict."""

    path: str
    via: str
    eps: float
    claimed_eps: float
    claimed_delta: float
    neighbours: str
    trials: int
    alpha: float
    results: tuple  # of dicts, one per distinguisher

    @property
    def bound(self) -> float:
        return accuracy_bound(self.claimed_eps, self.claimed_delta)

    @property
    def max_accuracy(self) -> float:
        return max(r["accuracy"] for r in self.results)

    @property
    def eps_lower_bound(self) -> float:
        """The largest distinguisher's lower bound on epsilon (valid at ``1 - alpha`` jointly)."""
        return max(r["eps_lower"] for r in self.results)

    @property
    def failures(self) -> list[dict]:
        """Distinguishers that beat the bound by more than 3 se, or bound eps above the claim."""
        return [r for r in self.results if not r["holds"]]

    @property
    def holds(self) -> bool:
        return not self.failures

    def rows(self) -> list[dict]:
        base = {
            "path": self.path,
            "via": self.via,
            "epsilon": self.eps,
            "claimed_eps": self.claimed_eps,
            "claimed_delta": self.claimed_delta,
            "neighbours": self.neighbours,
            "trials": self.trials,
        }
        return [{**base, **r} for r in self.results]


def _choose(s0: np.ndarray, s1: np.ndarray, delta: float, alpha: float):
    """Best event ``{stat[:, col] > t}`` (or its complement) for accuracy and for the eps bound."""
    n0, n1 = s0.shape[0], s1.shape[0]
    best_acc, best_eps = (-1.0, None), (-1.0, None)
    levels = np.linspace(0.0, 1.0, 66)[1:-1]
    for col in range(s0.shape[1]):
        a, b = s0[:, col], s1[:, col]
        pooled = np.concatenate([a, b])
        pooled = pooled[np.isfinite(pooled)]
        if pooled.size == 0:
            continue
        ts = np.unique(np.quantile(pooled, levels, method="inverted_cdf"))
        ts = np.concatenate([ts, [pooled.min() - 1.0]])
        a_sorted, b_sorted = (
            np.sort(np.nan_to_num(a, nan=-np.inf)),
            np.sort(np.nan_to_num(b, nan=-np.inf)),
        )
        k0 = a_sorted.size - np.searchsorted(a_sorted, ts, side="right")
        k1 = b_sorted.size - np.searchsorted(b_sorted, ts, side="right")
        acc = 0.5 * (k1 / n1 + 1.0 - k0 / n0)
        for sign, accs in ((1, acc), (-1, 1.0 - acc)):
            i = int(np.argmax(accs))
            if accs[i] > best_acc[0]:
                best_acc = (float(accs[i]), (col, float(ts[i]), sign))
        e1 = eps_bound_arrays(k0, n0, k1, n1, delta, alpha)
        e0 = eps_bound_arrays(k1, n1, k0, n0, delta, alpha)
        for sign, es in ((1, e1), (-1, e0)):
            i = int(np.argmax(es))
            if es[i] > best_eps[0]:
                best_eps = (float(es[i]), (col, float(ts[i]), sign))
    return best_acc[1], best_eps[1]


def _count(stat: np.ndarray, event) -> int:
    col, t, _ = event
    x = np.nan_to_num(stat[:, col], nan=-np.inf)
    return int(np.sum(x > t))


def _score(name, t0, t1, acc_event, eps_event, eps, delta, alpha, se_runs, columns):
    n0, n1 = t0.shape[0], t1.shape[0]
    bound = accuracy_bound(eps, delta)
    se = math.sqrt(bound * (1.0 - bound) / (n0 + n1))
    if acc_event is None:
        accuracy, eps_lower, event = 0.5, 0.0, "no statistic"
    else:
        k0, k1 = _count(t0, acc_event), _count(t1, acc_event)
        rate1, rate0 = k1 / n1, k0 / n0
        accuracy = 0.5 * (rate1 + 1 - rate0) if acc_event[2] > 0 else 0.5 * (rate0 + 1 - rate1)
        c0, c1 = _count(t0, eps_event), _count(t1, eps_event)
        if eps_event[2] > 0:
            eps_lower = float(eps_bound_arrays(c0, n0, c1, n1, delta, alpha))
        else:
            eps_lower = float(eps_bound_arrays(c1, n1, c0, n0, delta, alpha))
        col, t, sign = eps_event
        event = (
            f"{columns[col] if col < len(columns) else col} {'>' if sign > 0 else '<='} {t:.6g} "
            f"favouring D{1 if sign > 0 else 0} ({c0}/{n0} on D0, {c1}/{n1} on D1)"
        )
    holds = accuracy <= bound + 3.0 * se and eps_lower <= eps + 1e-9
    return {
        "distinguisher": name,
        "accuracy": accuracy,
        "bound": bound,
        "se": se,
        "eps_lower": eps_lower,
        "event": event,
        "holds": holds,
    }


def play(
    path: ReleasePath | str,
    eps: float,
    trials: int,
    rng: np.random.Generator,
    *,
    via: str = "api",
    alpha: float = 0.05,
    source: str = "seeded",
    distinguishers: Sequence[str] | None = None,
) -> list[GameResult]:
    """Play ``path``'s DP game at ``eps`` on each of its neighbour pairs.

    Parameters
    ----------
    path : ReleasePath or str
        A path or its name in :data:`PATHS`.
    eps : float
        The requested budget.
    trials : int
        Runs per data set (at least 8): the first half choose each distinguisher's
        event, the second half count it.
    rng : numpy.random.Generator
        The releases' bits (``source="seeded"``).
    via : {"api", "command"}
    alpha : float
        The epsilon bounds hold jointly with probability ``1 - alpha`` (Bonferroni over
        the distinguishers).
    source : {"seeded", "system"}
        ``"system"``: the operating system's secure generator (not reproducible).
    distinguishers : sequence of str, optional
        Names in :data:`DISTINGUISHERS` (default: every one that applies).

    Returns
    -------
    list of GameResult
        One per neighbour pair.
    """
    path = _path(path)
    _checks.positive_finite(eps, "eps")
    trials = _checks.count(trials, "trials", 8)
    if distinguishers is not None:
        distinguishers = _checks.names(distinguishers, "distinguishers", DISTINGUISHERS)
    _checks.rng(rng)
    _checks.probability(alpha, "alpha", low_open=True, high_open=True)
    if via not in ("api", "command"):
        raise ValueError(f"via must be 'api' or 'command', got {via!r}")
    if source not in ("seeded", "system"):
        raise ValueError(f"source must be 'seeded' or 'system', got {source!r}")
    runner = path.api if via == "api" else path.command
    if runner is None:
        raise ValueError(f"release path {path.name!r} has no {via} runner")
    source = path.options.get("source", source)
    noise = seeded_source(rng) if source == "seeded" else NoiseSource.system()
    out = []
    for nb in path.neighbours(eps):
        game = Game(path, float(eps), nb, via)
        names = [
            name
            for name, d in DISTINGUISHERS.items()
            if (distinguishers is None or name in distinguishers)
            and (not d.channel or via == "command")
            and d.applies(game)
        ]
        half = trials // 2
        sel0, sel1 = game_runs(game, nb.d0, half, noise), game_runs(game, nb.d1, half, noise)
        test0 = game_runs(game, nb.d0, trials - half, noise)
        test1 = game_runs(game, nb.d1, trials - half, noise)
        claimed_eps, delta = game.claim
        alpha_each = alpha / max(len(names), 1)
        results = []
        for name in names:
            stat = DISTINGUISHERS[name].build(game, sel0, sel1)
            s0, s1 = _as_stats(stat(sel0)), _as_stats(stat(sel1))
            t0, t1 = _as_stats(stat(test0)), _as_stats(stat(test1))
            columns = list(getattr(stat, "columns", []))
            acc_event, eps_event = _choose(s0, s1, delta, alpha_each)
            results.append(
                _score(
                    name, t0, t1, acc_event, eps_event, claimed_eps, delta, alpha_each, 0, columns
                )
            )
        out.append(
            GameResult(
                path.name,
                via,
                float(eps),
                claimed_eps,
                delta,
                nb.name,
                trials,
                alpha,
                tuple(results),
            )
        )
    return out


def run_path(
    path: ReleasePath | str,
    data,
    eps: float,
    size: int,
    rng: np.random.Generator,
    *,
    via: str = "command",
) -> list[Output]:
    """``size`` runs of ``path`` on ``data`` at ``eps`` (through the command: with every channel).

    For checks of a path's other channels on neighbouring data (the same stdout, stderr,
    exit status and public files apart from the released values): compare the
    :attr:`Output.channel` of runs on :attr:`Neighbours.d0` and :attr:`Neighbours.d1`.
    """
    path = _path(path)
    _checks.instance(data, "data", Comparisons, "a dprank.data.comparisons.Comparisons")
    _checks.positive_finite(eps, "eps")
    size = _checks.count(size, "size", 1)
    _checks.rng(rng)
    if via not in ("api", "command"):
        raise ValueError(f"via must be 'api' or 'command', got {via!r}")
    source = NoiseSource.system() if path.options.get("source") == "system" else seeded_source(rng)
    nb = Neighbours("given", data, data)
    return game_runs(Game(path, float(eps), nb, via), data, size, source)


def _path(path) -> ReleasePath:
    """``path``, or the registered path of that name."""
    if isinstance(path, ReleasePath):
        return path
    if not isinstance(path, str):
        raise TypeError(f"path must be a ReleasePath or a name, got {type(path).__name__}")
    if path not in PATHS:
        raise ValueError(f"path {path!r} is no registered release path; known: {sorted(PATHS)}")
    return PATHS[path]


def _as_stats(x) -> np.ndarray:
    a = np.asarray(x, dtype=np.float64)
    return a.reshape(a.shape[0], -1)


# --------------------------------------------------------------------------- profiles and the table

#: The games of each profile: ``(path names or "*", via, epsilons, runs per data set)``.
PROFILES: dict[str, list[tuple]] = {
    "quick": [
        ("*", "api", (1.0,), 120),
        (
            [
                "rank --privacy edge --method mle",
                "rank --privacy individual --method mle --max-per-user 2",
                "rank --privacy edge --method noisy_obj",
            ],
            "api",
            (0.1, 8.0),
            120,
        ),
        (
            [
                "rank --privacy edge --method mle",
                "rank --privacy individual --method mle --max-per-user 2",
                "rank --privacy edge --method noisy_obj",
                "rank --privacy edge --method counts",
                "privatize --mechanism laplace",
            ],
            "command",
            (1.0,),
            30,
        ),
    ],
    "full": [
        ("*", "api", (0.1, 1.0, 8.0), 1000),
        ("*", "command", (0.1, 1.0, 8.0), 100),
    ],
}


def profile_games(profile: str | Sequence[tuple]) -> list[tuple[str, str, float, int]]:
    """The ``(path, via, eps, trials)`` of a profile.

    ``profile``: a name in :data:`PROFILES`, or a list like its values: entries
    ``(path names or "*", via, epsilons, runs per data set)``.

    Raises
    ------
    ValueError, TypeError
        For an unknown profile name, a malformed entry, an unknown path or way.
    """
    if isinstance(profile, str):
        if profile not in PROFILES:
            raise ValueError(
                f"profile must be one of {sorted(PROFILES)} or a list, got {profile!r}"
            )
        entries = PROFILES[profile]
    else:
        entries = _checks.sequence(profile, "profile")
    games = []
    for k, entry in enumerate(entries):
        if not isinstance(entry, (list, tuple)) or len(entry) != 4:
            raise TypeError(f"profile[{k}] must be (paths, via, epsilons, trials), got {entry!r}")
        names, via, epsilons, trials = entry
        names = list(PATHS) if names == "*" else _checks.names(names, "profile", PATHS)
        if via not in ("api", "command"):
            raise ValueError(f"profile[{k}]: via must be 'api' or 'command', got {via!r}")
        epsilons = [
            _checks.positive_finite(e, "profile") for e in _checks.sequence(epsilons, "profile")
        ]
        trials = _checks.count(trials, "profile", 8)
        games += [(n, via, float(e), int(trials)) for n in names for e in epsilons]
    return games


def audit_table(profile, seed: int, *, paths: Sequence[str] | None = None, source: str = "seeded"):
    """Every game of ``profile``: ``(summary, detail)`` data frames.

    ``detail``: one row per game and distinguisher (success rate, bound, se, epsilon
    lower bound, the event, whether it holds). ``summary``: one row per game (the
    largest success rate and epsilon bound over the battery and the verdict).
    Each game draws from its own stream, keyed by path, way and budget.
    """
    import pandas as pd

    from ..base.seeding import Stream, cell_key, generator

    games = profile_games(profile)
    seed = _checks.count(seed, "seed")
    if paths is not None:
        paths = _checks.names(paths, "paths", PATHS)
    if source not in ("seeded", "system"):
        raise ValueError(f"source must be 'seeded' or 'system', got {source!r}")
    rows, summary = [], []
    for name, via, eps, trials in games:
        if paths is not None and name not in paths:
            continue
        rng = generator(
            seed,
            "privacy_harness",
            cell_key({"path": name, "via": via, "eps": eps}),
            0,
            Stream.AUDIT,
        )
        for res in play(name, eps, trials, rng, via=via, source=source):
            rows += res.rows()
            best = max(res.results, key=lambda r: r["accuracy"])
            top = max(res.results, key=lambda r: r["eps_lower"])
            summary.append(
                {
                    "path": name,
                    "via": via,
                    "epsilon": eps,
                    "neighbours": res.neighbours,
                    "trials": trials,
                    "claimed_eps": res.claimed_eps,
                    "claimed_delta": res.claimed_delta,
                    "best_accuracy": best["accuracy"],
                    "best_distinguisher": best["distinguisher"],
                    "accuracy_bound": res.bound,
                    "three_se": 3.0 * best["se"],
                    "eps_lower_bound": top["eps_lower"],
                    "eps_distinguisher": top["distinguisher"] if top["eps_lower"] > 0 else "-",
                    "distinguishers": len(res.results),
                    "verdict": "holds" if res.holds else "VIOLATION",
                }
            )
    return pd.DataFrame(summary), pd.DataFrame(rows)


def path_id(name: str) -> str:
    """A file-name-safe id of a release path's name (the workflow's ``{release_path}``)."""
    _checks.text(name, "name")
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_")


#: The columns of :func:`summary_markdown`'s table and their headers.
_SUMMARY_COLUMNS = {
    "path": "release path",
    "via": "via",
    "epsilon": "eps",
    "neighbours": "neighbours",
    "trials": "runs per side",
    "best_accuracy": "best success",
    "accuracy_bound": "DP bound",
    "three_se": "3 se",
    "best_distinguisher": "by",
    "eps_lower_bound": "eps lower bound",
    "claimed_eps": "claim",
    "verdict": "verdict",
}


def summary_markdown(summary, profile: str) -> str:
    """The summary table of :func:`audit_table` as Markdown, after a line with its totals.

    Raises
    ------
    ValueError, TypeError
        If ``summary`` is not a data frame with :func:`audit_table`'s summary columns, or
        ``profile`` not a str.
    """
    _checks.columns(summary, "summary", list(_SUMMARY_COLUMNS))
    _checks.text(profile, "profile")
    lines = [
        f"Privacy harness, profile {profile}: {len(summary)} games, "
        f"{int((summary['verdict'] != 'holds').sum())} violations.",
        "",
        "| " + " | ".join(_SUMMARY_COLUMNS.values()) + " |",
        "|" + "---|" * len(_SUMMARY_COLUMNS),
    ]
    for _, r in summary.iterrows():
        cells = []
        for key in _SUMMARY_COLUMNS:
            v = r[key]
            cells.append(f"{v:.3f}" if isinstance(v, float) and key != "epsilon" else str(v))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"
