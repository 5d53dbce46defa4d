"""How each value of :data:`dprank_papers.docs_measures.MEASURES` is read: one factory per
kind of source (a comparison summary, the audit's table, Snakemake's benchmark files, a
study's csv, the checkout's configuration), each returning ``measure(root, results) -> str or
None`` (None when the run's file is not there).
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

from .docs_timing import format_bytes, format_duration, timed_record


def file_size(rel: str) -> Callable[[Path, Path], str | None]:
    def measure(root: Path, results: Path) -> str | None:
        path = results / rel
        return format_bytes(path.stat().st_size) if path.is_file() else None

    return measure


def results_size(root: Path, results: Path) -> str | None:
    """The paper-scale results/ with the report (its smoke/ sub-folder left out)."""
    if not (results / "report.html").is_file():
        return None
    smoke = results / "smoke"
    total = 0
    for dirpath, dirnames, filenames in os.walk(results):
        if Path(dirpath) == results and smoke.is_dir():
            dirnames[:] = [d for d in dirnames if d != "smoke"]
        total += sum((Path(dirpath) / f).lstat().st_size for f in filenames)
    return format_bytes(total)


def timed(name: str, field: str) -> Callable[[Path, Path], str | None]:
    def measure(root: Path, results: Path) -> str | None:
        record = timed_record(results, name)
        if record is None:
            return None
        if field == "peak_rss_bytes":
            return format_bytes(record[field])
        if field == "wall_seconds":
            return format_duration(record[field])
        if field == "load":  # the machine's load average as the command started and ended
            start, end = record["load_average_start"], record["load_average_end"]
            return f"{start:.1f} at the start, {end:.1f} at the end"
        return f"{record[field]:.0f} s"  # CPU seconds

    return measure


def registered_methods(root: Path, results: Path) -> str:
    from dprank.methods import all_methods

    return str(len(all_methods()))


def harness_count(what: str) -> Callable[[Path, Path], str]:
    """The privacy harness's declared release paths (``"paths"``) or the games of its full
    profile (``"full_games"``: every path through each way at each budget), from the code."""

    def measure(root: Path, results: Path) -> str:
        from dprank.audit import harness

        if what == "paths":
            return str(len(harness.PATHS))
        return str(len(harness.profile_games(what.removesuffix("_games"))))

    return measure


def b2_overlays(root: Path, results: Path) -> str:
    """The B2 figures drawn with an overlay of published numbers, and the tables they show."""
    import yaml

    items = yaml.safe_load((root / "workflow/papers/paper_b2.yaml").read_text())["items"]
    figures, tables = [], set()
    for item, spec in items.items():
        published = spec.get("published")
        if item.startswith("fig") and isinstance(published, list):
            figures.append(int(item[3:]))
            tables |= {int(t.removeprefix("table")) for t in published}
    figures.sort()
    return f"Figures {', '.join(map(str, figures))} (Tables {span(sorted(tables))})"


def span(numbers: Sequence[int]) -> str:
    """``[5, 6, 7, 8]`` -> ``"5-8"``; gaps give ``"5-7, 9"``."""
    parts, start = [], None
    for i, n in enumerate(numbers):
        start = n if start is None else start
        if i + 1 == len(numbers) or numbers[i + 1] != n + 1:
            parts.append(f"{start}-{n}" if n > start else str(n))
            start = None
    return ", ".join(parts)


@functools.lru_cache(maxsize=8)
def planned_job_table(root: Path, *args: str) -> dict[str, int]:
    """The jobs ``snakemake -n --forceall`` plans in ``root``, per rule, and their ``"total"``
    (its job table; one dry run per ``root`` and ``args`` in a process)."""
    proc = subprocess.run(
        [sys.executable, "-m", "snakemake", *args, "-n", "--forceall", "--quiet", "rules"],
        cwd=root,
        capture_output=True,
        text=True,
        check=False,
        env={
            **os.environ,
            "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        },
    )
    text = proc.stdout + proc.stderr
    table = re.search(r"^job\s+count\n-+\s+-+\n(.*?^total\s+\d+)$", text, flags=re.M | re.S)
    if proc.returncode != 0 or table is None:
        raise RuntimeError(f"snakemake -n {' '.join(args)} in {root} failed:\n{text[-2000:]}")
    return {
        rule: int(count)
        for rule, count in (line.split() for line in table.group(1).splitlines() if line.strip())
    }


def planned_jobs(root: Path, *args: str) -> int:
    """The jobs ``snakemake -n --forceall`` plans in ``root`` (the "total" of its job table)."""
    return planned_job_table(root, *args)["total"]


def planned_rule_jobs(rules: Sequence[str] = (), prefix: str = "") -> Callable[[Path, Path], str]:
    """The jobs of ``rules`` (and of every rule named ``prefix...``) that ``snakemake -n
    --forceall`` plans for the default target at paper scale."""

    def measure(root: Path, results: Path) -> str:
        table = planned_job_table(root)
        jobs = [
            count
            for rule, count in table.items()
            if rule != "total" and (rule in rules or (prefix and rule.startswith(prefix)))
        ]
        if len(jobs) < len(rules):
            raise RuntimeError(f"snakemake -n in {root} plans no job of some of {rules}")
        return str(sum(jobs))

    return measure


def agreement(names: Sequence[str], what: str) -> Callable[[Path, Path], str | None]:
    """Cells within tolerance / compared (``what="ratio"``), outside (``"outside"``) or the
    items with cells outside and how many (``"items"``: ``Table 6 (18), Table 7 (7)``) over the
    comparison summaries ``results/comparison/<name>_summary.csv``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        paths = [results / "comparison" / f"{name}_summary.csv" for name in names]
        if not all(p.is_file() for p in paths):
            return None
        frame = pd.concat([pd.read_csv(p) for p in paths])
        within, compared = int(frame["within"].sum()), int(frame["compared"].sum())
        if what == "ratio":
            return f"{within} / {compared}"
        if what == "outside":
            return str(compared - within)
        from .report import natural_key

        outside = {
            str(r["figure"]).removeprefix("B2 ").removeprefix("B1 "): int(
                r["compared"] - r["within"]
            )
            for _, r in frame.iterrows()
            if r["compared"] > r["within"]
        }
        return ", ".join(
            f"{k} ({v})" for k, v in sorted(outside.items(), key=lambda kv: natural_key(kv[0]))
        )

    return measure


def audit_bound(audit: str, digits: int) -> Callable[[Path, Path], str | None]:
    """The privacy audit's lower bound on eps of one audit (``results/audit/privacy.csv``)."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "audit" / "privacy.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path).set_index("audit")
        return f"{float(frame.loc[audit, 'lower_bound']):.{digits}g}"

    return measure


def audit_field(audit: str, column: str, spec: str) -> Callable[[Path, Path], str | None]:
    """One number of one audit of ``results/audit/privacy.csv``, formatted with ``spec``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "audit" / "privacy.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path).set_index("audit")
        return format(float(frame.loc[audit, column]), spec)

    return measure


def job_seconds(pattern: str, what: str) -> Callable[[Path, Path], str | None]:
    """Job seconds of the benchmark files ``results/benchmarks/<pattern>`` (a glob; Snakemake's
    ``benchmark:`` files, column ``s``): ``what="sum"`` (``"500 s"``), ``"range"``
    (``"55-71 s"``), ``"jobs"`` (how many files) or ``"sum_range"`` (``"500 s (8 jobs of
    55-71 s)"``); None when no file matches."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        files = sorted((results / "benchmarks").glob(pattern))
        if not files:
            return None
        seconds = [float(pd.read_csv(f, sep="\t")["s"].iloc[0]) for f in files]
        total = f"{sum(seconds):.0f} s"
        span = f"{min(seconds):.0f}-{max(seconds):.0f} s"
        return {
            "sum": total,
            "range": span,
            "jobs": str(len(files)),
            "sum_range": f"{total} ({len(files)} jobs of {span})",
        }[what]

    return measure


def largest_memory_estimate(sections: Sequence[str], label: bool) -> Callable:
    """The largest job's memory estimate (``dprank_papers.config.estimate_cell_memory``) over the
    cells of ``config.yaml`` in ``sections``, in GB to two digits (and the paper's name)."""
    labels = {"paper_a_edge": "Paper A", "paper_a_individual": "Paper A"}
    labels |= {"paper_b1": "Paper B1", "paper_b2": "Paper B2"}

    def measure(root: Path, results: Path) -> str:
        import yaml

        from .config import estimate_cell_memory, memory_cells

        config = yaml.safe_load((root / "config.yaml").read_text())
        need, section = max(
            (estimate_cell_memory(sec, cell, reps), sec)
            for _, sec, cell, reps in memory_cells(config)
            if sec in sections
        )
        text = f"{need / 1e9:.2g} GB"
        return f"{text} ({labels[section]})" if label else text

    return measure


def b2_timing(what: str, m: int = 0, L: int = 0) -> Callable[[Path, Path], str | None]:
    """Figure 10 of B2 (``results/paper_b2/timing/``): the median aggregation time of cell
    ``(m, L)`` (``what="median"``) or a fitted log-log slope (``"slope_log_L:seconds_total"``,
    ...) of ``scaling.csv``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        folder = results / "paper_b2" / "timing"
        if what == "median":
            path = folder / "replicates.csv"
            if not path.is_file():
                return None
            frame = pd.read_csv(path)
            cell = frame[
                (frame["metric"] == "seconds_aggregate") & (frame["m"] == m) & (frame["L"] == L)
            ]
            median = float(cell["value"].median())
            return f"{median:.2g} s" if median >= 0.01 else f"{median:.1g} s"
        path = folder / "scaling.csv"
        if not path.is_file():
            return None
        column, metric = what.split(":")
        frame = pd.read_csv(path).set_index("metric")
        return f"{float(frame.loc[metric, column]):.2f}"

    return measure


def scale(what: str) -> Callable[[Path, Path], str | None]:
    """A number of the scale study (``results/beyond/summary.csv`` and ``scale_fit.csv``):
    ``se_log`` / ``se_hamming`` (the largest standard error of a log-scale metric / of a
    Hamming error), ``hamming_flat`` (the largest change of a mean Hamming error from the
    smallest to the largest n), ``linf_nonprivate`` (the mean log relative l_inf error of the
    MLE without privacy at the smallest and the largest n), ``hamming_eps1`` (counting against
    the MLE at eps 1 and the largest n), ``r2_private`` (r2 over eps 0.5 and 1) and
    ``r2_eps2.5``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        if what.startswith("r2"):
            path = results / "beyond" / "scale_fit.csv"
            if not path.is_file():
                return None
            r2 = pd.read_csv(path).set_index("epsilon")["r2"]
            if what == "r2_private":
                return f"{r2.loc[[0.5, 1.0]].min():.2f}-{r2.loc[[0.5, 1.0]].max():.2f}"
            return f"{r2.loc[2.5]:.2f}"
        path = results / "beyond" / "summary.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        if what == "se_log":
            return f"{frame[frame['metric'].str.startswith('log_')]['se'].max():.3f}"
        if what == "se_hamming":
            return f"{frame[frame['metric'] == 'rel_hamming']['se'].max():.3f}"
        means = frame.set_index(["method", "metric", "epsilon", "n"])["mean"]
        small, large = frame["n"].min(), frame["n"].max()
        if what == "hamming_flat":
            ham = frame[frame["metric"] == "rel_hamming"]
            change = [
                abs(means[(m, "rel_hamming", e, large)] - means[(m, "rel_hamming", e, small)])
                for m, e in ham[["method", "epsilon"]].drop_duplicates().itertuples(index=False)
            ]
            return f"{max(change):.3f}"
        if what == "linf_nonprivate":
            a, b = (means[("edge_mle", "log_rel_linf", float("inf"), n)] for n in (small, large))
            return f"{a:.2f} to {b:.2f}"
        counting = means[("edge_counts", "rel_hamming", 1.0, large)]
        mle = means[("edge_mle", "rel_hamming", 1.0, large)]
        return f"{counting:.2f} against {mle:.2f}"

    return measure


def scale_ridge(root: Path, results: Path) -> str:
    """The paper's ridge ``2 sqrt(n p log n)`` of the scale study's smallest and largest n
    (config section ``beyond_scale``: n, degree = n p)."""
    import math

    import yaml

    section = yaml.safe_load((root / "config.yaml").read_text())["beyond_scale"]
    degree = float(section["degree"])
    lo, hi = (2 * math.sqrt(degree * math.log(n)) for n in (min(section["n"]), max(section["n"])))
    return f"{lo:.0f} to {hi:.0f}"


def scale_chunks(root: Path, results: Path) -> str:
    """The scale study's simulation jobs: its replicates of each n in chunks of
    ``chunk_size`` (config section ``beyond_scale``), as workflow/rules/beyond.smk plans them."""
    import yaml

    from .studies import beyond_scale

    section = yaml.safe_load((root / "config.yaml").read_text())["beyond_scale"]
    return str(
        sum(
            beyond_scale.chunk_count(beyond_scale.reps_for(section, n), section["chunk_size"])
            for n in section["n"]
        )
    )


def arena(
    dataset: str, privacy: str, epsilons: Sequence[float], column: str, spec: str, join: str
) -> Callable[[Path, Path], str | None]:
    """Numbers of the arena study's price of privacy (``results/tables/arena/
    price_of_privacy.csv``): ``column`` of ``dataset`` under ``privacy`` at each of ``epsilons``
    (``"all"``: every row; ``dataset="all"``: every data set), formatted with ``spec``
    (``"%"``: a percentage) and joined by ``join``: ``"range"`` (``"0.997 to 1.000"``),
    ``"min"`` or a separator (``" and "``, ``", "``)."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "tables" / "arena" / "price_of_privacy.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        if dataset != "all":
            frame = frame[frame["dataset"] == dataset]
        if privacy != "all":
            frame = frame[(frame["privacy"] == privacy) & frame["epsilon"].isin(epsilons)]
            frame = frame.set_index("epsilon").loc[list(epsilons)]
        numbers = [float(x) for x in frame[column]]

        def fmt(x: float) -> str:
            return f"{x * 100:.0f}%" if spec == "%" else format(x, spec)

        if join == "range":
            return f"{fmt(min(numbers))} to {fmt(max(numbers))}"
        if join == "min":
            return fmt(min(numbers))
        return join.join(fmt(x) for x in numbers)

    return measure


def manifest_files(smoke: bool) -> Callable[[Path, Path], str | None]:
    """How many files the SHA-256 manifest of a run holds
    (:func:`dprank_papers.workflow.results_manifest` of ``results/`` or ``results/smoke/``; None
    when that run's report is not there, or, for ``results/``, its papers' summaries: the
    studies beyond the papers, such as ``snakemake intervals``, write report pages too)."""

    def measure(root: Path, results: Path) -> str | None:
        from .workflow import results_manifest

        folder = results / "smoke" if smoke else results
        if not (folder / "report").is_dir():
            return None
        if not smoke and not (folder / "comparison" / "paper_b2_summary.csv").is_file():
            return None  # a study's pages alone, not the full run's
        return str(len(results_manifest(folder)))

    return measure


def sensitivity(what: str) -> Callable[[Path, Path], str | None]:
    """A number of the sensitivity study's Scenario V: ``default_within`` (cells within
    tolerance of those compared at the main study's setting, ``results/sensitivity/
    settings.csv``) or ``tm_adrr_closest`` (the closest of Table 11's TM ADRR Kendall
    distances over the settings, ``results/sensitivity/cells.csv``)."""

    def measure(root: Path, results: Path) -> str | None:
        import numpy as np
        import pandas as pd

        from .config import sensitivity_default_of

        if what == "default_within":
            path = results / "sensitivity" / "settings.csv"
            if not path.is_file():
                return None
            frame = pd.read_csv(path)
            at = np.ones(len(frame), dtype=bool)
            for key, value in sensitivity_default_of(root).items():
                at &= np.isclose(frame[key].astype(float), float(value))
            row = frame[at].iloc[0]
            return f"{int(row['within'])} of the {int(row['compared'])}"
        path = results / "sensitivity" / "cells.csv"
        if not path.is_file():
            return None
        cells = pd.read_csv(path)
        part = cells[
            (cells["figure"] == "B2 Table 11")
            & (cells["metric"] == "kendall_tau_K")
            & (cells["method"] == "local_adrr")
            & (cells["model"].astype(str).str.upper() == "TM")
        ]
        near = part.iloc[int(np.argmin(part["diff"].abs().to_numpy()))]
        return f"{near['ours_mean']:.4f}"

    return measure


def summary_items(
    comparison: str, items: Sequence[str], what: str
) -> Callable[[Path, Path], str | None]:
    """Cells of some items of one comparison summary (``results/comparison/<comparison>_
    summary.csv``): ``what="ratio"`` (``"11 / 11"``, within / compared) or ``"outside"``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "comparison" / f"{comparison}_summary.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path).set_index("figure").loc[list(items)]
        within, compared = int(frame["within"].sum()), int(frame["compared"].sum())
        return f"{within} / {compared}" if what == "ratio" else str(compared - within)

    return measure


def b2_cells(figure: str, cells: Sequence[tuple[str, str, str]], spec: str = ".3f") -> Callable:
    """Our means of some cells of one B2 table (``results/comparison/paper_b2.csv``), each
    ``(model, metric, method)``, formatted with ``spec`` and joined by `` / ``; ``cells`` of
    one ``("outside", "", method)``: how many of the method's cells are outside tolerance."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "comparison" / "paper_b2.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        frame = frame[frame["figure"] == figure]
        if cells[0][0] == "outside":
            part = frame[frame["method"] == cells[0][2]]
            return str(int((part["verdict"] == "outside").sum()))
        out = []
        for model, metric, method in cells:
            row = frame[
                (frame["model"].astype(str).str.upper() == model)
                & (frame["metric"] == metric)
                & (frame["method"] == method)
            ]
            out.append(format(float(row["ours_mean"].iloc[0]), spec))
        return " / ".join(out)

    return measure


def paper_a_outside(figure: str, panel: str, metric: str, eps: float | None, what: str):
    """Cells of Paper A's edge-DP comparison (``results/comparison/paper_a_edge.csv``) outside
    tolerance, of one figure and (where not empty) panel, metric and eps: how many
    (``what="count"``) or the range of their absolute differences (``"diff_range"``,
    ``"0.04-0.07"``)."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "comparison" / "paper_a_edge.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        sel = (frame["figure"] == figure) & (frame["verdict"] == "outside")
        if panel:
            sel &= frame["panel"] == panel
        if metric:
            sel &= frame["metric"] == metric
        if eps is not None:
            sel &= frame["epsilon"] == eps
        if what == "count":
            return str(int(sel.sum()))
        diff = frame.loc[sel, "diff"].abs()
        return f"{diff.min():.2f}-{diff.max():.2f}"

    return measure


def b2_figure_r(figure: str, models: Sequence[str], metrics: Sequence[str]) -> Callable:
    """Pearson r of a B2 figure's fit (``results/figures/paper_b2/<figure>.csv``, column
    ``r``) to two decimals, one per metric joined by `` / ``; of several models, one text when
    they agree to two decimals, else each model's joined by ``; ``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "figures" / "paper_b2" / f"{figure}.csv"
        if not path.is_file():
            return None
        r = pd.read_csv(path).groupby(["model", "metric"])["r"].first()
        texts = [" / ".join(f"{float(r[(m, k)]):.2f}" for k in metrics) for m in models]
        return texts[0] if len(set(texts)) == 1 else "; ".join(texts)

    return measure


def b1_figure(figure: str, select: Mapping, spec: str, join: str = "") -> Callable:
    """Means of the rows of a B1 figure's data (``results/figures/paper_b1/<figure>.csv``)
    that match ``select`` (column -> value), formatted with ``spec``: the one row's
    (``join=""``), their range (``"range"``, ``"0.72-0.76"``) or each method's in the order of
    ``select["method"]`` (a tuple) joined by ``join``."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        path = results / "figures" / "paper_b1" / f"{figure}.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        methods = select.get("method")
        for column, value in select.items():
            if column == "method" and isinstance(value, tuple):
                continue
            frame = frame[frame[column] == value]
        if join == "range":
            return f"{frame['mean'].min():{spec}}-{frame['mean'].max():{spec}}"
        if isinstance(methods, tuple):
            means = frame.set_index("method")["mean"]
            return join.join(f"{float(means[m]):{spec}}" for m in methods)
        (mean,) = frame["mean"]
        return f"{float(mean):{spec}}"

    return measure


def halved_k(what: str) -> Callable[[Path, Path], str | None]:
    """Table 11's Kendall distances of the main study (the sensitivity study's default
    setting) read as normalised by m (m - 1): halved (``what="values"``: ``"ADRR BTL 0.0247,
    ADRR TM 0.0162, count BTL 0.0303 and count TM 0.0209"``) and how many are then within
    the comparison's tolerance (``"within"``: ``"2 of 4"``), from
    ``results/comparison/paper_b2.csv`` as
    :func:`dprank_papers.studies.paper_b2.sensitivity.findings` computes them."""

    def measure(root: Path, results: Path) -> str | None:
        import numpy as np
        import pandas as pd

        path = results / "comparison" / "paper_b2.csv"
        if not path.is_file():
            return None
        frame = pd.read_csv(path)
        kd = frame[(frame["figure"] == "B2 Table 11") & (frame["metric"] == "kendall_tau_K")]
        order = {("local_adrr", "BTL"): 0, ("local_adrr", "TM"): 1}
        order |= {("local_count", "BTL"): 2, ("local_count", "TM"): 3}
        kd = kd.assign(
            _o=[order[(m, str(x).upper())] for m, x in zip(kd["method"], kd["model"], strict=True)]
        ).sort_values("_o")
        half = kd["ours_mean"] / 2
        if what == "values":
            names = {"local_adrr": "ADRR", "local_count": "count"}
            parts = [
                f"{names[m]} {str(x).upper()} {h:.4f}"
                for m, x, h in zip(kd["method"], kd["model"], half, strict=True)
            ]
            return ", ".join(parts[:-1]) + " and " + parts[-1]
        z = kd["tolerance"] / np.hypot(kd["ours_se"], kd["published_se"])
        tol = z * np.hypot(kd["ours_se"] / 2, kd["published_se"])
        inside = (half - kd["published_mean"]).abs() <= tol
        return f"{int(inside.sum())} of {len(kd)}"

    return measure


def nonconverged(what: str) -> Callable[[Path, Path], str | None]:
    """Scenario V's fits that did not converge (``results/sensitivity/scenario5/*.csv``,
    metric ``converged``): ``"groups"`` (``"66 of the 480"``: groups with any, of all),
    ``"worst"`` (``"65%"``: the worst group's share) or ``"worst_setting"``
    (``"h = 2, p = 0.25, c = 0.1"``)."""

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        files = sorted((results / "sensitivity" / "scenario5").glob("*.csv"))
        if not files:
            return None
        frame = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
        conv = frame[frame["metric"] == "converged"]
        failed = conv[conv["mean"] < 1]
        if what == "groups":
            return f"{len(failed)} of the {len(conv)}"
        if failed.empty:
            return None
        worst = failed.sort_values("mean", kind="stable").iloc[0]
        if what == "worst":
            return f"{1 - worst['mean']:.0%}"
        return f"h = {worst['theta_half']:g}, p = {worst['p']:g}, c = {worst['lambda_c']:g}"

    return measure


#: The privacy harness's perturbed MLEs (release path -> how docs/privacy.md names it)
HARNESS_MLES = {
    "rank --privacy individual --method mle --max-per-user 2": "the individual-DP MLE",
    "rank --privacy edge --method mle": "Algorithm 1",
    "rank --privacy edge --method noisy_obj": "NoisyObj",
}


def _join(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def harness(what: str, path: str = "") -> Callable[[Path, Path], str | None]:
    """A result of the privacy harness's last full run
    (``results/tables/audit/privacy_harness.csv``, one row per game, and
    ``results/audit/harness/<path>_detail.csv``, one per game and distinguisher):

    - ``"games"``: the games played; ``"verdict"``: whether every game held;
    - ``"best_api"``: ``path``'s best success rate through the API at each budget (the
      largest over its games there), lowest budget first;
    - ``"eps_lower_mles"``: the largest lower bound on eps over the perturbed MLEs
      (:data:`HARNESS_MLES`) and where;
    - ``"attacks"``: the range of the success rates of the gradient residue and of the
      search over the target user's comparison sets on the perturbed MLEs;
    - ``"success_eps8"``, ``"three_se_eps8"``, ``"eps_lower_eps8"``: ``path``'s best success
      rate, its three standard errors and its lower bound on eps through the API at eps 8.
    """

    def measure(root: Path, results: Path) -> str | None:
        import pandas as pd

        from dprank.audit.harness import path_id

        if what in ("games", "verdict"):
            table = results / "tables" / "audit" / "privacy_harness.csv"
            if not table.is_file():
                return None
            games = pd.read_csv(table)
            if what == "games":
                return str(len(games))
            bad = int((games["verdict"] != "holds").sum())
            return "held in every game" if bad == 0 else f"failed in {bad} of {len(games)} games"
        paths = list(HARNESS_MLES) if what in ("eps_lower_mles", "attacks") else [path]
        files = [results / "audit" / "harness" / f"{path_id(p)}.csv" for p in paths]
        if not all(f.is_file() for f in files):  # a path's games not (yet) played
            return None
        games = pd.concat((pd.read_csv(f) for f in files), ignore_index=True)
        api = games[games["via"] == "api"]
        if what == "best_api":
            best = api.groupby("epsilon")["best_accuracy"].max().sort_index()
            return _join([f"{x:.2f}" for x in best])
        if what == "eps_lower_mles":
            top = games.loc[games["eps_lower_bound"].idxmax()]
            return (
                f"{top['eps_lower_bound']:.2f} ({HARNESS_MLES[top['path']]} at a claim of "
                f"{top['claimed_eps']:g})"
            )
        if what == "attacks":
            detail = pd.concat(
                (pd.read_csv(str(f).replace(".csv", "_detail.csv")) for f in files),
                ignore_index=True,
            )
            rates = detail[detail["distinguisher"].isin(["grid_residue", "pair_set_search"])]
            low, high = rates["accuracy"].min(), rates["accuracy"].max()
            return f"{100 * low:.0f}% to {100 * high:.0f}%"
        row = api[api["epsilon"] == 8.0]
        row = row.loc[row["best_accuracy"].idxmax()]  # the path's game at eps 8
        if what == "success_eps8":
            return f"{row['best_accuracy']:.3f}"
        if what == "three_se_eps8":
            return f"{row['three_se']:.2g}"
        if what == "eps_lower_eps8":
            return f"{row['eps_lower_bound']:.2f}"
        raise ValueError(f"what must name a harness result, got {what!r}")

    return measure


def _many(count: int, noun: str) -> str:
    """``12,156 passes``; from a million on ``2.0 million stat calls``."""
    number = f"{count / 1e6:.1f} million" if count >= 10**6 else f"{count:,}"
    return f"{number} {noun}"


def scheduler_profile(what: str) -> Callable[[Path, Path], str | None]:
    """A result of ``benchmarks/scheduler_profile.py`` (``results/measured/scheduler_profile.json``:
    the Snakemake process of one run with and without the coalesced scheduler timers), the
    median over its runs of each mode:

    - ``"run"``: the jobs of the runs (one number where every run finished as many) and
      which run it was (the smoke run, the paper-scale run);
    - ``"counts_snakemake"``, ``"counts_coalesced"``: the loop's passes, the input-size checks
      and the ``stat`` calls of the main process without and with the coalescing;
    - ``"cpu_seconds"``: its CPU time with the coalescing against without.
    """
    import json
    import statistics

    def measure(root: Path, results: Path) -> str | None:
        path = results / "measured" / "scheduler_profile.json"
        if not path.is_file():
            return None
        record = json.loads(path.read_text())
        runs = record["runs"]

        def median(mode: str, key: str) -> float:
            return statistics.median(r[key] for r in runs if r["mode"] == mode)

        if what == "run":
            config = record.get("configfile")
            scale = (
                "the paper-scale run"
                if not config
                else "the smoke run"
                if Path(config).as_posix() == ".test/config.yaml"
                else f"a run with {config}"
            )
            jobs = sorted({r["jobs"] for r in runs})
            return "-".join(map(str, jobs[:: max(1, len(jobs) - 1)])) + f" jobs of {scale}"
        if what.startswith("counts_"):
            mode = what.removeprefix("counts_")
            return (
                f"{_many(round(median(mode, 'passes')), 'passes')}, "
                f"{_many(round(median(mode, 'size_checks')), 'input-size checks')} and "
                f"{_many(round(median(mode, 'stat_calls')), '`stat` calls')}"
            )
        cpu = {mode: median(mode, "cpu_seconds") for mode in ("coalesced", "snakemake")}
        return f"{cpu['coalesced']:.0f} s of CPU, against {cpu['snakemake']:.0f} s"

    return measure
