# The benchmark of methods (issue 19; docs/benchmark.md): every registered method, and the
# plug-ins of config benchmark.plugins, on the same data at matched per-user budgets.
#
#   results/benchmark/{dataset}/{method}.csv, .json   benchmark_method (one job per method)
#   results/figures/benchmark/{dataset}.{pdf,png,csv} benchmark_figure
#   results/tables/benchmark/thresholds.{csv,md,tex}, timing.csv, defaults.csv, findings.md,
#   results/report/benchmark/{thresholds,timing,defaults,findings}.html (the report's pages)
#                                                      benchmark_tables
# Target: benchmark (not part of rule all).

from dprank.methods import all_methods
from dprank_papers.studies import benchmark as _bm

BENCH = config.get("benchmark") or {}
#: benchmark data set -> its synthetic design or real-data settings
BENCH_DATASETS = {**BENCH.get("synthetic", {}), **BENCH.get("real", {})}
if BENCH.get("datasets"):
    BENCH_DATASETS = {name: BENCH_DATASETS[name] for name in BENCH["datasets"]}
#: benchmark data set -> the registered data set whose files it reads
BENCH_DATA = {
    "car_preferences": "car_preferences",
    "movielens": "movielens_latest_small",
    "cems": "cems",
    "immig": "immig",
}
if workflow.is_main_process and BENCH:
    # Load every plug-in now: a bad import path stops the run before any job, naming it.
    sys.path.insert(0, workflow.basedir)
    for _name in _bm.plugin_methods(BENCH):
        _bm.resolve_method(_name, BENCH)
BENCH_METHODS = list(BENCH.get("methods") or [m.name for m in all_methods()]) + list(
    _bm.plugin_methods(BENCH)
)
#: The benchmark's data sets read from files (after their fetch) and drawn by the job itself.
#: Their jobs have rules of their own (the same rules under other names): the report's rule
#: graph draws a rule once per depth of the DAG at which it has jobs.
BENCH_REAL = [d for d in BENCH_DATASETS if d in BENCH_DATA]
BENCH_SYNTHETIC = [d for d in BENCH_DATASETS if d not in BENCH_DATA]


rule benchmark_method:
    input:
        data=lambda w: DATA_FILES.get(BENCH_DATA.get(w.dataset), []),
        library=script_files(script_path("benchmark_method"), SRC),
    output:
        rows=R("benchmark/{dataset}/{method}.csv"),
        note=R("benchmark/{dataset}/{method}.json"),
    log:
        R("logs/benchmark/{dataset}/{method}.log"),
    benchmark:
        R("benchmarks/benchmark/{dataset}/{method}.tsv")
    wildcard_constraints:
        dataset="|".join(BENCH_SYNTHETIC) or "none",
        method="|".join(BENCH_METHODS) or "none",
    conda:
        "../../envs/estimate.yaml"
    resources:
        mem_mb=2000,
    params:
        job=lambda w: canonical(
            {
                "dataset": w.dataset,
                "method": w.method,
                "spec": BENCH_DATASETS[w.dataset],
                "settings": {
                    k: v for k, v in BENCH.items() if k not in ("synthetic", "real")
                },
                "seed": config["seed"],
            }
        ),
        root=workflow.basedir,
    script:
        "../../scripts/benchmark_method.py"


use rule benchmark_method as benchmark_real_method with:
    wildcard_constraints:
        dataset="|".join(BENCH_REAL) or "none",
        method="|".join(BENCH_METHODS) or "none",


rule benchmark_figure:
    input:
        rows=lambda w: expand(
            R("benchmark/{{dataset}}/{method}.csv"), method=BENCH_METHODS
        ),
        notes=lambda w: expand(
            R("benchmark/{{dataset}}/{method}.json"), method=BENCH_METHODS
        ),
        library=script_files(script_path("benchmark_figure"), SRC),
    output:
        pdf=R("figures/benchmark/{dataset}.pdf"),
        png=report(
            R("figures/benchmark/{dataset}.png"),
            caption="../report/benchmark.rst",
            category="Benchmark",
            subcategory="figures",
            labels={"dataset": "{dataset}"},
        ),
        csv=R("figures/benchmark/{dataset}.csv"),
    log:
        R("logs/benchmark/figures/{dataset}.log"),
    benchmark:
        R("benchmarks/benchmark/figures/{dataset}.tsv")
    wildcard_constraints:
        dataset="|".join(BENCH_SYNTHETIC) or "none",
    conda:
        "../../envs/plot.yaml"
    script:
        "../../scripts/benchmark_figure.py"


use rule benchmark_figure as benchmark_real_figure with:
    wildcard_constraints:
        dataset="|".join(BENCH_REAL) or "none",


rule benchmark_tables:
    input:
        summaries=expand(R("figures/benchmark/{dataset}.csv"), dataset=BENCH_DATASETS),
        notes=expand(
            R("benchmark/{dataset}/{method}.json"),
            dataset=BENCH_DATASETS,
            method=BENCH_METHODS,
        ),
        library=script_files(script_path("benchmark_tables"), SRC),
    output:
        csv=R("tables/benchmark/thresholds.csv"),
        md=R("tables/benchmark/thresholds.md"),
        tex=R("tables/benchmark/thresholds.tex"),
        timing=R("tables/benchmark/timing.csv"),
        thresholds_html=report(
            R("report/benchmark/thresholds.html"),
            caption="../report/benchmark.rst",
            category="Benchmark",
            subcategory="tables",
            labels={"table": "eps thresholds"},
        ),
        timing_html=report(
            R("report/benchmark/timing.html"),
            caption="../report/benchmark.rst",
            category="Benchmark",
            subcategory="tables",
            labels={"table": "timing and notes"},
        ),
        defaults=R("tables/benchmark/defaults.csv"),
        defaults_html=report(
            R("report/benchmark/defaults.html"),
            caption="../report/benchmark.rst",
            category="Benchmark",
            subcategory="tables",
            labels={"table": "default method per privacy level"},
        ),
        findings=R("tables/benchmark/findings.md"),
        html=report(
            R("report/benchmark/findings.html"),
            caption="../report/benchmark.rst",
            category="Benchmark",
            labels={"page": "findings"},
        ),
    log:
        R("logs/benchmark/tables.log"),
    benchmark:
        R("benchmarks/benchmark/tables.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        job=canonical(
            {
                "thresholds": BENCH.get("thresholds", [0.1, 0.05]),
                "epsilon": BENCH.get("epsilon", [1.0]),
                "datasets": list(BENCH_DATASETS),
            }
        ),
    script:
        "../../scripts/benchmark_tables.py"


rule benchmark:
    input:
        rules.benchmark_tables.output,
        expand(
            R("figures/benchmark/{dataset}.{ext}"),
            dataset=BENCH_DATASETS,
            ext=FIG_EXT,
        ),
