"""Rule ``fetch_<dataset>``: put one real data set's files under resources/data/, verified.

Copies them from the data mirror ($DPRANK_DATA_MIRROR, else config key ``data_mirror``)
or, without one, downloads them; every file is checked against its sha256 in
resources/datasets.yaml. The mirror is resolved here, not passed as a param, so that
switching between mirror and download reruns nothing.
"""

from pathlib import Path

from dprank.data.datasets import fetch, load_registry, resolve_mirror
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    name = snakemake.params.dataset
    mirror = resolve_mirror(snakemake.config.get("data_mirror"))
    log.info("data set %s from %s", name, mirror or "the web (no data mirror configured)")
    registry = load_registry(snakemake.params.registry)
    # The data folder: the first output minus that file's path relative to it.
    dest_dir = snakemake.output[0].removesuffix(registry[name].files[0].path)
    paths = fetch(name, registry, dest_dir, mirror=mirror)
    expected = sorted(Path(p) for p in snakemake.output)
    if sorted(paths) != expected:
        raise RuntimeError(f"fetched {paths}, but the rule declares {expected}")
    for path in paths:
        log.info("verified %s", path)
