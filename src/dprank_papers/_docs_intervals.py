"""The numbers docs/intervals.md gives in words about the rerun of the intervals' coverage study
(section "Where they are wide, and why"), each read from the summary that
``benchmarks/intervals_rerun.py --csv results/measured/intervals_rerun.csv`` keeps (one row per
design, the columns of :func:`dprank_papers.studies.intervals.summarise`; the same run writes the
table the page includes, docs/includes/intervals_rerun.md): ``measure(root, results) -> str or
None`` (None when the summary is not there), as :data:`dprank_papers.docs_measures.MEASURES`
uses them.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path

Reader = Callable[[Path, Path], "str | None"]

#: The summary of the rerun, under ``results/``
SUMMARY = "measured/intervals_rerun.csv"

#: The issue's targets that config.yaml does not hold: the debiased calibration error of
#: p_top_k (as :func:`dprank_papers.studies.intervals.summarise`'s ``meets``) and the mean
#: rank width against the parametric bootstrap's
ECE_TARGET = 0.02
RATIO_TARGET = 1.1

#: The edge-DP designs on Erdos-Renyi graphs of config.yaml's intervals section
ER_DESIGNS = ("edge_eps1_sparse", "edge_eps4_dense", "edge_n20", "counts_eps1")


def _ratio(r) -> float:
    """Mean rank width over the bootstrap's (the table's "rank width ratio")."""
    return r.rank_width / r.boot_rank_width if r.boot_rank_width > 0 else math.nan


#: The average coverages of the summary (these intervals' and the bootstrap's)
_COVERS = ("rank_cover", "boot_rank_cover", "score_cover", "boot_score_cover")

#: field -> (its number of a summary row, its format)
FIELDS: dict[str, tuple[Callable, str]] = {
    **{name: (lambda r, name=name: float(getattr(r, name)), ".3f") for name in _COVERS},
    "boot_rank_cover_min": (lambda r: float(r.boot_rank_cover_min), ".2f"),
    "score_width_median": (lambda r: float(r.score_width_median), ".3g"),
    "ratio": (_ratio, ".2f"),
}

#: The fields the page quotes of the Erdos-Renyi designs (each a range over them)
FIELDS_ER = ("ratio", *_COVERS)

#: The fields the page quotes of the other designs: (name, designs, fields)
QUOTED = (
    (
        "heavy",
        ("heavy_edge", "heavy_nonprivate"),
        ("places", "ratio", "boot_rank_cover_min", *_COVERS),
    ),
    (
        "tight",
        ("tight_eps8",),
        ("places", "ratio", "rank_cover", "boot_rank_cover", "boot_rank_cover_min"),
    ),
    ("wide", ("wide_eps2",), ("places", "ratio", "rank_cover")),
    ("ties", ("ties_eps2",), ("places", "rank_cover")),
    ("declared", ("individual_declared",), ("places", "ratio")),
    (
        "vacuous",
        ("individual_fewer", "individual_popular"),
        ("places", "rank_cover", "boot_rank_cover"),
    ),
    ("local", ("local_mixed_eps",), ("places", "ratio", *_COVERS)),
    ("thurstone", ("thurstone_nonprivate", "thurstone_local"), ("places", "ratio", "score_cover")),
)


def _width(x: float) -> str:
    """A mean rank width to three digits as the table shows it, without its exponent
    (``1.13e+03`` -> ``1130``)."""
    text = format(x, ".3g")
    return f"{float(text):.0f}" if "e" in text else text


def _summary(results: Path):
    """The rerun's summary (a DataFrame indexed by design), or None."""
    import pandas as pd

    path = results / SUMMARY
    if not path.is_file():
        return None
    frame = pd.read_csv(path, comment="#")
    return frame.set_index("design", drop=False)


def _quote(frame, designs: Sequence[str], field: str, join: str) -> str:
    """:func:`rerun`'s text from the summary ``frame``."""
    missing = [d for d in designs if d not in frame.index]
    if missing:
        raise ValueError(
            f"results/{SUMMARY} lacks the designs {missing}: run benchmarks/intervals_rerun.py "
            "on every design (no --designs) before python -m dprank_papers.docs_generate"
        )
    rows = [next(frame.loc[[d]].itertuples(index=False)) for d in designs]
    if field == "places":
        texts = [f"{_width(r.rank_width)} of {int(r.n_items)}" for r in rows]
        return join.join(texts) + " places"
    number, spec = FIELDS[field]
    numbers = [number(r) for r in rows]
    if join == "range":
        lo, hi = format(min(numbers), spec), format(max(numbers), spec)
        return lo if lo == hi else f"{lo} to {hi}"
    return join.join(format(x, spec) for x in numbers)


def rerun(designs: Sequence[str], field: str, join: str = "range") -> Reader:
    """``field`` of :data:`FIELDS` (or ``"places"``: the mean rank width "of n places") for
    each of ``designs``, joined by ``join``: ``"range"`` (``"1.02 to 1.09"``, one number where
    they agree) or a separator (``" and "``)."""
    if field != "places" and field not in FIELDS:
        raise ValueError(f"unknown field {field!r}; one of {['places', *FIELDS]}")

    def measure(root: Path, results: Path) -> str | None:
        frame = _summary(results)
        return None if frame is None else _quote(frame, designs, field, join)

    return measure


def _targets(root: Path) -> tuple[float, float]:
    """``target`` and ``item_target`` of config.yaml's ``intervals`` section."""
    import yaml

    section = yaml.safe_load((root / "config.yaml").read_text())["intervals"]
    return float(section["target"]), float(section["item_target"])


def targets(root: Path, results: Path) -> str:
    """The coverage targets of config.yaml's ``intervals`` section, in words (a derived
    value: the checkout alone determines it)."""
    target, item_target = _targets(root)
    return f"{target:g} on average and {item_target:g} for each item"


def _designs(rows, text: Callable) -> str:
    """``"`a` (text), `b` (text)"`` of ``rows``, or ``"none"``."""
    parts = [f"`{r.design}` ({text(r)})" for r in rows]
    return ", ".join(parts) if parts else "none"


def _shown(x: float, spec: str) -> float:
    """``x`` as the table shows it (a design falls short by what a reader of the table sees)."""
    return float(format(x, spec))


def _locates(r) -> bool:
    """Whether the intervals locate any item of the design (the summary's ``located``; a
    summary without it: yes). Where they locate none, ``dprank rank --intervals`` leaves
    every interval cell empty and says why, so there are no widths to hold against the
    bootstrap's."""
    located = getattr(r, "located", math.nan)
    return bool(math.isnan(located) or located > 0)


def _c(x: float) -> float:
    return _shown(x, ".3f")


#: what -> (the rows it lists, given the targets; what it says of each)
_SHORTFALLS: dict[str, tuple[Callable, Callable]] = {
    "cover": (
        lambda r, t, it: min(_c(r.score_cover), _c(r.rank_cover)) < t,
        lambda r: f"scores {r.score_cover:.3f}, ranks {r.rank_cover:.3f}",
    ),
    "items_below": (
        lambda r, t, it: r.score_items_below + r.rank_items_below > 0,
        lambda r: f"{int(r.score_items_below)} for scores, {int(r.rank_items_below)} for ranks",
    ),
    "brier": (
        lambda r, t, it: _shown(r.brier, ".4f") >= _shown(r.brier_base, ".4f"),
        lambda r: f"{r.brier:.4f} against {r.brier_base:.4f}",
    ),
    "ece": (lambda r, t, it: _c(r.ece_debiased) > ECE_TARGET, lambda r: f"{r.ece_debiased:.3f}"),
    "wider": (
        lambda r, t, it: _locates(r) and _shown(_ratio(r), ".2f") > RATIO_TARGET,
        lambda r: f"{_ratio(r):.2f}",
    ),
    "not_located": (
        lambda r, t, it: not _locates(r),
        lambda r: f"ratio {_ratio(r):.2f}, rank cover {r.rank_cover:.3f}",
    ),
    "rank_below_boot": (
        lambda r, t, it: _c(r.rank_cover) < _c(r.boot_rank_cover),
        lambda r: f"{r.rank_cover:.3f} against {r.boot_rank_cover:.3f}",
    ),
    "score_below_boot": (
        lambda r, t, it: _c(r.score_cover) < _c(r.boot_score_cover),
        lambda r: f"{r.score_cover:.3f} against {r.boot_score_cover:.3f}",
    ),
}


#: What :func:`shortfall` reports
SHORTFALLS = ("meets", *_SHORTFALLS)


def shortfall(what: str) -> Reader:
    """The designs that fall short in one respect (:data:`_SHORTFALLS`, judged on the numbers
    as the table shows them), each with its numbers, or ``"none"``; ``"meets"``: how many
    designs meet every target (the summary's ``meets``) of how many."""
    if what != "meets" and what not in _SHORTFALLS:
        raise ValueError(f"unknown shortfall {what!r}; one of {['meets', *_SHORTFALLS]}")

    def measure(root: Path, results: Path) -> str | None:
        frame = _summary(results)
        if frame is None:
            return None
        if what == "meets":
            met = frame["meets"].astype(str).str.lower() == "true"
            return f"{int(met.sum())} of {len(frame)}"
        select, text = _SHORTFALLS[what]
        target, item_target = _targets(root)
        rows = [r for r in frame.itertuples(index=False) if select(r, target, item_target)]
        return _designs(rows, text)

    return measure
