"""A leaderboard of a (private) ranking: arena scale, tie classes, rank bounds, an HTML page.

The columns a leaderboard shows next to each model's score, computed from the
ranking and its intervals (:meth:`dprank.api.Ranking.intervals`), that is from the
release and public inputs only:

* ``score`` on the chosen scale: the model's log-strength ``theta`` (``"logit"``) or
  the arena's Elo-like scale (``"elo"``): ``400 / ln(10) theta``, shifted so the mean
  model has 1000, or so that ``--anchor MODEL=VALUE`` has ``VALUE`` (LMArena's
  convention; ``arena-rank`` reports ``1000 + 400 / ln(10) theta``);
* ``rank_ub``, the **rank upper bound**: ``1 +`` the number of models whose interval
  lies wholly above this model's (LMArena's "Rank (UB)": the best rank the data do not
  rule out); a missing or infinite bound (a model the release does not locate) is
  unbounded on that side;
* ``tie_class``: models the release cannot order, numbered from the top. With the
  intervals of :func:`dprank.intervals.intervals` (every method but the ties methods)
  it is theirs: the groups of places the simultaneous rank intervals cannot split.
  Otherwise (the ties methods' bootstrap), walking down the ranking, a new class starts
  at the first model whose interval lies wholly below the interval of the current
  class's first model (:func:`tie_classes`);
* ``votes``: the votes per model *as released* (methods that release them: the ties
  methods of :mod:`dprank.privacy.private_ties`; noisy under voter-level DP, public under edge
  DP, the release's own under local DP), never the private counts.

:func:`html_page` writes a self-contained page (no external resource: styles, script
and data inline): the table sortable by any column, each interval drawn, and the
release's privacy guarantee stated in words (:func:`privacy_statement`).
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Mapping

import numpy as np

from .base import _checks

__all__ = [
    "ELO_PER_LOGIT",
    "elo_offset",
    "html_page",
    "leaderboard_columns",
    "privacy_statement",
    "rank_upper_bound",
    "tie_classes",
]

#: Points of the arena's Elo-like scale per unit of log-strength: ``400 / ln(10)``.
ELO_PER_LOGIT = 400.0 / math.log(10.0)


def _bounds(score_lo, score_hi) -> tuple[np.ndarray, np.ndarray]:
    """The intervals' bounds, checked: finite vectors of one length, ``lo <= hi``."""
    lo = np.asarray(_checks.finite(score_lo, "score_lo", ndim=1), dtype=np.float64)
    hi = np.asarray(_checks.finite(score_hi, "score_hi", ndim=1), dtype=np.float64)
    if lo.shape != hi.shape:
        raise ValueError(f"score_hi must have score_lo's shape {lo.shape}, got {hi.shape}")
    if np.any(lo > hi):
        raise ValueError("score_lo must not exceed score_hi")
    return lo, hi


def rank_upper_bound(score_lo, score_hi) -> np.ndarray:
    """``1 + #{j: score_lo[j] > score_hi[i]}`` for each model ``i`` (LMArena's rank UB)."""
    lo, hi = _bounds(score_lo, score_hi)
    sorted_lo = np.sort(lo)
    above = lo.size - np.searchsorted(sorted_lo, hi, side="right")
    return (1 + above).astype(np.int64)


def _unbounded_rank_ub(score_lo, score_hi) -> np.ndarray:
    """:func:`rank_upper_bound` where a bound may be missing (NaN) or infinite: a missing
    lower bound is ``-inf``, a missing upper bound ``+inf`` (the release does not bound the
    model on that side), so such a model's rank UB is 1 and it lies above no other."""
    lo = np.where(np.isnan(score_lo), -np.inf, score_lo)
    hi = np.where(np.isnan(score_hi), np.inf, score_hi)
    above = lo.size - np.searchsorted(np.sort(lo), hi, side="right")
    return (1 + above).astype(np.int64)


def tie_classes(score, score_lo, score_hi) -> np.ndarray:
    """Tie classes numbered from 1 at the top (module docstring).

    Walking the models by decreasing ``score``, a model opens a new class when its
    ``score_hi`` lies below the ``score_lo`` of the current class's first model, so the
    release cannot order the models within a class against that model.
    """
    lo, hi = _bounds(score_lo, score_hi)
    score = np.asarray(_checks.finite(score, "score", ndim=1), dtype=np.float64)
    if score.shape != lo.shape:
        raise ValueError(f"score must have the bounds' shape {lo.shape}, got {score.shape}")
    order = np.argsort(-score, kind="stable")
    out = np.empty(score.size, dtype=np.int64)
    cls, leader_lo = 0, math.inf
    for k in order:
        if cls == 0 or hi[k] < leader_lo:
            cls += 1
            leader_lo = lo[k]
        out[k] = cls
    return out


def elo_offset(theta, items, anchor: tuple[str, float] | None = None) -> float:
    """The shift of the Elo scale: mean model at 1000, or ``anchor = (model, value)``.

    Raises
    ------
    ValueError
        If the anchor's model is not among ``items``.
    """
    theta = np.asarray(_checks.finite(theta, "theta", ndim=1), dtype=np.float64)
    labels = np.asarray(items).astype(str)
    if labels.shape != theta.shape:
        raise ValueError(f"items must hold one label per score ({theta.size}), got {labels.shape}")
    if anchor is None:
        return 1000.0 - ELO_PER_LOGIT * float(theta.mean()) if theta.size else 1000.0
    if not isinstance(anchor, (tuple, list)) or len(anchor) != 2:
        raise TypeError(f"anchor must be a pair (model, value), got {anchor!r}")
    name, value = anchor
    if not np.isfinite(_checks.real(value, "anchor")):
        raise ValueError(f"anchor's value must be finite, got {value!r}")
    hit = np.flatnonzero(labels == str(name))
    if hit.size == 0:
        close = [str(x) for x in labels if str(name).lower() in str(x).lower()][:5]
        hint = f"; similar: {close}" if close else ""
        raise ValueError(f"--anchor: no model named {name!r} in the ranking{hint}")
    return float(value) - ELO_PER_LOGIT * float(theta[hit[0]])


def leaderboard_columns(
    columns: Mapping[str, np.ndarray],
    *,
    scale: str = "logit",
    anchor: tuple[str, float] | None = None,
    votes: Mapping[str, float] | None = None,
) -> dict[str, np.ndarray]:
    """The ranking's columns (``item, score, rank[, ...]`` and, if present, the intervals'
    ``score_lo, score_hi, rank_lo, rank_hi``) with the leaderboard's added.

    ``scale="elo"`` puts ``score``, ``estimate``, ``score_lo`` and ``score_hi`` on the
    arena scale; with intervals, ``rank_ub`` is appended and ``tie_class`` unless the
    intervals give theirs, and ``votes`` (a map from item to its released vote count)
    adds that column. Bounds may be missing (NaN) or infinite where the release does
    not locate a model (:func:`_unbounded_rank_ub`).
    """
    _checks.mapping(columns, "columns", ("item",))
    if not isinstance(scale, str) or scale not in ("logit", "elo"):
        raise ValueError(f"scale must be 'logit' or 'elo', got {scale!r}")
    if votes is not None:
        _checks.mapping(votes, "votes")
    out = {k: np.asarray(v) for k, v in columns.items()}
    n = out["item"].shape[0] if out["item"].ndim else -1
    if n < 0 or any(v.shape[:1] != (n,) for v in out.values()):
        raise ValueError("columns must hold arrays of one length, one entry per item")
    items = out["item"]
    if scale == "elo" and "score" in out:
        theta = out["score"].astype(np.float64)
        shift = elo_offset(theta, items, anchor)
        for key in ("score", "estimate", "score_lo", "score_hi"):
            if key in out:
                out[key] = ELO_PER_LOGIT * out[key].astype(np.float64) + shift
    if "score_lo" in out and "score_hi" in out:
        lo = out["score_lo"].astype(np.float64)
        hi = out["score_hi"].astype(np.float64)
        if np.all(np.isfinite(lo)) and np.all(np.isfinite(hi)):
            out["rank_ub"] = rank_upper_bound(lo, hi)
        else:
            out["rank_ub"] = _unbounded_rank_ub(lo, hi)
        if "tie_class" not in out:
            out["tie_class"] = tie_classes(out["score"], lo, hi)
        else:  # the intervals' own (simultaneous) classes: kept, after rank_ub
            out["tie_class"] = out.pop("tie_class")
    if votes is not None:
        missing = [str(i) for i in items if str(i) not in votes]
        if missing:
            raise ValueError(f"votes lacks the item(s) {missing[:5]}")
        out["votes"] = np.array([round(float(votes[str(i)])) for i in items], dtype=np.int64)
    return out


# --------------------------------------------------------------------------- words


def privacy_statement(record: Mapping) -> str:
    """The release's guarantee in words, from its public record (:meth:`Ranking.record`)."""
    _checks.mapping(record, "record", ("privacy", "private"))
    privacy = record.get("privacy")
    eps = record.get("epsilon")
    delta = record.get("delta") or 0.0
    if not record.get("private", False):
        if privacy == "none":
            return (
                "This leaderboard is not private: it was computed from the votes as they are, "
                "and it may reveal how individual votes went."
            )
        return (
            "This leaderboard is NOT private: its noise was drawn from a seed "
            "(--insecure-seed), and whoever knows or guesses the seed can remove it."
        )
    if privacy == "local":
        return (
            "Local differential privacy: every voter randomised each vote before it was "
            "collected (a tie, a win or a loss, reported truthfully only with a probability "
            "set by the voter's own budget epsilon), so nobody, the leaderboard's maker "
            "included, ever saw a true vote. The leaderboard is computed from those "
            "randomised votes alone."
        )
    factor = math.exp(float(eps)) if eps is not None and float(eps) < 50 else math.inf
    odds = (
        f"changes the probability of any outcome by at most a factor e^{float(eps):g} "
        f"= {factor:.3g}"
    )
    extra = f" (and a probability {delta:g} of more)" if delta else ""
    if privacy == "individual":
        bound = record.get("max_per_user")
        return (
            f"Voter-level differential privacy, epsilon = {float(eps):g}: replacing all the "
            f"votes of any one voter (at most {bound} of them count) {odds}{extra}. Anyone "
            "who sees this page learns almost nothing about any single voter. The vote "
            "counts shown are noisy, as released. The noise came from the operating "
            "system's secure random generator through exact samplers."
        )
    return (
        f"Differential privacy for each vote, epsilon = {float(eps):g}: changing the outcome "
        f"of any one vote (a win, a tie or a loss) {odds}{extra}. Which models were "
        "compared and how often is public under this guarantee (the vote counts shown); "
        "the outcomes are protected. The noise came from the operating system's secure "
        "random generator through exact samplers."
    )


# --------------------------------------------------------------------------- the page

_STYLE = """
body { font-family: system-ui, -apple-system, "Segoe UI", sans-serif; margin: 2rem auto;
  max-width: 72rem; padding: 0 1rem; color: #1b1b1b; }
h1 { font-size: 1.5rem; margin-bottom: .25rem; }
p.meta { color: #555; margin-top: 0; }
div.privacy { border-left: 4px solid #2b6cb0; background: #f3f7fc; padding: .6rem 1rem;
  margin: 1rem 0; }
table { border-collapse: collapse; width: 100%; font-size: .9rem; }
th, td { padding: .3rem .5rem; border-bottom: 1px solid #e3e3e3; text-align: right;
  white-space: nowrap; }
th { position: sticky; top: 0; background: #fafafa; cursor: pointer; user-select: none; }
th.sorted-asc::after { content: " \\25B2"; font-size: .7em; }
th.sorted-desc::after { content: " \\25BC"; font-size: .7em; }
td.item, th.item { text-align: left; white-space: normal; }
td.interval { padding: 0 .5rem; }
tr.odd-class { background: #f6f6f6; }
svg.iv line.range { stroke: #2b6cb0; stroke-width: 2; }
svg.iv circle { fill: #1a365d; }
svg.iv line.axis { stroke: #ccc; stroke-width: 1; }
"""

_SCRIPT = """
(function () {
  var table = document.getElementById('leaderboard');
  var body = table.tBodies[0];
  var heads = table.tHead.rows[0].cells;
  function key(row, col) {
    var v = row.cells[col].getAttribute('data-value');
    var x = parseFloat(v);
    return isNaN(x) ? v.toLowerCase() : x;
  }
  function sortBy(col, dir) {
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var ka = key(a, col), kb = key(b, col);
      var c = ka < kb ? -1 : (ka > kb ? 1 : 0);
      if (c === 0) { c = parseFloat(a.getAttribute('data-order')) -
                         parseFloat(b.getAttribute('data-order')); return c; }
      return dir === 'desc' ? -c : c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
    for (var k = 0; k < heads.length; k++) {
      heads[k].classList.remove('sorted-asc', 'sorted-desc');
      heads[k].setAttribute('aria-sort', 'none');
    }
    heads[col].classList.add(dir === 'desc' ? 'sorted-desc' : 'sorted-asc');
    heads[col].setAttribute('aria-sort', dir === 'desc' ? 'descending' : 'ascending');
    table.setAttribute('data-sorted', heads[col].getAttribute('data-key') + ':' + dir);
  }
  Array.prototype.forEach.call(heads, function (th, col) {
    th.addEventListener('click', function () {
      var dir = th.classList.contains('sorted-asc') ? 'desc' : 'asc';
      sortBy(col, dir);
    });
  });
  var m = /sort=([a-z_]+):(asc|desc)/.exec(window.location.hash || '');
  if (m) {
    for (var k = 0; k < heads.length; k++) {
      if (heads[k].getAttribute('data-key') === m[1]) { sortBy(k, m[2]); }
    }
  }
  table.setAttribute('data-ready', 'true');
})();
"""


def _fmt(x, digits: int = 3) -> str:
    if isinstance(x, (int, np.integer)):
        return str(int(x))
    v = float(x)
    if not math.isfinite(v):
        return str(v)
    return f"{v:.{digits}f}" if abs(v) < 100 else f"{v:.1f}"


def _interval_svg(lo, est, hi, vmin, vmax, width=220, height=14) -> str:
    span = vmax - vmin if vmax > vmin else 1.0

    def x(v):
        return 4 + (width - 8) * (float(v) - vmin) / span

    return (
        f'<svg class="iv" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="interval {_fmt(lo)} to {_fmt(hi)}">'
        f'<line class="axis" x1="4" y1="{height / 2}" x2="{width - 4}" y2="{height / 2}"/>'
        f'<line class="range" x1="{x(lo):.1f}" y1="{height / 2}" x2="{x(hi):.1f}" '
        f'y2="{height / 2}"/><circle cx="{x(est):.1f}" cy="{height / 2}" r="3"/></svg>'
    )


def _json_column(values: np.ndarray) -> list:
    """A column for the page's data: text as text, a missing or infinite number as null."""
    if values.dtype.kind == "O":
        return [str(x) for x in values]
    if values.dtype.kind == "f":
        return [float(x) if math.isfinite(x) else None for x in values.tolist()]
    return values.tolist()


def html_page(columns: Mapping[str, np.ndarray], record: Mapping, *, title: str) -> str:
    """A self-contained HTML leaderboard of :func:`leaderboard_columns`' output.

    Sortable by clicking a column's header (or on load by the address's ``#sort=KEY:asc``
    or ``:desc``), each model's interval drawn to one scale, the privacy guarantee in
    words (:func:`privacy_statement`). No external resource.
    """
    _checks.mapping(columns, "columns", ("item", "score", "rank"))
    _checks.mapping(record, "record", ("privacy", "private"))
    _checks.text(title, "title")
    cols = {k: np.asarray(v) for k, v in columns.items()}
    n = len(cols["item"])
    has_iv = "score_lo" in cols
    order = np.argsort(cols["rank"], kind="stable")
    heads = [("rank", "Rank")]
    if has_iv:
        heads += [("rank_ub", "Rank (UB)"), ("tie_class", "Tie class")]
    heads += [("item", "Model"), ("score", "Score")]
    if has_iv:
        heads += [("interval", f"{record.get('intervals_level', 0.95):g} interval"),
                  ("rank_range", "Rank range")]  # fmt: skip
    if "votes" in cols:
        heads.append(("votes", "Votes (released)"))
    if has_iv:
        centre = cols.get("estimate", cols["score"]).astype(np.float64)
        lo_all = cols["score_lo"].astype(np.float64)
        hi_all = cols["score_hi"].astype(np.float64)
        ends = np.concatenate([lo_all, hi_all, centre])
        ends = ends[np.isfinite(ends)]
        vmin, vmax = (float(ends.min()), float(ends.max())) if ends.size else (0.0, 1.0)
    rows = []
    for pos, k in enumerate(order):
        cells = [f'<td data-value="{int(cols["rank"][k])}">{int(cols["rank"][k])}</td>']
        if has_iv:
            for key in ("rank_ub", "tie_class"):
                value = int(cols[key][k])
                cells.append(f'<td data-value="{value}">{value}</td>')
        name = html.escape(str(cols["item"][k]))
        cells.append(f'<td class="item" data-value="{name}">{name}</td>')
        cells.append(f'<td data-value="{float(cols["score"][k])!r}">{_fmt(cols["score"][k])}</td>')
        if has_iv:
            lo, hi = float(lo_all[k]), float(hi_all[k])
            if math.isfinite(lo) and math.isfinite(hi):
                svg = _interval_svg(lo, centre[k], hi, vmin, vmax)
                cells.append(
                    f'<td class="interval" data-value="{lo!r}" title="{_fmt(lo)} to {_fmt(hi)}">'
                    f"{svg} <small>{_fmt(lo)} to {_fmt(hi)}</small></td>"
                )
            else:  # not located, or unbounded on one side: no drawing
                text = "not located" if math.isnan(lo) else f"{_fmt(lo)} to {_fmt(hi)}"
                key = "-Infinity" if not math.isfinite(lo) else repr(lo)
                cells.append(f'<td class="interval" data-value="{key}">{text}</td>')
            rl, rh = float(cols["rank_lo"][k]), float(cols["rank_hi"][k])
            if math.isfinite(rl) and math.isfinite(rh):
                cells.append(f'<td data-value="{int(rl)}">{int(rl)}&ndash;{int(rh)}</td>')
            else:
                cells.append(f'<td data-value="{n + 1}">not located</td>')
        if "votes" in cols:
            cells.append(f'<td data-value="{int(cols["votes"][k])}">{int(cols["votes"][k])}</td>')
        shade = ' class="odd-class"' if has_iv and int(cols["tie_class"][k]) % 2 else ""
        rows.append(f'<tr data-order="{pos}"{shade}>' + "".join(cells) + "</tr>")
    header = "".join(
        f'<th data-key="{key}" class="{"item" if key == "item" else ""}" aria-sort="none">'
        f"{html.escape(label)}</th>"
        for key, label in heads
    )
    eps = record.get("epsilon")
    mechanism = html.escape(str(record.get("description") or record.get("mechanism", "")))
    meta = f"{n} models; {mechanism}"
    if eps is not None:
        meta += f"; epsilon = {float(eps):g}"
    if record.get("model"):
        meta += f"; model: {html.escape(str(record['model']))}"
    notes = []
    if has_iv:
        iv = record.get("intervals") or {}
        joint = bool(iv.get("joint")) if isinstance(iv, Mapping) else False
        classes = iv.get("tie_class") if isinstance(iv, Mapping) else None
        how = "simultaneous (all models at once)" if joint else "marginal (one model at a time)"
        classes = classes or (
            "a tie class groups models the release cannot order against the class's first model"
        )
        notes.append(
            f"Intervals are {how}, computed from the release and public inputs only. "
            "Rank (UB) is one plus the number of models whose interval lies wholly above "
            f"this one's; {html.escape(str(classes))}."
        )
    notes.append("Click a column's header to sort.")
    data = {k: _json_column(v) for k, v in cols.items()}
    payload = json.dumps(data).replace("<", "\\u003c")  # no "</script>" inside the script
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{html.escape(title)}</title><style>{_STYLE}</style></head><body>"
        f'<h1>{html.escape(title)}</h1><p class="meta">{meta}</p>'
        f'<div class="privacy" id="privacy"><strong>Privacy.</strong> '
        f"{html.escape(privacy_statement(record))}</div>"
        f'<table id="leaderboard" data-rows="{n}"><thead><tr>{header}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>"
        f'<p class="meta">{" ".join(html.escape(x) for x in notes)}</p>'
        f'<script type="application/json" id="leaderboard-data">'
        f"{payload}</script>"
        f"<script>{_SCRIPT}</script></body></html>\n"
    )
