rule privatize:
    input:
        library=library("privatize", "privatize"),
    output:
        **per_protocol(
            R("{study}/{experiment}/{protocol}/noise/{block}/chunk{chunk}.npz"),
            intermediate,
        ),
    log:
        R("logs/{study}/{experiment}/noise/{block}/chunk{chunk}.log"),
    benchmark:
        R("benchmarks/{study}/{experiment}/noise/{block}/chunk{chunk}.tsv")
    conda:
        "../../envs/simulate.yaml"
    params:
        job=protocol_job_params("privatize"),
        protocols=PROTOCOLS,
    script:
        "../../scripts/privatize.py"
