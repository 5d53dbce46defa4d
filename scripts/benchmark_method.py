"""Rule ``benchmark_method``: one method on one data set of the benchmark, every eps and replicate.

Writes the per-fit metrics and a note: ``ok``, ``not_applicable`` (the method
cannot run on these data, e.g. the one-shot method without a complete
tournament: the reason is recorded, the job succeeds) or, with
``benchmark.allow_failures``, ``failed``. A method that raises or returns
scores of the wrong shape or NaN otherwise fails this job alone, with a
message naming the method (run with ``--keep-going`` to finish the others).
"""

import json
import sys

from dprank.base.io import atomic_path, write_csv
from dprank.methods import MethodInputError
from dprank_papers.studies import benchmark as bm
from dprank_papers.workflow import job_logger

with job_logger(snakemake) as log:
    job = snakemake.params.job
    sys.path.insert(0, snakemake.params.root)  # plug-ins named relative to the project root
    name, dataset, spec = job["method"], job["dataset"], job["spec"]
    method = bm.resolve_method(name, job["settings"])
    files = list(snakemake.input.data)
    data_of = bm.data_source(dataset, spec, files, int(job["seed"]))
    note = {"dataset": dataset, "method": name, **bm.describe(dataset, spec, data_of(0))}
    note.update(
        label=method.label, trust_model=method.trust_model, privacy_unit=method.privacy_unit
    )
    reps = int(spec["reps"])
    try:
        rows = bm.run_method(
            method, dataset, None, job["settings"]["epsilon"], int(job["seed"]),
            data_of=data_of, reps=reps,
        )  # fmt: skip
        note.update(status="ok", message="")
    except MethodInputError as exc:
        log.warning("%s cannot run on %s: %s", name, dataset, exc)
        rows, note = bm.empty_rows(), {**note, "status": "not_applicable", "message": str(exc)}
    except bm.MethodFailure as exc:
        log.error("%s", exc)
        if not job["settings"].get("allow_failures", False):
            raise SystemExit(f"benchmark: {exc}") from None
        rows, note = bm.empty_rows(), {**note, "status": "failed", "message": str(exc)}
    note["fits"] = len(rows)
    note["seconds_per_fit"] = float(rows["seconds"].mean()) if len(rows) else None
    log.info("%s on %s: %s, %d fits", name, dataset, note["status"], note["fits"])
    write_csv(snakemake.output.rows, rows.drop(columns="seconds"))
    with atomic_path(snakemake.output.note) as tmp:
        tmp.write_text(json.dumps(note, indent=2, sort_keys=True) + "\n")
