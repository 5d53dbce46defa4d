"""Every workflow stage checks what it reads against what the producing stage declared.

:func:`dprank_papers.workflow.job_logger` (which every job's script enters) writes a manifest
beside each output under the results folder when the job succeeds, and checks each input
under it against its manifest before the job's work. Here a stand-in ``snakemake`` object
plays producer and consumer for each kind of intermediate the stages exchange (an
``.npz`` of arrays, a CSV of metrics or a summary, a JSON note, a rendered figure): a
truncated, edited, swapped or unmanifested input stops the consumer with both values and
the command that rebuilds it. ``tests/test_workflow.py`` damages real intermediates of
the smoke run.
"""

from __future__ import annotations

import json
import shutil
import types
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dprank.base.io import save_arrays, write_csv
from dprank_papers.stage_manifests import (
    StageInputError,
    check_stage_input,
    manifest_path,
    remove_orphan_manifests,
)
from dprank_papers.workflow import CONFIGFILES_ENV, job_logger, results_manifest


@pytest.fixture(autouse=True)
def _no_configfiles(monkeypatch):
    """No run's --configfile list (a test that parsed the Snakefile in this process sets it)."""
    monkeypatch.delenv(CONFIGFILES_ENV, raising=False)


def _job(tmp_path: Path, rule: str, inputs=(), outputs=(), configfiles=None):
    return types.SimpleNamespace(
        rule=rule,
        input=[str(p) for p in inputs],
        output=[str(p) for p in outputs],
        log=[str(tmp_path / "results" / "logs" / f"{rule}.log")],
        wildcards={},
        config={"results_dir": str(tmp_path / "results")},
    )


def _write(kind: str, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if kind == "npz":
        save_arrays(path, wins=np.eye(3, dtype=np.int64), theta=np.linspace(-1, 1, 3))
    elif kind == "csv":
        rows = [{"n": n, "metric": "l2", "mean": n / 10} for n in range(12, 45, 2)]
        write_csv(path, pd.DataFrame(rows))  # 17 rows: Paper A Figure 5's points
    elif kind == "json":
        path.write_text(json.dumps({"seconds": 1.5, "method": "edge_mle"}) + "\n")
    else:  # a rendered figure
        path.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 8)


def _produce(tmp_path: Path, kind: str, name: str) -> Path:
    """Run a producing job that writes ``name`` (its manifest written on success)."""
    out = tmp_path / "results" / "stage" / name
    with job_logger(_job(tmp_path, f"make_{kind}", outputs=[out])):
        _write(kind, out)
    return out


def _consume(tmp_path: Path, *inputs: Path) -> list[str]:
    """Run a consuming job that reads ``inputs``; the log's lines."""
    log = tmp_path / "results" / "logs" / "consume.log"
    with job_logger(_job(tmp_path, "consume", inputs=inputs)) as logger:
        logger.info("read %d inputs", len(inputs))
    return log.read_text().splitlines()


KINDS = {"npz": "chunk0.npz", "csv": "summary.csv", "json": "note.json", "png": "fig5.png"}


def _truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _edit(path: Path) -> None:
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01  # one bit: same size, same rows
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_consumer_reads_what_its_producer_declared(kind, tmp_path):
    out = _produce(tmp_path, kind, KINDS[kind])
    record = json.loads(manifest_path(out).read_text())
    assert record["file"] == f"stage/{KINDS[kind]}" and record["rule"] == f"make_{kind}"
    assert ("rows" in record) == (kind == "csv")
    if kind == "csv":
        assert record["rows"] == 17
    assert any("verified 1 input(s)" in line for line in _consume(tmp_path, out))


@pytest.mark.parametrize("damage", ["truncated", "edited"])
@pytest.mark.parametrize("kind", sorted(KINDS))
def test_a_damaged_intermediate_stops_the_consumer_with_both_values(kind, damage, tmp_path):
    out = _produce(tmp_path, kind, KINDS[kind])
    declared = json.loads(manifest_path(out).read_text())
    (_truncate if damage == "truncated" else _edit)(out)
    with pytest.raises(StageInputError) as info:
        _consume(tmp_path, out)
    message = str(info.value)
    found = check_found(out)
    assert f"is not what rule make_{kind} wrote" in message
    assert declared["sha256"] in message and found["sha256"] in message
    assert f"{declared['bytes']} bytes" in message and f"{found['bytes']} bytes" in message
    if kind == "csv" and damage == "truncated":
        assert f"{declared['rows']} rows" in message and f"{found['rows']} rows" in message
    assert f"snakemake {out} --cores 1 --forcerun {out}" in message
    # the job's log holds the message too (Snakemake points at the log)
    log = (tmp_path / "results" / "logs" / "consume.log").read_text()
    assert "is not what rule" in log


def check_found(path: Path) -> dict:
    from dprank_papers.stage_manifests import describe_file

    return describe_file(path)


def test_swapped_intermediates_and_their_manifests_are_refused(tmp_path):
    """Two chunks swapped with their manifests: each manifest names its own file."""
    a = _produce(tmp_path, "csv", "chunk0.csv")
    b = tmp_path / "results" / "stage" / "chunk1.csv"
    with job_logger(_job(tmp_path, "make_csv", outputs=[b])):
        write_csv(b, pd.DataFrame({"n": [1, 2], "mean": [0.5, 0.25]}))
    swap = tmp_path / "swap"
    swap.mkdir()
    for path in (a, b):  # file and manifest to the other's name
        shutil.move(path, swap / path.name)
        shutil.move(manifest_path(path), swap / manifest_path(path).name)
    shutil.move(swap / "chunk0.csv", b)
    shutil.move(swap / manifest_path(a).name, manifest_path(b))
    shutil.move(swap / "chunk1.csv", a)
    shutil.move(swap / manifest_path(b).name, manifest_path(a))
    with pytest.raises(StageInputError, match=r"declares another file, 'stage/chunk1\.csv'"):
        _consume(tmp_path, a, b)
    # a file replaced by another intermediate without its manifest: the hashes differ
    with job_logger(_job(tmp_path, "make_csv", outputs=[b])):  # b and its manifest again
        write_csv(b, pd.DataFrame({"n": [1, 2], "mean": [0.5, 0.25]}))
    shutil.copy(_produce(tmp_path, "csv", "summary.csv"), b)
    with pytest.raises(StageInputError, match="is not what rule make_csv wrote"):
        check_stage_input(b, tmp_path / "results")


def test_an_input_without_a_manifest_is_refused_with_the_rebuild_command(tmp_path):
    out = tmp_path / "results" / "stage" / "summary.csv"
    _write("csv", out)  # not written by a job
    with pytest.raises(StageInputError) as info:
        _consume(tmp_path, out)
    assert "has no manifest .summary.csv.manifest.json beside it" in str(info.value)
    assert f"--forcerun {out}" in str(info.value)
    manifest_path(out).write_text("{not json")
    with pytest.raises(StageInputError, match="cannot be read"):
        check_stage_input(out, tmp_path / "results")


def test_inputs_outside_the_results_folder_and_failed_jobs(tmp_path):
    """Inputs outside the results folder (the library, published numbers) are not checked;
    a failed job writes no manifest; a stand-in without config checks nothing."""
    source = tmp_path / "resources" / "published.csv"
    _write("csv", source)
    _consume(tmp_path, source)
    out = tmp_path / "results" / "stage" / "failed.csv"
    with pytest.raises(RuntimeError, match="boom"):
        with job_logger(_job(tmp_path, "make_csv", outputs=[out])):
            _write("csv", out)
            raise RuntimeError("boom")
    assert not manifest_path(out).exists()
    bare = _job(tmp_path, "consume", inputs=[out])
    del bare.config
    with job_logger(bare):
        pass


def test_the_manifests_are_not_results_and_orphans_are_removed(tmp_path):
    """results_manifest (the byte-identity check of the papers' results) leaves them out;
    a manifest whose file Snakemake removed (a temporary intermediate) goes at the next
    start or success of a run."""
    kept = _produce(tmp_path, "csv", "summary.csv")
    temp = _produce(tmp_path, "npz", "chunk0.npz")
    assert set(results_manifest(tmp_path / "results", exclude=("logs/*",))) == {
        "stage/summary.csv",
        "stage/chunk0.npz",
    }
    temp.unlink()
    assert remove_orphan_manifests(tmp_path / "results") == [manifest_path(temp)]
    assert manifest_path(kept).exists() and not manifest_path(temp).exists()
