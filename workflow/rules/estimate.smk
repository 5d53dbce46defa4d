rule estimate:
    input:
        **{
            f"noise_{p}": path
            for p, path in per_protocol(
                R("{study}/{experiment}/{protocol}/noise/{block}/chunk{chunk}.npz")
            ).items()
        },
        data=R("{study}/{experiment}/data/{block}/chunk{chunk}.npz"),
        library=library("estimate", "estimate"),
    output:
        **per_protocol(
            R("{study}/{experiment}/{protocol}/estimates/{block}/chunk{chunk}.npz")
        ),
    log:
        R("logs/{study}/{experiment}/estimates/{block}/chunk{chunk}.log"),
    benchmark:
        R("benchmarks/{study}/{experiment}/estimates/{block}/chunk{chunk}.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        job=protocol_job_params("estimate"),
        protocols=PROTOCOLS,
    script:
        "../../scripts/estimate.py"


rule fit_paper_b:
    input:
        releases=R("{bpaper}/{experiment}/releases/{cell}/chunk{chunk}.npz"),
        library=script_files(script_path("fit_paper_b"), SRC),
    output:
        R("{bpaper}/{experiment}/metrics/{cell}/chunk{chunk}.csv"),
    log:
        R("logs/{bpaper}/{experiment}/metrics/{cell}/chunk{chunk}.log"),
    benchmark:
        R("benchmarks/{bpaper}/{experiment}/metrics/{cell}/chunk{chunk}.tsv")
    conda:
        "../../envs/estimate.yaml"
    params:
        job=lambda w: canonical(
            paper_b2.stage_kwargs(
                "estimate",
                config[w.bpaper],
                w.experiment,
                w.cell,
                seed=config["seed"],
                chunk_size=config["chunk_size"],
            )
        ),
    script:
        "../../scripts/fit_paper_b.py"
