rule simulate_comparisons:
    input:
        library=library("simulate_comparisons", "simulate"),
    output:
        intermediate(R("{study}/{experiment}/data/{block}/chunk{chunk}.npz")),
    log:
        R("logs/{study}/{experiment}/data/{block}/chunk{chunk}.log"),
    benchmark:
        R("benchmarks/{study}/{experiment}/data/{block}/chunk{chunk}.tsv")
    conda:
        "../../envs/simulate.yaml"
    params:
        job=job_params("simulate"),
    script:
        "../../scripts/simulate_comparisons.py"


rule simulate_releases:
    input:
        library=script_files(script_path("simulate_releases"), SRC),
    output:
        intermediate(R("{bpaper}/{experiment}/releases/{cell}/chunk{chunk}.npz")),
    log:
        R("logs/{bpaper}/{experiment}/releases/{cell}/chunk{chunk}.log"),
    benchmark:
        R("benchmarks/{bpaper}/{experiment}/releases/{cell}/chunk{chunk}.tsv")
    conda:
        "../../envs/simulate.yaml"
    params:
        job=lambda w: canonical(
            paper_b2.stage_kwargs(
                "simulate",
                config[w.bpaper],
                w.experiment,
                w.cell,
                w.chunk,
                seed=config["seed"],
                chunk_size=config["chunk_size"],
            )
        ),
    script:
        "../../scripts/simulate_releases.py"
