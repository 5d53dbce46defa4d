# Real data: fetch the registered data sets into resources/data/ (verified against their
# sha256 in resources/datasets.yaml), and the win matrices of Paper A's Figure 8.
#
# The files come from a data mirror if one is set (environment variable DPRANK_DATA_MIRROR,
# else config key data_mirror; a folder laid out as <mirror>/<path>), otherwise they are
# downloaded. One rule per data set (fetch_cems, fetch_immig, ...), generated from the
# registry, because a data set's outputs are its files, which differ in number and name.
# The job's script resolves the mirror (dprank.data.datasets.resolve_mirror) instead of a param:
# a verified file is the same whichever source it came from, so switching between mirror and
# download must not rerun anything (params trigger reruns), and a missing mirror stops only
# the jobs that need it.

from dprank.data.datasets import load_registry
from dprank.data.realdata import REAL_DATASETS

DATA_REGISTRY = "resources/datasets.yaml"
DATASETS = load_registry(Path(workflow.basedir) / DATA_REGISTRY)
# Data set -> its files in the workflow's data folder, resources/data/<path>.
DATA_FILES = {
    name: [f"resources/data/{f.path}" for f in dataset.files]
    for name, dataset in DATASETS.items()
}


for _dataset in DATASETS:

    rule:
        name:
            f"fetch_{_dataset}"
        input:
            library=script_files(script_path("fetch_dataset"), SRC),
        output:
            DATA_FILES[_dataset],
        log:
            R(f"logs/data/{_dataset}.log"),
        benchmark:
            R(f"benchmarks/data/{_dataset}.tsv")
        localrule: True
        conda:
            "../../envs/data.yaml"
        params:
            dataset=_dataset,
            registry=DATA_REGISTRY,
            # A changed hash refetches; edits of the registry's prose do not.
            sha256=canonical({f.path: f.sha256 for f in DATASETS[_dataset].files}),
        script:
            "../../scripts/fetch_dataset.py"


rule fetch_data:
    input:
        [DATA_FILES[name] for name in DATASETS],


rule real_data_wins:
    input:
        data=lambda w: DATA_FILES[w.dataset][0],
        library=script_files(script_path("real_data_wins"), SRC),
    output:
        wins=R("paper_a_real/{dataset}/wins.csv"),
    log:
        R("logs/paper_a_real/{dataset}/wins.log"),
    benchmark:
        R("benchmarks/paper_a_real/{dataset}/wins.tsv")
    wildcard_constraints:
        dataset="|".join(REAL_DATASETS),
    conda:
        "../../envs/data.yaml"
    script:
        "../../scripts/real_data_wins.py"


rule paper_a_real_wins:
    input:
        expand(R("paper_a_real/{dataset}/wins.csv"), dataset=REAL_DATASETS),
