# The benchmark of methods (issue 19; docs/benchmark.md): every registered method, and the
# plug-ins of config benchmark.plugins, on the same data at matched per-user budgets.
#
#   results/benchmark/{dataset}/{method}.csv, .json   benchmark_method (one job per method)
#   results/figures/benchmark/{dataset}.{pdf,png,csv} benchmark_figure
#   results/tables/benchmark/thresholds.{csv,md,tex}, timing.csv, findings.{md,html}
#                                                      benchmark_tables
# Target: benchmark (not part of rule all).

from dprank.methods import all_methods
from dprank.studies import benchmark as _bm

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


rule benchmark_method:
    input:
        data=lambda w: DATA_FILES.get(BENCH_DATA.get(w.dataset), []),
        library=script_files(script_path("benchmark_method"), SRC),
    output:
        rows="results/benchmark/{dataset}/{method}.csv",
        note="results/benchmark/{dataset}/{method}.json",
    log:
        "results/logs/benchmark/{dataset}/{method}.log",
    benchmark:
        "results/benchmarks/benchmark/{dataset}/{method}.tsv"
    wildcard_constraints:
        dataset="|".join(BENCH_DATASETS) or "none",
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


rule benchmark_figure:
    input:
        rows=lambda w: expand(
            "results/benchmark/{{dataset}}/{method}.csv", method=BENCH_METHODS
        ),
        notes=lambda w: expand(
            "results/benchmark/{{dataset}}/{method}.json", method=BENCH_METHODS
        ),
        library=script_files(script_path("benchmark_figure"), SRC),
    output:
        pdf="results/figures/benchmark/{dataset}.pdf",
        png=report(
            "results/figures/benchmark/{dataset}.png",
            caption="../report/benchmark.rst",
            category="Benchmark",
            subcategory="figures",
            labels={"dataset": "{dataset}"},
        ),
        csv="results/figures/benchmark/{dataset}.csv",
    log:
        "results/logs/benchmark/figures/{dataset}.log",
    benchmark:
        "results/benchmarks/benchmark/figures/{dataset}.tsv"
    wildcard_constraints:
        dataset="|".join(BENCH_DATASETS) or "none",
    conda:
        "../../envs/plot.yaml"
    script:
        "../../scripts/benchmark_figure.py"


rule benchmark_tables:
    input:
        summaries=expand(
            "results/figures/benchmark/{dataset}.csv", dataset=BENCH_DATASETS
        ),
        notes=expand(
            "results/benchmark/{dataset}/{method}.json",
            dataset=BENCH_DATASETS,
            method=BENCH_METHODS,
        ),
        library=script_files(script_path("benchmark_tables"), SRC),
    output:
        csv=report(
            "results/tables/benchmark/thresholds.csv",
            caption="../report/benchmark.rst",
            category="Benchmark",
            subcategory="tables",
            labels={"table": "thresholds"},
        ),
        md="results/tables/benchmark/thresholds.md",
        tex="results/tables/benchmark/thresholds.tex",
        timing=report(
            "results/tables/benchmark/timing.csv",
            caption="../report/benchmark.rst",
            category="Benchmark",
            subcategory="tables",
            labels={"table": "timing and notes"},
        ),
        findings="results/tables/benchmark/findings.md",
        html=report(
            "results/report/benchmark/findings.html",
            caption="../report/benchmark.rst",
            category="Benchmark",
            labels={"page": "findings"},
        ),
    log:
        "results/logs/benchmark/tables.log",
    benchmark:
        "results/benchmarks/benchmark/tables.tsv"
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
            "results/figures/benchmark/{dataset}.{ext}",
            dataset=BENCH_DATASETS,
            ext=FIG_EXT,
        ),
