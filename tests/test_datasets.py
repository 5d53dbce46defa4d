"""Real data: the registry, the verified fetch (mirror and download), readers and win matrices.

The tests that need the real files take them from the fixture ``mirror`` (tests/_data.py:
``$DPRANK_DATA_MIRROR``, or the data downloaded once) and are skipped without it. The
downloads tested here are either blocked (``pooch.retrieve`` patched to fail) or served
from 127.0.0.1.
"""

from __future__ import annotations

import dataclasses
import functools
import http.server
import io
import shutil
import tarfile
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pooch
import pytest
import yaml

from dprank.data.datasets import (
    ENV_VAR,
    DataError,
    fetch,
    load_registry,
    resolve_mirror,
    sha256,
    verify_local,
)
from dprank.data.realdata import (
    CEMS_ITEMS,
    IMMIG_ITEMS,
    cems_win_matrix,
    immig_win_matrix,
    load_real_dataset,
    read_cems,
    read_immig,
    win_frame,
)

ROOT = Path(__file__).resolve().parents[1]
REGISTRY_PATH = ROOT / "resources" / "datasets.yaml"
DATA = Path(__file__).resolve().parent / "data"
ALL_DATASETS = {"cems", "immig", "car_preferences", "movielens_latest_small", "chatbot_arena"}


@pytest.fixture(scope="session")
def registry():
    return load_registry(REGISTRY_PATH)


def copy_mirror(mirror: Path, dest: Path, names: list[str]) -> Path:
    for name in names:
        shutil.copytree(mirror / name, dest / name)
    return dest


# --------------------------------------------------------------------------- registry


def test_registry_lists_every_dataset(registry):
    assert set(registry) == ALL_DATASETS
    for dataset in registry.values():
        assert dataset.files, dataset.name
        assert all(f.path.startswith(f"{dataset.name}/") for f in dataset.files)
        assert dataset.citation and dataset.license and dataset.page
    members = {f.path: f.member for d in registry.values() for f in d.files}
    assert members["cems/CEMS.rda"] == "BradleyTerry2/data/CEMS.rda"
    assert members["immig/immig.RData"] == "prefmod/data/immig.RData"


def test_registry_sizes_and_hashes_match_the_mirror(registry, mirror):
    for dataset in registry.values():
        for f in dataset.files:
            path = mirror / f.path
            assert path.stat().st_size == f.size, f.path
            assert sha256(path) == f.sha256, f.path


def write_registry(tmp_path: Path, doc: dict) -> Path:
    path = tmp_path / "registry.yaml"
    path.write_text(yaml.safe_dump(doc))
    return path


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda f: f.update(sha256="abc"), "'sha256' must be 64 lower-case hex digits"),
        (lambda f: f.update(size=-3), "'size' must be a positive integer"),
        (lambda f: f.update(url="ftp://x/y"), "URLs must be http"),
        (lambda f: f.update(path="../cems/CEMS.rda"), "'path' must be a relative POSIX path"),
        (lambda f: f.update(path="immig/CEMS.rda"), "must lie in the data set's folder"),
        (lambda f: f.update(archive="rar"), "'archive' must be one of"),
        (lambda f: f.pop("member"), "'member' must be a non-empty string"),
        (lambda f: f.update(colour="red"), "unknown keys \\['colour'\\]"),
    ],
)
def test_registry_rejects_malformed_entries(tmp_path, edit, message):
    doc = yaml.safe_load(REGISTRY_PATH.read_text())
    edit(doc["datasets"]["cems"]["files"][0])
    with pytest.raises(ValueError, match=rf"'cems' files\[0\].*{message}"):
        load_registry(write_registry(tmp_path, doc))


def test_registry_rejects_missing_dataset_keys(tmp_path):
    doc = yaml.safe_load(REGISTRY_PATH.read_text())
    del doc["datasets"]["immig"]["citation"]
    with pytest.raises(ValueError, match=r"'immig'.*missing keys \['citation'\]"):
        load_registry(write_registry(tmp_path, doc))
    with pytest.raises(ValueError, match="top-level mapping 'datasets"):
        load_registry(write_registry(tmp_path, {"cems": {}}))


# --------------------------------------------------------------------------- mirror


def test_fetch_from_mirror(registry, mirror, tmp_path):
    for name, dataset in registry.items():
        paths = fetch(name, registry, tmp_path, mirror=mirror)
        assert paths == [tmp_path / f.path for f in dataset.files]
        for path, f in zip(paths, dataset.files, strict=True):
            assert sha256(path) == f.sha256
    assert not list(tmp_path.rglob("*.tmp")), "temporary files left behind"


def test_env_var_overrides_config(monkeypatch, tmp_path):
    config_dir, env_dir = tmp_path / "config", tmp_path / "env"
    config_dir.mkdir()
    env_dir.mkdir()
    monkeypatch.delenv(ENV_VAR, raising=False)
    assert resolve_mirror(None) is None
    assert resolve_mirror("") is None
    assert resolve_mirror(str(config_dir)) == config_dir
    monkeypatch.setenv(ENV_VAR, str(env_dir))
    assert resolve_mirror(str(config_dir)) == env_dir
    assert resolve_mirror(None) == env_dir


def test_nonexistent_mirror_is_an_error(monkeypatch, tmp_path):
    missing = tmp_path / "nowhere"
    monkeypatch.delenv(ENV_VAR, raising=False)
    with pytest.raises(DataError, match=rf"{missing}.*config key 'data_mirror'"):
        resolve_mirror(str(missing))
    monkeypatch.setenv(ENV_VAR, str(missing))
    with pytest.raises(DataError, match=rf"{missing}.*environment variable {ENV_VAR}"):
        resolve_mirror(None)


def test_corrupted_mirror_file_is_rejected(registry, mirror, tmp_path):
    bad = copy_mirror(mirror, tmp_path / "mirror", ["cems"])
    target = bad / "cems" / "CEMS.rda"
    data = bytearray(target.read_bytes())
    data[100] ^= 0xFF
    target.write_bytes(bytes(data))
    dest = tmp_path / "dest"
    expected = registry["cems"].files[0].sha256
    with pytest.raises(DataError, match="corrupted or a different version") as err:
        fetch("cems", registry, dest, mirror=bad)
    message = str(err.value)
    assert "cems/CEMS.rda" in message and expected in message and sha256(target) in message
    assert not (dest / "cems" / "CEMS.rda").exists()
    assert not [p for p in dest.rglob("*") if p.is_file()], "a file was left behind"


def test_local_copies_are_verified_where_a_job_reads_them(registry, mirror, tmp_path):
    """A copy in the data folder edited or damaged after its fetch: both hashes, the fix."""
    data = tmp_path / "resources" / "data"
    fetch("car_preferences", registry, data, mirror=mirror)
    fetch("cems", registry, data, mirror=mirror)
    prefs, cems = data / "car_preferences/prefs1.csv", data / "cems/CEMS.rda"
    outside = tmp_path / "other.csv"
    outside.write_text("not registered, not in the data folder\n")
    assert verify_local([prefs, cems, outside], registry, data) == [prefs, cems]
    assert verify_local([outside], REGISTRY_PATH, data) == []
    # one line of the CSV edited
    lines = prefs.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace("1", "2", 1)
    prefs.write_text("".join(lines))
    (entry,) = [f for f in registry["car_preferences"].files if f.path.endswith("/prefs1.csv")]
    with pytest.raises(DataError) as err:
        verify_local([cems, prefs], REGISTRY_PATH, data)
    message = str(err.value)
    assert str(prefs) in message and "data set 'car_preferences'" in message
    assert entry.sha256 in message and sha256(prefs) in message and sha256(prefs) != entry.sha256
    assert "delete it" in message and "fetch_car_preferences" in message and ENV_VAR in message
    # a damaged .rda: the hash message, before any reader could fail on its gzip stream
    cems.write_bytes(cems.read_bytes()[:1000])
    with pytest.raises(DataError, match=r"CEMS\.rda \(data set 'cems'\) does not match"):
        verify_local([cems], registry, data)
    cems.unlink()
    with pytest.raises(DataError, match=r"CEMS\.rda .*is missing.*fetch_cems"):
        verify_local([cems], registry, data)
    stray = data / "cems" / "extra.csv"
    stray.write_text("x\n")
    with pytest.raises(DataError, match="not a file of the data set registry"):
        verify_local([stray], registry, data)


def test_stale_destination_file_is_replaced_or_removed(registry, mirror, tmp_path):
    dest = tmp_path / "dest"
    stale = dest / "immig" / "immig.RData"
    stale.parent.mkdir(parents=True)
    stale.write_bytes(b"old")
    fetch("immig", registry, dest, mirror=mirror)
    assert sha256(stale) == registry["immig"].files[0].sha256
    stale.write_bytes(b"old")
    with pytest.raises(DataError):
        fetch("immig", registry, dest, mirror=tmp_path)  # an empty mirror
    assert stale.read_bytes() == b"old"  # a missing source touches nothing...
    bad = copy_mirror(mirror, tmp_path / "bad", ["immig"])
    (bad / "immig" / "immig.RData").write_bytes(b"garbage")
    with pytest.raises(DataError, match="does not match the registry"):
        fetch("immig", registry, dest, mirror=bad)
    assert not stale.exists()  # ...but a failed install leaves no unverified file


def test_missing_mirror_file_is_named(registry, mirror, tmp_path):
    partial = copy_mirror(mirror, tmp_path / "mirror", ["car_preferences"])
    (partial / "car_preferences" / "users1.csv").unlink()
    with pytest.raises(DataError) as err:
        fetch("car_preferences", registry, tmp_path / "dest", mirror=partial)
    message = str(err.value)
    assert "car_preferences/users1.csv" in message
    assert str(partial / "car_preferences" / "users1.csv") in message
    assert "items1.csv" not in message


def test_unknown_dataset(registry, tmp_path):
    with pytest.raises(ValueError, match="unknown data set 'nope'"):
        fetch("nope", registry, tmp_path)


# --------------------------------------------------------------------------- download


def test_no_mirror_and_no_network_names_every_missing_file(registry, tmp_path, monkeypatch):
    tried = []

    def offline(url, *args, **kwargs):
        tried.append(url)
        raise ConnectionError(f"network blocked in tests: {url}")

    monkeypatch.setattr(pooch, "retrieve", offline)
    for name in ("car_preferences", "movielens_latest_small", "immig"):
        dataset = registry[name]
        with pytest.raises(DataError) as err:
            fetch(name, registry, tmp_path / "dest", mirror=None)
        message = str(err.value)
        for f in dataset.files:
            assert f.path in message and f.urls[0] in message
        assert ENV_VAR in message and "data_mirror" in message and "<mirror>/" in message
        assert not [p for p in (tmp_path / "dest").rglob("*") if p.is_file()]
    # Fallback URLs are tried too; an archive is downloaded once for all its members.
    assert "https://cran.r-project.org/src/contrib/Archive/prefmod/prefmod_0.8-36.tar.gz" in tried
    assert tried.count("https://files.grouplens.org/datasets/movielens/ml-latest-small.zip") == 1


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


@pytest.fixture
def local_server(tmp_path) -> Iterator[tuple[str, Path]]:
    """An HTTP server on 127.0.0.1 serving a temporary folder (no outside network)."""
    root = tmp_path / "served"
    root.mkdir()
    handler = functools.partial(_QuietHandler, directory=str(root))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", root
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def _local_registry(registry, name, base, archive_name):
    """The registry entry of ``name`` with every URL pointing at the local server."""
    dataset = registry[name]
    url = (f"{base}/{archive_name}",)
    files = tuple(dataclasses.replace(f, urls=url) for f in dataset.files)
    return {name: dataclasses.replace(dataset, files=files)}


def test_download_extracts_and_verifies_archive_members(
    registry, mirror, tmp_path, local_server, monkeypatch
):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    base, served = local_server
    with tarfile.open(served / "BradleyTerry2_1.1-2.tar.gz", "w:gz") as tar:
        tar.add(mirror / "cems" / "CEMS.rda", arcname="BradleyTerry2/data/CEMS.rda")
        tar.addfile(tarfile.TarInfo("BradleyTerry2/DESCRIPTION"), io.BytesIO(b""))
    with zipfile.ZipFile(served / "ml-latest-small.zip", "w") as zf:
        for f in registry["movielens_latest_small"].files:
            zf.write(mirror / f.path, arcname=f.member)
    dest = tmp_path / "dest"
    for name, archive in [
        ("cems", "BradleyTerry2_1.1-2.tar.gz"),
        ("movielens_latest_small", "ml-latest-small.zip"),
    ]:
        local = _local_registry(registry, name, base, archive)
        paths = fetch(name, local, dest, mirror=None)
        assert [sha256(p) for p in paths] == [f.sha256 for f in local[name].files]
    assert sorted(p.name for p in dest.iterdir()) == ["cems", "movielens_latest_small"]


def test_download_of_a_different_version_is_rejected(
    registry, mirror, tmp_path, local_server, monkeypatch
):
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    base, served = local_server
    with tarfile.open(served / "prefmod.tar.gz", "w:gz") as tar:
        tar.add(mirror / "cems" / "CEMS.rda", arcname="prefmod/data/immig.RData")  # wrong file
    local = _local_registry(registry, "immig", base, "prefmod.tar.gz")
    dest = tmp_path / "dest"
    with pytest.raises(DataError, match=registry["immig"].files[0].sha256):
        fetch("immig", local, dest, mirror=None)
    assert not (dest / "immig" / "immig.RData").exists()
    (served / "items1.csv").write_text("not the data\n")
    local = _local_registry(registry, "car_preferences", base, "items1.csv")
    with pytest.raises(DataError, match="corrupted or a different version"):
        fetch("car_preferences", local, dest, mirror=None)
    assert not [p for p in dest.rglob("*") if p.is_file()], "a file was left behind"


# --------------------------------------------------------------------------- real data


def reference(name: str) -> pd.DataFrame:
    return pd.read_csv(DATA / f"real_data_{name}_win_matrix.csv", comment="#", index_col=0)


def test_cems_win_matrix_matches_reference(mirror):
    preferences = read_cems(mirror / "cems" / "CEMS.rda")
    assert preferences.shape == (4545, 8)
    items, wins = cems_win_matrix(preferences)
    ref = reference("cems")
    assert items == CEMS_ITEMS == tuple(ref.columns) == tuple(ref.index)
    assert wins.dtype.kind == "i"
    np.testing.assert_array_equal(wins, ref.to_numpy())
    assert wins.sum() == 3967


def test_immig_win_matrix_matches_reference(mirror):
    frame = read_immig(mirror / "immig" / "immig.RData")
    assert frame.shape == (98, 9)
    items, wins = immig_win_matrix(frame)
    ref = reference("immig")
    assert items == IMMIG_ITEMS  # items 1-4 of the reference
    assert list(ref.columns) == ["1", "2", "3", "4"] and list(ref.index) == [1, 2, 3, 4]
    assert wins.dtype.kind == "i"
    np.testing.assert_array_equal(wins, ref.to_numpy())
    assert wins.sum() == 379


def test_load_real_dataset_constants(mirror):
    cems = load_real_dataset("cems", mirror / "cems" / "CEMS.rda")
    immig = load_real_dataset("immig", mirror / "immig" / "immig.RData")
    assert (cems.n, cems.L, cems.m, int(cems.wins.sum())) == (6, 15, 303, 3967)
    assert (immig.n, immig.L, immig.m, int(immig.wins.sum())) == (4, 6, 98, 379)
    frame = win_frame(cems.items, cems.wins)
    assert frame.index.name == "row_item_beats_column_item"
    np.testing.assert_array_equal(frame.to_numpy(), reference("cems").to_numpy())


def test_win_matrices_on_small_tables():
    prefs = pd.DataFrame(
        {
            "school1": ["Paris", "Paris", "London", "London", "Paris"],
            "school2": ["London", "London", "Paris", "Paris", "London"],
            "win1": [1.0, 0.0, 1.0, np.nan, 0.0],
            "win2": [0.0, 1.0, 0.0, np.nan, 0.0],
            "tied": [0.0, 0.0, 0.0, np.nan, 1.0],
        }
    )
    items, wins = cems_win_matrix(prefs)
    assert items == ("London", "Paris")
    np.testing.assert_array_equal(wins, [[0, 2], [1, 0]])  # London beat Paris twice
    frame = pd.DataFrame({c: [1.0, -1.0, 0.0, np.nan] for c in ["V12", "V13", "V23"]})
    frame["V14"], frame["V24"], frame["V34"] = [-1.0] * 4, [np.nan] * 4, [1.0] * 4
    _, wins = immig_win_matrix(frame)
    expected = np.zeros((4, 4), dtype=int)
    expected[0, 1] = expected[1, 0] = expected[0, 2] = expected[2, 0] = 1
    expected[1, 2] = expected[2, 1] = 1
    expected[3, 0], expected[2, 3] = 4, 4
    np.testing.assert_array_equal(wins, expected)
    frame.loc[0, "V12"] = 2.0
    with pytest.raises(ValueError, match="must be 1, 0, -1 or NaN"):
        immig_win_matrix(frame)
