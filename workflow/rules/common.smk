import os
import sys

from pathlib import Path

from snakemake.utils import min_version

min_version("9.0")

# The library lives in src/; make it importable here and in every job's script,
# whatever environment runs it (venv, conda env, cluster node).
SRC = os.path.relpath(Path(workflow.basedir) / "src")
sys.path.insert(0, SRC)
os.environ.update(
    PYTHONPATH=os.pathsep.join(
        p for p in (os.path.abspath(SRC), os.environ.get("PYTHONPATH")) if p
    )
)
# One BLAS thread per job: bit-identical results whatever --cores, and no oversubscription.
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = "1"
# The same SIMD kernels on every x86-64 CPU with AVX2 (OpenBLAS's and numpy's AVX2 ones, not
# AVX-512's, which add in another order): the same bits on any such machine
# (dprank_papers/numerics.py). A value the user has set is kept.
from dprank_papers.numerics import pinned_env

os.environ.update(pinned_env())

from dprank_papers._papers import item_settings, load_papers, study_items
from dprank_papers.config import bound_warnings, validate_config
from dprank_papers.deps import script_files, use_import_cache
from dprank_papers.studies import STUDIES, block_kwargs, paper_b2, study_module
from dprank_papers.stage_manifests import remove_orphan_manifests
from dprank_papers.workflow import (
    CONFIGFILES_ENV,
    MALLOC_TUNING,
    canonical,
    coalesce_scheduler_timers,
    record_lock_owner,
    release_stale_lock,
    remove_stale_temporaries,
)

# glibc's malloc keeps freed memory for the next array instead of returning it to the system
# (docs/performance.md, "Memory reuse"): the default mmap/trim thresholds made every large
# numpy temporary a fresh mapping, so the solvers spent most of their time in page faults.
# Only the speed changes; a value the user has set is kept; other C libraries ignore these.
os.environ.update({k: os.environ.get(k, v) for k, v in MALLOC_TUNING.items()})

# At most one pending scheduler timer (a Snakemake inefficiency, see snakemake/snakemake#3744:
# the main process re-ran its scheduling loop hundreds of times a second; docs/performance.md).
coalesce_scheduler_timers()

# Each library file's imports (which library files each rule lists as inputs) kept between
# Snakemake starts in Snakemake's folder: a file is parsed again only when it changes.
use_import_cache(os.path.join(".snakemake", "dprank-imports.json"))

#: What each paper shows, declared once (workflow/papers/<paper>.yaml): paper -> its kind,
#: report category and items (fig5, table3, ...: study, settings, caption, published numbers),
#: with config.yaml's `items:` overrides merged in; workflow/rules/items.smk makes the targets.
PAPERS = load_papers(
    Path(workflow.basedir) / "workflow/papers",
    Path(workflow.basedir) / "workflow/schemas/papers.schema.yaml",
    config,
)
validate_config(
    config,
    Path(workflow.basedir) / "workflow/schemas/config.schema.yaml",
    check_environment=workflow.is_main_process,
    papers=PAPERS,
)
# A valid value that is almost certainly a mistake (a bound far above what the data can
# reach) is a warning naming its key, printed once, before any job.
if workflow.is_main_process:
    for _warning in bound_warnings(config):
        print(f"dprank: warning: {_warning}", file=sys.stderr)

# Resume after a crash with the same command (docs/robustness.md): profiles/default sets
# rerun-incomplete, and the lock of a Snakemake killed on this host is released here.
if workflow.is_main_process and (_dead := release_stale_lock()):
    print(
        f"dprank: removed the stale lock of killed Snakemake process(es) {_dead}",
        file=sys.stderr,
    )


#: Folder of every result, log and benchmark file (config results_dir): results at paper
#: scale, results/smoke in .test/config.yaml, so that a smoke run never overwrites them.
RESULTS = config["results_dir"]


def R(path):
    """``path`` (relative) under the results folder, ``<results_dir>/<path>``."""
    return f"{RESULTS}/{path}"


# Every job checks its inputs under RESULTS against the manifests their producers wrote
# beside them (dprank_papers.stage_manifests); a damaged one's message names the command that
# rebuilds it, with this run's --configfile files.
os.environ[CONFIGFILES_ENV] = os.pathsep.join(
    os.path.relpath(f) if Path(f).resolve().is_relative_to(Path.cwd()) else str(f)
    for f in workflow.overwrite_configfiles
)


onstart:
    if workflow.is_main_process:
        record_lock_owner()
        # Temporaries of atomic writes left by killed jobs (kill -9, power loss) next to an
        # output this run writes: this run holds that output's lock, so nothing else can
        # be writing them (docs/robustness.md).
        _stale = remove_stale_temporaries(
            RESULTS, workflow.persistence.all_outputfiles()
        )
        if _stale:
            print(
                f"dprank: removed {len(_stale)} temporary file(s) of killed jobs: "
                + ", ".join(map(str, _stale)),
                file=sys.stderr,
            )
        remove_orphan_manifests(RESULTS)


# The manifests of the temporary intermediates Snakemake removed after their last reader.
onsuccess:
    if workflow.is_main_process:
        remove_orphan_manifests(RESULTS)


PROTOCOLS = config["protocols"]
#: Paper A's figures (their rules write figures/paper_a/): name -> declared item
PAPER_A_ITEMS = PAPERS["paper_a"]["items"]
#: The papers whose items the Paper B rules draw (figures/{bpaper}/, tables/{bpaper}/)
B_KIND_PAPERS = [p for p, decl in PAPERS.items() if decl["kind"] == "paper_b"]
#: B2 experiments run by rule time_paper_b2 (Figure 10) instead of simulate/fit chunks
TIMING_EXPERIMENTS = [
    name
    for name, exp in config["paper_b2"]["experiments"].items()
    if paper_b2.kind(exp) == "timing"
]
#: Paper B sections of the config: B1 (earlier version) and B2 (later)
B_PAPERS = [name for name in ("paper_b1", "paper_b2") if name in config]
#: B1/B2 experiments run as simulate/fit chunks (collected into replicates.csv)
SIM_EXPERIMENTS = sorted(
    {
        name
        for section in B_PAPERS
        for name, exp in config[section]["experiments"].items()
        if paper_b2.kind(exp) != "timing"
    }
)
#: Tables laid out from a study's summary by rule table_paper_b - every declared table that no
#: special rule makes (made_by)
SIM_TABLES = sorted(
    {
        name
        for paper in B_KIND_PAPERS
        for name, item in PAPERS[paper]["items"].items()
        if name.startswith("table") and not item.get("made_by")
    }
)
#: Paper B2's tables laid out from its summaries (compared with the published numbers)
B2_TABLES = study_items(PAPERS, "paper_b2", "paper_b2", "table")
FIG_EXT = ["pdf", "png", "csv"]


def item(paper, name):
    """A declared item of a paper (workflow/papers/<paper>.yaml)."""
    return PAPERS[paper]["items"][name]


#: The generic wording the rules add to an item's declared caption (report captions).
CAPTION_NOTES = {
    "paper_a": (
        " The label 'protocol' says which protocol: 'paper' runs the algorithms as stated, "
        "'authors' as the authors' code does. Published versus reproduced: Paper A's "
        "comparison summaries."
    ),
    "paper_a_overlay": (
        " The label 'protocol' says which protocol. Overlay: the published points (the "
        "authors' stored results for Figures 1-4, points digitised from the paper for "
        "Figures 5-8) as hollow markers over our curves."
    ),
    "paper_a_single": " Published versus reproduced: Paper A's comparison summaries.",
    "paper_a_single_overlay": (
        " Overlay: the points digitised from the paper's figure as hollow markers over our "
        "curves (both protocols: equal means)."
    ),
    "paper_b_overlay": " Overlay: the published table values as hollow markers over our curves.",
}


def item_caption(paper, note=None):
    """Params function: the declared caption of the item ``{figure}`` or ``{table}`` of
    ``paper`` (a wildcard name where ``paper`` is None: ``{bpaper}``), plus the generic
    wording :data:`CAPTION_NOTES` [``note``]."""

    def caption(wildcards):
        name = getattr(wildcards, "figure", None) or wildcards.table
        text = item(paper or wildcards.bpaper, name)["caption"]
        return text + (CAPTION_NOTES[note] if note else "")

    return caption


def rst_text(name):
    """A caption file of workflow/report/ as plain text (its ``**`` and double backquotes dropped)."""
    text = (Path(workflow.basedir) / f"workflow/report/{name}.rst").read_text()
    return text.replace("**", "").replace("``", "")


def study_pages(study):
    """The report's table pages of a study beyond the papers (its target rule builds them)."""
    return [
        R(f"report/pages/{page}.html")
        for page, entry in REPORT_PAGES.items()
        if entry.get("study") == study
    ]


REPORT_ITEM = "../report/item.rst"
OVERLAY_ITEM = "../report/overlay_item.rst"


# The report's categories: Agreement with the papers, Paper A, Paper B1, Paper B2, Benchmark,
# Audit, Runtime.
def report_paper(wildcards):
    """Report category of a Paper B output ("Paper B1" or "Paper B2": the paper's declared
    category)."""
    return PAPERS[wildcards.bpaper]["category"]


TABLE_EXT = ["csv", "md", "tex", "html"]


def item_label(name):
    """The report's label of a figure or table wildcard: "fig3" -> "Figure 03", "table11" ->
    "Table 11" (zero-padded: the report sorts labels as text)."""
    kind, number = (
        ("Figure", name[3:]) if name.startswith("fig") else ("Table", name[5:])
    )
    return f"{kind} {int(number):02d}"


def paper_a_subcategory(wildcards):
    """Report subcategory of a Paper A figure ("Figure 01")."""
    return item_label(wildcards.figure)


def table_labels(wildcards):
    """Report labels of a table."""
    return {"table": item_label(wildcards.table)}


def figure_labels(wildcards):
    """Report labels of a Paper B figure."""
    return {"figure": item_label(wildcards.figure)}


def overlay_labels(wildcards):
    """Report labels of a Paper B figure's overlay version."""
    return {"figure": f"{item_label(wildcards.figure)} (overlay)"}


wildcard_constraints:
    study="|".join(STUDIES),
    experiment=r"[A-Za-z][A-Za-z0-9_]*",
    protocol="paper|authors",
    cell=r"[^/]+",
    block=r"[^/]+",
    chunk=r"\d+",
    figure=r"fig\d+",
    bpaper="|".join(B_KIND_PAPERS),


def script_path(name):
    return str(Path(workflow.basedir) / "scripts" / f"{name}.py")


def library(script, stage=None):
    """Input function: the library files a rule's script runs (Snakemake does not track imports)."""

    def files(wildcards):
        extra = (f"{STUDIES[wildcards.study]}.{stage}",) if stage else ()
        return script_files(script_path(script), SRC, extra)

    return files


def job_params(stage):
    """Params function: the stage function's keyword arguments for each cell of one job."""

    def params(wildcards):
        chunk = int(wildcards.chunk) if hasattr(wildcards, "chunk") else None
        protocol = getattr(wildcards, "protocol", None)
        return canonical(
            block_kwargs(
                wildcards.study,
                stage,
                config[wildcards.study],
                wildcards.experiment,
                wildcards.block,
                chunk,
                protocol,
                seed=config["seed"],
                chunk_size=config["chunk_size"],
            )
        )

    return params


def protocol_job_params(stage):
    """Params function: :func:`job_params` for each protocol of one job (protocol -> kwargs);
    the Paper A stages after the data run both protocols of a block and chunk in one job.
    """

    def params(wildcards):
        chunk = int(wildcards.chunk)
        return {
            p: canonical(
                block_kwargs(
                    wildcards.study,
                    stage,
                    config[wildcards.study],
                    wildcards.experiment,
                    wildcards.block,
                    chunk,
                    p,
                    seed=config["seed"],
                    chunk_size=config["chunk_size"],
                )
            )
            for p in PROTOCOLS
        }

    return params


def per_protocol(pattern, flag=None):
    """Named paths ``{protocol: pattern with that protocol}`` for one job's protocols.

    ``pattern`` holds ``{protocol}``; other wildcards stay (doubled braces). ``flag``
    (e.g. :func:`intermediate`) is applied to each path.
    """
    paths = {p: pattern.replace("{protocol}", p) for p in PROTOCOLS}
    return {p: flag(path) if flag else path for p, path in paths.items()}


def intermediate(path):
    """An output that seeds re-create cheaply: temporary unless ``keep_intermediates``."""
    return path if config.get("keep_intermediates", False) else temp(path)


def _chunk_paths(kind, ext, study_name, experiment, protocol):
    """Every block's chunk files of one experiment and protocol."""
    study = study_module(study_name)
    exp = config[study_name]["experiments"][experiment]
    base = R(f"{study_name}/{experiment}/{protocol}")
    return [
        f"{base}/{kind}/{block}/chunk{chunk}.{ext}"
        for block in study.block_names(exp)
        for chunk in range(
            study.chunk_count(config[study_name], experiment, config["chunk_size"])
        )
    ]


def protocol_chunk_files(kind, ext="npz"):
    """Input function: every block's chunk files of one experiment, per protocol (named
    ``<kind>_<protocol>``), for the rules that write one file per protocol."""

    def files(wildcards):
        return {
            f"{kind}_{p}": _chunk_paths(
                kind, ext, wildcards.study, wildcards.experiment, p
            )
            for p in PROTOCOLS
        }

    return files


def summary_files(study, experiments, protocol):
    return [R(f"{study}/{e}/{protocol}/summary.csv") for e in experiments]


def real_data_kwargs(dataset, protocol):
    """Keyword arguments of :func:`dprank_papers.studies.paper_a_real.real_data_metrics`."""
    section = config["paper_a_real"]
    return {
        "dataset": dataset,
        "L": section["datasets"][dataset]["L"],
        "epsilons": [float(e) for e in section["epsilon"]],
        "reps": section["reps"],
        "seed": config["seed"],
        "protocol": protocol,
        **section["constants"],
        **section["solver"],
    }


def figure_settings(figure):
    """The plotting settings of a Paper A figure (its declaration without study, caption ...)."""
    return item_settings(PAPER_A_ITEMS[figure])


def figure_summaries_by_protocol(wildcards):
    """Params function: protocol -> the aggregated summaries a Paper A figure plots."""
    study = PAPER_A_ITEMS[wildcards.figure]["study"]
    experiments = figure_settings(wildcards.figure)["experiments"]
    return {p: summary_files(study, experiments, p) for p in PROTOCOLS}


def figure_summaries(wildcards):
    """Input function: the aggregated summaries a Paper A figure plots, every protocol's."""
    return [
        f for files in figure_summaries_by_protocol(wildcards).values() for f in files
    ]


def paper_a_figure_files(figure):
    """A Paper A figure per protocol, and its overlay version if the comparison runs (one
    figure for all protocols for the figures of PAPER_A_SINGLE)."""
    if figure in PAPER_A_SINGLE:
        files = expand(R(f"figures/paper_a/{figure}.{{ext}}"), ext=FIG_EXT)
        if "authors" in PROTOCOLS:
            files += expand(
                R(f"figures/paper_a/{figure}_overlay.{{ext}}"), ext=["pdf", "png"]
            )
        return files
    files = expand(
        R("figures/paper_a/{figure}_{protocol}.{ext}"),
        figure=figure,
        protocol=PROTOCOLS,
        ext=FIG_EXT,
    )
    if "authors" in PROTOCOLS:
        files += expand(
            R("figures/paper_a/{figure}_{protocol}_overlay.{ext}"),
            figure=figure,
            protocol=PROTOCOLS,
            ext=["pdf", "png"],
        )
    return files


#: Whether the Paper A figure jobs also draw the overlay versions (the published points over
#: ours): where the comparison runs (the authors protocol is configured).
PAPER_A_OVERLAID = "authors" in PROTOCOLS


def paper_a_figure_outputs():
    """Outputs of one Paper A figure job: every protocol's figure (PDF, the report's PNG and
    the CSV of the plotted numbers) and, where the comparison runs, its overlay version.
    Named ``<kind>_<protocol>``: ``pdf_paper``, ``overlay_png_authors``, ...
    """
    out = {}
    for p in PROTOCOLS:
        stem = R(f"figures/paper_a/{{figure}}_{p}")
        out[f"pdf_{p}"] = f"{stem}.pdf"
        out[f"png_{p}"] = report(
            f"{stem}.png",
            caption=REPORT_ITEM,
            category="Paper A",
            subcategory=paper_a_subcategory,
            labels=lambda w, p=p: {"figure": item_label(w.figure), "protocol": p},
        )
        out[f"csv_{p}"] = f"{stem}.csv"
        if PAPER_A_OVERLAID:
            out[f"overlay_pdf_{p}"] = f"{stem}_overlay.pdf"
            out[f"overlay_png_{p}"] = report(
                f"{stem}_overlay.png",
                caption=OVERLAY_ITEM,
                category="Paper A",
                subcategory=paper_a_subcategory,
                labels=lambda w, p=p: {
                    "figure": item_label(w.figure),
                    "protocol": f"{p} (overlay)",
                },
            )
    return out


#: Paper A figures drawn once for both protocols (by plot_paper_a_single): the real-data
#: Figure 8, where the protocols differ only in the ridge of the non-private reference fit,
#: which does not change its ranking on either data set (docs/protocols.md); the job checks
#: that the means agree and fails if they do not.
PAPER_A_SINGLE = [name for name, spec in PAPER_A_ITEMS.items() if spec["single"]]


def paper_a_single_outputs():
    """Outputs of a Paper A figure drawn once for every protocol (``{figure}.pdf`` ...)."""
    stem = R("figures/paper_a/{figure}")
    out = {
        "pdf": f"{stem}.pdf",
        "png": report(
            f"{stem}.png",
            caption=REPORT_ITEM,
            category="Paper A",
            subcategory=paper_a_subcategory,
            labels=lambda w: {
                "figure": item_label(w.figure),
                "protocol": " = ".join(PROTOCOLS),
            },
        ),
        "csv": f"{stem}.csv",
    }
    if PAPER_A_OVERLAID:
        out["overlay_pdf"] = f"{stem}_overlay.pdf"
        out["overlay_png"] = report(
            f"{stem}_overlay.png",
            caption=OVERLAY_ITEM,
            category="Paper A",
            subcategory=paper_a_subcategory,
            labels=lambda w: {
                "figure": item_label(w.figure),
                "protocol": " = ".join(PROTOCOLS) + " (overlay)",
            },
        )
    return out


def paper_a_comparison(wildcards):
    """Input function: the comparison table a Paper A figure's overlay reads (none without it)."""
    comparison = PAPER_A_ITEMS[wildcards.figure].get("comparison")
    if not PAPER_A_OVERLAID or not comparison:
        return []
    return R(f"comparison/{comparison}.csv")


#: Paper B figures whose numbers the paper prints in tables (declared `published`): drawn with
#: their overlay version, which reads the paper's comparison table (rule compare_<paper>)
B_OVERLAID = {
    paper: [
        name
        for name, spec in PAPERS[paper]["items"].items()
        if name.startswith("fig") and spec.get("published")
    ]
    for paper in B_KIND_PAPERS
}


def paper_b_figure_files(bpaper, figure):
    """A Paper B figure, and its overlay version where the paper prints its numbers."""
    files = expand(R(f"figures/{bpaper}/{figure}.{{ext}}"), ext=FIG_EXT)
    if figure in B_OVERLAID[bpaper]:
        files += expand(
            R(f"figures/{bpaper}/{figure}_overlay.{{ext}}"), ext=["pdf", "png"]
        )
    return files


def b_figure_inputs(wildcards):
    """Input function: what a B1/B2 figure plots - summaries (lines) or replicates."""
    spec = item(wildcards.bpaper, wildcards.figure)
    experiments = spec["experiment"]
    experiments = [experiments] if isinstance(experiments, str) else experiments
    name = "summary" if spec.get("type", "lines") == "lines" else "replicates"
    return [R(f"{spec['study']}/{e}/{name}.csv") for e in experiments]


#: The report pages' captions of the comparison summaries (rules report_page_<page>)
COMPARISON_CAPTION = (
    "Published versus reproduced, {part}: one line per paper figure or table - cells within "
    "tolerance / cells compared, in all and among the points the paper plots{diff}. The "
    "cell-by-cell table (published value, ours, {cell}tolerance and how it was derived, "
    "verdict) is results/comparison/{name}.csv."
)
#: The comparisons whose published values are words and counts, not numbers to subtract
#: (B1 prints no numeric table: its Table 1 is a trend per scheme): no difference column.
COMPARISONS_WITHOUT_DIFFERENCE = ("paper_b1",)


def comparison_caption(label, name):
    """The caption of a comparison summary's report page: its columns, no more."""
    numeric = name not in COMPARISONS_WITHOUT_DIFFERENCE
    return COMPARISON_CAPTION.format(
        part=label,
        name=name,
        diff=", and the largest absolute difference" if numeric else "",
        cell="difference, " if numeric else "",
    )


def b_figures_of(experiments):
    """Wildcard constraints (bpaper, figure) matching the B figures that plot only some of
    ``experiments``: those of a pipeline shorter than the simulations' get rules of their own
    (figures.smk)."""
    pairs = [
        (paper, name)
        for paper in B_KIND_PAPERS
        for name, spec in PAPERS[paper]["items"].items()
        if name.startswith("fig")
        and "experiment" in spec
        and set(
            [spec["experiment"]]
            if isinstance(spec["experiment"], str)
            else spec["experiment"]
        )
        <= set(experiments)
    ]
    return {
        "bpaper": "|".join(sorted({p for p, _ in pairs})) or "^$",
        "figure": "|".join(sorted({f for _, f in pairs})) or "^$",
    }
