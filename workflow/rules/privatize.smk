rule privatize:
    input:
        library=library("privatize", "privatize"),
    output:
        **per_protocol(
            "results/{study}/{experiment}/{protocol}/noise/{block}/chunk{chunk}.npz",
            intermediate,
        ),
    log:
        "results/logs/{study}/{experiment}/noise/{block}/chunk{chunk}.log",
    benchmark:
        "results/benchmarks/{study}/{experiment}/noise/{block}/chunk{chunk}.tsv"
    conda:
        "../../envs/simulate.yaml"
    params:
        job=protocol_job_params("privatize"),
        protocols=PROTOCOLS,
    script:
        "../../scripts/privatize.py"
