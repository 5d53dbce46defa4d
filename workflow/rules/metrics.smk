rule compute_metrics:
    input:
        **{
            f"estimates_{p}": path
            for p, path in per_protocol(
                R("{study}/{experiment}/{protocol}/estimates/{block}/chunk{chunk}.npz")
            ).items()
        },
        library=library("compute_metrics", "evaluate"),
    output:
        **per_protocol(
            R("{study}/{experiment}/{protocol}/metrics/{block}/chunk{chunk}.csv")
        ),
    log:
        R("logs/{study}/{experiment}/metrics/{block}/chunk{chunk}.log"),
    benchmark:
        R("benchmarks/{study}/{experiment}/metrics/{block}/chunk{chunk}.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        job=protocol_job_params("evaluate"),
        protocols=PROTOCOLS,
    script:
        "../../scripts/compute_metrics.py"


rule aggregate_metrics:
    input:
        unpack(protocol_chunk_files("metrics", "csv")),
        library=library("aggregate_metrics"),
    output:
        **{p: R(f"{{study}}/{{experiment}}/{p}/summary.csv") for p in PROTOCOLS},
    log:
        R("logs/{study}/{experiment}/summary.log"),
    benchmark:
        R("benchmarks/{study}/{experiment}/summary.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        protocols=PROTOCOLS,
    script:
        "../../scripts/aggregate_metrics.py"


rule collect_paper_b:
    input:
        metrics=lambda w: [
            R(f"{w.bpaper}/{w.experiment}/metrics/{cell}/chunk{chunk}.csv")
            for cell in paper_b2.cell_names(
                config[w.bpaper]["experiments"][w.experiment]
            )
            for chunk in range(
                paper_b2.chunk_count(
                    config[w.bpaper], w.experiment, config["chunk_size"]
                )
            )
        ],
        library=library("collect_metrics"),
    output:
        replicates=R("{bpaper}/{experiment}/replicates.csv"),
        summary=R("{bpaper}/{experiment}/summary.csv"),
    log:
        R("logs/{bpaper}/{experiment}/replicates.log"),
    benchmark:
        R("benchmarks/{bpaper}/{experiment}/replicates.tsv")
    wildcard_constraints:
        experiment="|".join(SIM_EXPERIMENTS),
    conda:
        "../../envs/estimate.yaml"
    script:
        "../../scripts/collect_metrics.py"


rule time_paper_b2:
    input:
        library=script_files(script_path("time_paper_b2"), SRC),
    output:
        replicates=R("paper_b2/{experiment}/replicates.csv"),
        scaling=R("paper_b2/{experiment}/scaling.csv"),
        machine=R("paper_b2/{experiment}/machine.json"),
    log:
        R("logs/paper_b2/{experiment}/timing.log"),
    benchmark:
        R("benchmarks/paper_b2/{experiment}/timing.tsv")
    wildcard_constraints:
        experiment="|".join(TIMING_EXPERIMENTS) or "^$",
    # First: Snakemake leaves a job that needs every core until nothing else is ready, so
    # the run ended with it and then Figure 10 alone on one core (docs/performance.md).
    priority: 10
    conda:
        "../../envs/estimate.yaml"
    # Every core: no other job runs while the timings are taken (Figure 10).
    threads: lambda wildcards: workflow.cores or 1
    params:
        cells=lambda w: canonical(
            paper_b2.stage_kwargs(
                "time",
                config["paper_b2"],
                w.experiment,
                None,
                seed=config["seed"],
                chunk_size=config["chunk_size"],
            )
        ),
    script:
        "../../scripts/time_paper_b2.py"
