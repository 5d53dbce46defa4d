"""The dprank command end to end: every subcommand, the real data, bad input, reproducibility.

The real data sets are exported with ``dprank datasets export`` from the data folder of
the fixture ``mirror`` (tests/_data.py: ``$DPRANK_DATA_MIRROR``, or the data downloaded);
those tests are skipped without it.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from dprank.cli import main
from dprank.data.datasets import ENV_VAR
from dprank_papers.studies.paper_b2_car import TABLE1_ORDER

ROOT = Path(__file__).resolve().parents[1]
DATASETS = ("cems", "immig", "car_preferences", "movielens_latest_small")


def run(argv, capsys) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="session")
def exported(mirror, tmp_path_factory) -> dict[str, Path]:
    """The four real data sets, exported with ``dprank datasets export``."""
    folder = tmp_path_factory.mktemp("exported")
    old = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = str(mirror)
    try:
        out = {}
        for name in DATASETS:
            path = folder / f"{name}.csv"
            assert main(["datasets", "export", name, "--out", str(path)]) == 0
            out[name] = path
    finally:
        if old is None:
            del os.environ[ENV_VAR]
        else:
            os.environ[ENV_VAR] = old
    return out


@pytest.fixture(scope="session")
def synthetic(tmp_path_factory) -> Path:
    """A BTL data set as a TSV in the item_a,item_b,outcome layout with users and counts."""
    rng = np.random.default_rng(2026)
    n, users = 12, 20
    theta = np.linspace(1.5, -1.5, n)
    rows = []
    for u in range(users):
        for _ in range(15):
            a, b = rng.choice(n, 2, replace=False)
            wins_a = rng.binomial(3, 1 / (1 + np.exp(-(theta[a] - theta[b]))))
            for outcome, k in ((1, wins_a), (0, 3 - wins_a)):
                if k:
                    rows.append((f"item {a:02d}", f"item {b:02d}", outcome, f"u{u}", k))
    frame = pd.DataFrame(rows, columns=["item_a", "item_b", "outcome", "user", "count"])
    path = tmp_path_factory.mktemp("synthetic") / "synthetic.tsv"
    frame.to_csv(path, sep="\t", index=False)
    return path


def _order(csv_path_or_text) -> list[str]:
    frame = pd.read_csv(csv_path_or_text, dtype={"item": str})
    assert frame["rank"].tolist() == list(range(1, len(frame) + 1))
    return frame["item"].tolist()


# --------------------------------------------------------------------------- real data


def test_datasets_list(capsys, mirror):
    code, out, _ = run(["datasets", "list"], capsys)
    assert code == 0
    # the arena votes export as an arena battle file (tests/test_arena.py)
    assert [line.split("\t")[0] for line in out.splitlines()] == [*DATASETS, "chatbot_arena"]


def _source_tree(tmp_path: Path, mirror: Path, names: list[str]) -> Path:
    """A registry with the workflow's data folder beside it holding copies of ``names``."""
    import shutil

    resources = tmp_path / "tree" / "resources"
    (resources / "data").mkdir(parents=True)
    shutil.copy(ROOT / "resources" / "datasets.yaml", resources / "datasets.yaml")
    for name in names:
        shutil.copytree(mirror / name, resources / "data" / name)
    return resources / "datasets.yaml"


@pytest.fixture
def offline(monkeypatch) -> list[str]:
    """No data mirror and no network: the URLs a download tried."""
    import pooch

    tried: list[str] = []

    def blocked(url, *args, **kwargs):
        tried.append(url)
        raise ConnectionError(f"network blocked in tests: {url}")

    monkeypatch.delenv(ENV_VAR, raising=False)
    monkeypatch.setattr(pooch, "retrieve", blocked)
    return tried


def test_export_uses_the_verified_local_copies(exported, mirror, offline, tmp_path, capsys):
    """The workflow's resources/data/ beside the registry: no mirror, no network needed."""
    registry = _source_tree(tmp_path, mirror, ["cems", "car_preferences"])
    for name in ("cems", "car_preferences"):
        out = tmp_path / f"{name}.csv"
        code, _, err = run(
            ["datasets", "export", name, "--registry", registry, "--out", out], capsys
        )
        assert code == 0, err
        assert out.read_bytes() == exported[name].read_bytes()
    assert offline == []  # nothing was downloaded


def test_export_refuses_a_damaged_local_copy_with_both_hashes(mirror, offline, tmp_path, capsys):
    from dprank.data.datasets import sha256

    registry = _source_tree(tmp_path, mirror, ["car_preferences"])
    prefs = registry.parent / "data" / "car_preferences" / "prefs1.csv"
    lines = prefs.read_text().splitlines(keepends=True)
    lines[1] = lines[1].replace("1", "2", 1)
    prefs.write_text("".join(lines))
    expected = sha256(mirror / "car_preferences" / "prefs1.csv")
    code, _, err = run(
        ["datasets", "export", "car_preferences", "--registry", registry, "--out", "-"], capsys
    )
    assert code == 2 and err.count("error:") == 1
    assert "prefs1.csv" in err and expected in err and sha256(prefs) in err
    assert "delete it" in err and offline == []


def test_export_offline_without_copies_names_the_environment_variable(offline, tmp_path, capsys):
    out = tmp_path / "cems.csv"
    registry = _source_tree(tmp_path, Path(), [])
    code, _, err = run(["datasets", "export", "cems", "--registry", registry, "--out", out], capsys)
    assert code == 2 and offline and not out.exists()
    assert f"set the environment variable {ENV_VAR} to that folder" in err
    assert "cems/CEMS.rda" in err and "data_mirror" not in err and "config key" not in err


@pytest.mark.parametrize("name", DATASETS)
def test_exported_data_set_has_the_input_format(exported, name):
    frame = pd.read_csv(exported[name], dtype=str)
    assert list(frame.columns) == ["winner", "loser", "user"]
    assert not frame.isna().any().any() and (frame["winner"] != frame["loser"]).all()
    expected_rows = {"cems": 3967, "immig": 379, "car_preferences": 2675}
    if name in expected_rows:
        assert len(frame) == expected_rows[name]


def test_car_data_nonprivate_rank_is_table_1(exported, tmp_path, capsys):
    out = tmp_path / "car_ranking.csv"
    code, _, err = run(
        ["rank", exported["car_preferences"], "--privacy", "none", "--out", out], capsys
    )
    assert code == 0, err
    assert _order(out) == [str(c) for c in TABLE1_ORDER]
    sidecar = json.loads(out.with_suffix(".json").read_text())
    assert sidecar["mechanism"] == "nonprivate_mle" and sidecar["private"] is False
    audit = tmp_path / "audit.json"
    argv = ["rank", exported["car_preferences"], "--privacy", "none", "--out", "-"]
    assert run([*argv, "--audit-record", audit], capsys)[0] == 0
    record = json.loads(audit.read_text())
    assert record["n_items"] == 10 and record["n_users"] == 60
    assert record["n_comparisons"] == 2675 and record["solver"]["converged"] is True


@pytest.mark.parametrize("name", DATASETS)
def test_every_subcommand_on_the_real_data(exported, name, tmp_path, capsys):
    data = exported[name]
    for privacy, extra in (
        ("none", []),
        ("edge", ["--epsilon", "1"]),
        ("edge", ["--epsilon", "1", "--method", "counts"]),
        ("individual", ["--epsilon", "2", "--max-per-user", "10", "--items-from-data"]),
        (
            "individual",
            ["--epsilon", "2", "--method", "counts", "--max-per-user", "10", "--items-from-data"],
        ),
    ):
        out = tmp_path / f"{privacy}.csv"
        code, _, err = run(
            ["rank", data, "--privacy", privacy, *extra, "--top-k", 3, "--out", out],
            capsys,
        )
        assert code == 0, err
        frame = pd.read_csv(out)
        assert frame["in_top_k"].sum() == 3
        record = json.loads(out.with_suffix(".json").read_text())
        assert record["privacy"] == privacy
        assert record["private"] is (privacy != "none")
        if privacy == "individual":
            assert record["max_per_user"] == 10
    released = tmp_path / "released.csv"
    code, _, err = run(
        ["privatize", data, "--epsilon", 1, "--items-from-data", "--out", released, "--quiet"],
        capsys,
    )
    assert code == 0, err
    rel = pd.read_csv(released, dtype={"item_a": str, "item_b": str, "user": str})
    assert list(rel.columns) == ["item_a", "item_b", "outcome", "user", "epsilon"]
    assert set(rel["outcome"]) <= {0, 1} and (rel["epsilon"] == 1.0).all()
    out = tmp_path / "local.csv"
    code, _, err = run(["rank", released, "--privacy", "local", "--out", out], capsys)
    assert code == 0, err
    assert json.loads(out.with_suffix(".json").read_text())["mechanism"] == "local_adrr"


# --------------------------------------------------------------------------- synthetic file


def test_synthetic_tsv_every_method(synthetic, tmp_path, capsys):
    cases = [
        ("none", "mle", []),
        ("none", "counts", []),
        ("edge", "mle", ["--epsilon", "2"]),
        ("edge", "counts", ["--epsilon", "2"]),
        ("edge", "noisy_obj", ["--epsilon", "2"]),
        ("individual", "mle", ["--epsilon", "2", "--max-per-user", "45", "--items-from-data"]),
        ("individual", "counts", ["--epsilon", "2", "--max-per-user", "45", "--items-from-data"]),
        ("none", "mle", ["--model", "tm"]),
    ]
    for privacy, method, extra in cases:
        code, out, err = run(
            [
                "rank",
                synthetic,
                "--privacy",
                privacy,
                "--method",
                method,
                *extra,
                "--out",
                "-",
            ],
            capsys,
        )
        assert code == 0, (privacy, method, err)
        assert len(_order(pd.io.common.StringIO(out))) == 12
    # local: privatize (counts are split by randomized response), then every local method
    released = tmp_path / "released.csv"
    privatize = ["privatize", synthetic, "--items-from-data"]
    assert run([*privatize, "--epsilon", 1.5, "--out", released], capsys)[0] == 0
    rel = pd.read_csv(released)
    assert "count" in rel.columns
    assert rel["count"].sum() == pd.read_csv(synthetic, sep="\t")["count"].sum()
    for method in ("adrr", "debiased_rr", "classic_rr", "count"):
        code, out, err = run(
            ["rank", released, "--privacy", "local", "--method", method, "--out", "-"], capsys
        )
        assert code == 0, (method, err)
    lap = tmp_path / "laplace.csv"
    code, _, err = run([*privatize, "--epsilon", 1, "--mechanism", "laplace", "--out", lap], capsys)
    assert code == 0, err
    code, out, err = run(
        ["rank", lap, "--privacy", "local", "--method", "laplace", "--out", "-"], capsys
    )
    assert code == 0, err


def test_nonprivate_ranking_recovers_the_truth_order(synthetic, capsys):
    code, out, _ = run(["rank", synthetic, "--privacy", "none", "--out", "-"], capsys)
    assert code == 0
    order = _order(pd.io.common.StringIO(out))
    # 900 comparisons of 12 items spread over 3 logits: the ends are clear
    assert order[0] in ("item 00", "item 01") and order[-1] in ("item 10", "item 11")


def test_same_insecure_seed_same_bytes_and_fresh_noise_otherwise(synthetic, tmp_path, capsys):
    paths = []
    for k, seed in enumerate((11, 11, 12, None, None)):
        out = tmp_path / f"r{k}.csv"
        argv = ["rank", synthetic, "--privacy", "edge", "--epsilon", 1, "--out", out]
        code, _, err = run(argv if seed is None else [*argv, "--insecure-seed", seed], capsys)
        assert code == 0
        assert ("NOT private" in err) is (seed is not None)
        paths.append(out)
    assert paths[0].read_bytes() == paths[1].read_bytes()
    same_json = (p.with_suffix(".json").read_bytes() for p in paths[:2])
    assert next(same_json) == next(same_json)
    assert paths[0].read_bytes() != paths[2].read_bytes()
    assert paths[3].read_bytes() != paths[4].read_bytes()  # the secure source: fresh noise
    records = [json.loads(p.with_suffix(".json").read_text()) for p in paths]
    assert [r["private"] for r in records] == [False, False, False, True, True]


@pytest.mark.parametrize("command", ["rank", "privatize"])
def test_plain_seed_is_refused_naming_the_opt_in(synthetic, tmp_path, capsys, command):
    extra = ["--privacy", "edge"] if command == "rank" else []
    out = tmp_path / "out.csv"
    argv = [command, synthetic, *extra, "--epsilon", 1, "--seed", 7, "--out", out]
    code, _, err = run(argv, capsys)
    assert code == 2 and "--insecure-seed" in err
    assert not out.exists()


def test_out_dash_writes_only_the_result(synthetic, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(
        ["rank", synthetic, "--privacy", "edge", "--epsilon", 1, "--out", "-"],
        capsys,
    )
    assert code == 0
    assert out.splitlines()[0] == "item,score,rank" and len(out.splitlines()) == 13
    assert list(tmp_path.iterdir()) == []  # no sidecar, no default file


def test_plot_public_and_private_records(synthetic, tmp_path, capsys):
    out, plot, audit = tmp_path / "r.csv", tmp_path / "r.png", tmp_path / "audit.json"
    argv = ["rank", synthetic, "--privacy", "individual", "--epsilon", 1, "--max-per-user", 30]
    argv.append("--items-from-data")
    assert run([*argv, "--out", out, "--plot", plot, "--audit-record", audit], capsys)[0] == 0
    assert plot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = out.with_suffix(".json").read_text()
    assert text.endswith("}\n")
    record = json.loads(text)
    for key in (
        "mechanism",
        "paper",
        "algorithm",
        "privacy_unit",
        "trust_model",
        "private",
        "epsilon",
        "delta",
        "max_per_user",
        "noise",
        "public",
        "dprank_version",
    ):
        assert key in record
    assert record["privacy_unit"] == "user" and record["max_per_user"] == 30
    # nothing computed from the data outside the mechanism: no seed, hash or exact count
    digest = __import__("hashlib").sha256(synthetic.read_bytes()).hexdigest()
    for secret in ("seed", "n_users", "n_comparisons", "n_components", "solver", "input", "L"):
        assert secret not in record
    assert digest not in text
    assert set(record["noise"]) <= {
        "noise",
        "noise_scale",
        "sensitivity",
        "sampler",
        "grid_exponent",
        "max_per_user",
        "output_noise",
    }
    # the data owner's record: readable by its owner only
    assert audit.stat().st_mode & 0o777 == 0o600
    private = json.loads(audit.read_text())
    assert private["input"]["sha256"] == digest
    assert private["n_users"] == 20 and private["n_dropped_by_max_per_user"] > 0


def test_disconnected_graph_warns_and_ranks(tmp_path, capsys):
    path = tmp_path / "two.csv"
    path.write_text("winner,loser\na,b\nb,c\na,c\nx,y\ny,z\nx,z\nq,r\n")
    code, out, err = run(["rank", path, "--privacy", "none", "--out", "-"], capsys)
    assert code == 0
    assert "3 components" in err
    assert len(out.splitlines()) == 9


def test_methods_subcommand(capsys):
    from dprank.methods import all_methods

    code, out, _ = run(["methods"], capsys)
    assert code == 0
    header, *lines = out.splitlines()
    assert header.split()[:2] == ["name", "label"]
    assert len(lines) == len(all_methods())
    for line, method in zip(lines, all_methods(), strict=True):
        assert line.split()[0] == method.name
        assert f"  {method.label}  " in line
        assert method.privacy_unit in line and line.rstrip().endswith(method.trust_model)


# --------------------------------------------------------------------------- bad input


GOOD = "winner,loser,user\na,b,u1\nb,c,u2\nc,a,u1\n"
BAD_FILES = {
    "empty": ("", "empty"),
    "header": ("first,second\na,b\n", "lacks the needed columns"),
    "count_text": ("winner,loser,count\na,b,x\n", "line 2, column 3 (count)"),
    "count_negative": ("winner,loser,count\na,b,1\nb,a,-2\n", "line 3, column 3 (count)"),
    "outcome": ("item_a,item_b,outcome\na,b,1\na,b,2\n", "line 3, column 3 (outcome)"),
    "self": ("winner,loser\na,b\nc,c\n", "line 3, column 1 (winner): self-comparison"),
    "missing": ("winner,loser\na,b\nb,\n", "line 3, column 2 (loser): missing value"),
    "fields": ("winner,loser\na,b\nb,c,d\n", "line 3"),
}


def _assert_clean_failure(code, err, folder: Path, name: str | None, expect: str):
    assert code == 2
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("dprank: error: "), err
    assert expect in lines[0]
    if name is not None:
        assert name in lines[0]
    assert (
        sorted(p.name for p in folder.iterdir() if p.name.startswith(("result", ".result"))) == []
    )


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_file_exit_2_one_message_nothing_written(case, tmp_path, capsys):
    text, expect = BAD_FILES[case]
    path = tmp_path / f"{case}.csv"
    path.write_text(text)
    code, out, err = run(
        ["rank", path, "--privacy", "none", "--out", tmp_path / "result.csv"], capsys
    )
    assert out == ""
    _assert_clean_failure(code, err, tmp_path, f"{case}.csv", expect)


@pytest.mark.parametrize(
    "argv, expect",
    [
        (["--privacy", "none"], "no such file"),
        (["--privacy", "none", "DIR"], "is a directory"),
        (["--privacy", "individual", "--epsilon", "1", "--max-per-user", "3", "NOUSER"], "--items"),
        (
            [
                "--privacy",
                "individual",
                "--epsilon",
                "1",
                "--max-per-user",
                "3",
                "--items-from-data",
                "NOUSER",
            ],
            "user",
        ),
        (["--privacy", "individual", "--epsilon", "1", "GOOD"], "--max-per-user"),
        (["--privacy", "local", "NOUSER"], "not written by dprank privatize"),
        (["--privacy", "local", "GOOD"], "`dprank privatize FILE"),
        (
            ["--privacy", "local", "--randomised-elsewhere", "x", "--items-from-data", "GOOD"],
            "no 'epsilon' column",
        ),
        (
            ["--privacy", "local", "--randomised-elsewhere", "x", "--items-from-data", "BADEPS"],
            "line 3, column 4 (epsilon)",
        ),
        (["--privacy", "edge", "--epsilon", "1", "--top-k", "4", "GOOD"], "--top-k must be"),
        (["--privacy", "edge", "--epsilon", "1e-320", "GOOD"], "epsilon must lie between"),
    ],
)
def test_bad_use_exit_2(argv, expect, tmp_path, capsys):
    files = {
        "GOOD": GOOD,
        "NOUSER": "winner,loser\na,b\n",
        "BADEPS": "item_a,item_b,outcome,epsilon,user\na,b,1,1.0,u\nb,c,0,0,v\n",
    }
    for key, text in files.items():
        (tmp_path / f"{key}.csv").write_text(text)
    (tmp_path / "DIR").mkdir()
    args = []
    for a in argv:
        args.append(str(tmp_path / f"{a}.csv") if a in files else a)
    if "DIR" in argv:
        args[args.index("DIR")] = str(tmp_path / "DIR")
    if not any(a.endswith(".csv") or a.endswith("DIR") for a in args):
        args.append(str(tmp_path / "absent.csv"))
    code, _, err = run(["rank", *args, "--out", tmp_path / "result.csv"], capsys)
    _assert_clean_failure(code, err, tmp_path, None, expect)


@pytest.mark.parametrize("eps", ["0", "-1", "abc", "nan", "inf"])
def test_bad_epsilon_exit_2(eps, tmp_path, capsys):
    path = tmp_path / "good.csv"
    path.write_text(GOOD)
    with pytest.raises(SystemExit) as info:
        main(["rank", str(path), "--privacy", "edge", "--epsilon", eps, "--out", "x.csv"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert "--epsilon" in err and "positive" in err


def test_epsilon_required_and_refused(tmp_path, capsys):
    path = tmp_path / "good.csv"
    path.write_text(GOOD)
    code, _, err = run(["rank", path, "--privacy", "edge", "--out", "-"], capsys)
    assert code == 2 and "needs --epsilon" in err
    code, _, err = run(["rank", path, "--privacy", "local", "--epsilon", 1, "--out", "-"], capsys)
    assert code == 2 and "not used with --privacy local" in err


def test_as_published_warns(tmp_path, capsys):
    path = tmp_path / "good.csv"
    path.write_text(GOOD)
    argv = ["rank", path, "--privacy", "individual", "--epsilon", 1, "--method", "counts"]
    record = tmp_path / "record.json"
    argv += [
        "--max-per-user",
        2,
        "--as-published",
        "--items-from-data",
        "--out",
        tmp_path / "r.csv",
    ]
    code, _, err = run([*argv, "--sidecar", record], capsys)
    assert code == 0 and "2 eps-DP" in err
    # the record states the guarantee actually given: 2 epsilon
    assert json.loads(record.read_text())["epsilon"] == 2.0


# --------------------------------------------------------------------------- help


@pytest.mark.parametrize(
    "sub, options",
    [
        (
            "rank",
            [
                "--privacy",
                "--epsilon",
                "--method",
                "--model",
                "--top-k",
                "--insecure-seed",
                "--max-per-user",
                "--audit-record",
                "--out",
                "--plot",
                "--quiet",
                "--as-published",
                "--sidecar",
            ],
        ),
        (
            "privatize",
            ["--epsilon", "--user-epsilon-column", "--out", "--insecure-seed", "--mechanism"],
        ),
        ("datasets", ["list", "export", "--out", "--data-dir"]),
        ("methods", []),
    ],
)
def test_help_of_each_subcommand(sub, options, capsys):
    with pytest.raises(SystemExit) as info:
        main([sub, "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    for option in options:
        assert option in out


def test_rank_help_says_what_the_intervals_are_centred_on(capsys):
    """--intervals' help names the centre of the score intervals (the CSV's estimate column,
    not the released score; the output's JSON says the same:
    test_intervals_columns_and_rejections)."""
    with pytest.raises(SystemExit) as info:
        main(["rank", "--help"])
    assert info.value.code == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "The score intervals are centred on 'estimate'" in out
    assert "not on 'score' (the release itself" in out


def test_console_script_and_module(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "dprank", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0
    for sub in ("rank", "privatize", "datasets", "methods"):
        assert sub in done.stdout
    script = Path(sys.executable).with_name("dprank")
    if script.exists():
        done = subprocess.run([script, "--version"], capture_output=True, text=True, check=False)
        assert done.returncode == 0 and done.stdout.startswith("dprank ")


def test_privatize_budgets_from_a_column_and_errors(tmp_path, capsys):
    path = tmp_path / "raw.csv"
    path.write_text("winner,loser,user,budget\na,b,u1,0.5\nb,c,u1,0.5\nc,a,u2,3\n")
    out = tmp_path / "rel.csv"
    argv = ["privatize", path, "--user-epsilon-column", "budget", "--items-from-data"]
    argv += ["--out", out]
    code, _, err = run(argv, capsys)
    assert code == 0, err
    rel = pd.read_csv(out)
    assert rel["epsilon"].tolist() == [0.5, 0.5, 3.0]
    code, _, err = run(["privatize", path, "--out", tmp_path / "result.csv"], capsys)
    _assert_clean_failure(code, err, tmp_path, None, "exactly one of --epsilon")
    nouser = tmp_path / "nouser.csv"
    nouser.write_text("winner,loser\na,b\n")
    code, _, err = run(
        [
            "privatize",
            nouser,
            "--epsilon",
            1,
            "--items-from-data",
            "--out",
            tmp_path / "result.csv",
        ],
        capsys,
    )
    _assert_clean_failure(code, err, tmp_path, "nouser.csv", "no 'user' column")


def test_privatize_flip_rate_matches_randomized_response(tmp_path, capsys):
    n = 4000
    path = tmp_path / "raw.csv"
    pd.DataFrame({"winner": ["a"] * n, "loser": ["b"] * n, "user": np.arange(n)}).to_csv(
        path, index=False
    )
    out = tmp_path / "rel.csv"
    argv = ["privatize", path, "--epsilon", 1, "--items-from-data", "--out", out]
    assert run(argv, capsys)[0] == 0
    flipped = (pd.read_csv(out)["outcome"] == 0).mean()
    p = 1 / (np.e + 1)
    assert abs(flipped - p) < 4 * np.sqrt(p * (1 - p) / n)


def test_unwritable_output_is_a_usage_error(tmp_path, capsys):
    path = tmp_path / "good.csv"
    path.write_text(GOOD)
    blocker = tmp_path / "file"
    blocker.write_text("")
    code, _, err = run(["rank", path, "--privacy", "none", "--out", blocker / "r.csv"], capsys)
    assert code == 2 and "error:" in err and len(err.strip().splitlines()) == 1


def test_intervals_columns_and_rejections(synthetic, tmp_path, capsys):
    out = tmp_path / "r.csv"
    argv = ["rank", synthetic, "--privacy", "edge", "--epsilon", 4, "--top-k", 3]
    argv += ["--method", "mle"]  # Algorithm 1 (the default is the benchmark's best)
    code, _, err = run([*argv, "--intervals", 0.9, "--out", out], capsys)
    assert code == 0, err
    frame = pd.read_csv(out)
    for column in (
        "estimate",
        "score_lo",
        "score_hi",
        "rank_lo",
        "rank_hi",
        "p_top_k",
        "tie_class",
    ):
        assert column in frame
    located = frame["rank_lo"].notna()
    f = frame[located]
    assert (f["rank_lo"] <= f["rank"]).all() and (f["rank"] <= f["rank_hi"]).all()
    # the score intervals are centred on the estimate (the column the CSV holds), which
    # may differ from the released score (shrunk by the method's ridge)
    assert ((f["score_lo"] <= f["estimate"]) & (f["estimate"] <= f["score_hi"])).all()
    record = json.loads(out.with_suffix(".json").read_text())["intervals"]
    assert record["level"] == 0.9 and "estimate" in record["centre"] and not record["joint"]
    assert frame["tie_class"].min() == 1 and frame["tie_class"].is_monotonic_increasing
    joint = tmp_path / "j.csv"
    code, _, err = run([*argv, "--intervals", 0.9, "--intervals-joint", "--out", joint], capsys)
    assert code == 0, err
    wide = pd.read_csv(joint)[located]
    assert (wide["rank_hi"] - wide["rank_lo"]).mean() >= (f["rank_hi"] - f["rank_lo"]).mean()
    assert json.loads(joint.with_suffix(".json").read_text())["intervals"]["joint"]
    code, _, err = run([*argv, "--intervals-joint", "--out", joint], capsys)
    assert code == 2 and "--intervals-joint needs --intervals LEVEL" in err
    code, _, err = run([*argv, "--intervals", 0.9, "--min-per-user", 2, "--out", joint], capsys)
    assert code == 2 and "--min-per-user applies only to --privacy individual" in err
    # a release that locates no item: empty interval cells and a note saying so
    vague = ["rank", synthetic, "--privacy", "edge", "--epsilon", 0.001, "--intervals", 0.95]
    code, _, err = run([*vague, "--out", tmp_path / "v.csv"], capsys)
    assert code == 0 and "does not locate any of the" in err
    assert pd.read_csv(tmp_path / "v.csv")["rank_lo"].isna().all()
    code, _, err = run([*argv, "--intervals", 1.5, "--out", out], capsys)
    assert code == 2 and "--intervals must lie" in err
    released = tmp_path / "rel.csv"
    privatize = ["privatize", synthetic, "--epsilon", 1, "--items-from-data"]
    assert run([*privatize, "--out", released], capsys)[0] == 0
    local = ["rank", released, "--privacy", "local", "--method", "count", "--intervals", 0.9]
    code, _, err = run([*local, "--out", tmp_path / "l.csv"], capsys)
    assert code == 2 and "method local_count has no intervals" in err


def test_leaderboard_of_intervals_with_unlocated_items(synthetic, tmp_path, capsys):
    """--html and --scale elo over the intervals of dprank.intervals: the estimate is on the
    scale too, the tie classes are the intervals' own, and an item the release does not
    locate has empty cells, rank UB 1 and no drawing on the page."""
    out, page = tmp_path / "lb.csv", tmp_path / "lb.html"
    argv = ["rank", synthetic, "--privacy", "edge", "--epsilon", 4, "--method", "mle"]
    argv += ["--intervals", 0.9, "--insecure-seed", 3, "--quiet"]
    code, _, err = run([*argv, "--out", tmp_path / "logit.csv"], capsys)
    assert code == 0, err
    logit = pd.read_csv(tmp_path / "logit.csv")
    code, _, err = run([*argv, "--scale", "elo", "--html", page, "--out", out], capsys)
    assert code == 0, err
    elo = pd.read_csv(out)
    assert list(elo.columns[-2:]) == ["rank_ub", "tie_class"]
    assert elo["tie_class"].tolist() == logit["tie_class"].tolist()
    slope = np.polyfit(logit["estimate"], elo["estimate"], 1)[0]
    assert slope == pytest.approx(400 / np.log(10))
    located = elo["rank_lo"].notna()
    assert (elo["rank_ub"][located] <= elo["rank"][located]).all()
    record = json.loads(out.with_suffix(".json").read_text())
    assert "simultaneous rank" in record["intervals"]["tie_class"]
    assert page.read_text().count("<svg") == located.sum()
    vague = ["rank", synthetic, "--privacy", "edge", "--epsilon", 0.001, "--intervals", 0.95]
    code, _, err = run([*vague, "--html", page, "--out", out], capsys)
    assert code == 0 and "does not locate any of the" in err
    frame = pd.read_csv(out)
    assert frame["rank_lo"].isna().all() and (frame["rank_ub"] == 1).all()
    text = page.read_text()
    assert "<svg" not in text and "not located" in text
    assert "NaN" not in text.replace("isNaN(", "")  # the page's data: null, not NaN


def test_ties_methods_refuse_the_options_of_their_bootstrap(tmp_path, capsys):
    votes = tmp_path / "votes.csv"
    rows = [("a", "b", "model_a"), ("b", "c", "tie"), ("c", "a", "model_b")] * 5
    pd.DataFrame(rows, columns=["model_a", "model_b", "winner"]).to_csv(votes, index=False)
    argv = ["rank", votes, "--privacy", "edge", "--epsilon", 2, "--model", "davidson"]
    argv += ["--intervals", 0.9, "--out", tmp_path / "r.csv"]
    for extra in (["--intervals-joint"], ["--intervals-method", "asymptotic"]):
        code, _, err = run([*argv, *extra], capsys)
        assert code == 2 and "parametric bootstrap of its release" in err, err
        assert not (tmp_path / "r.csv").exists()
    code, _, err = run(argv, capsys)
    assert code == 0, err
    record = json.loads((tmp_path / "r.json").read_text())["intervals"]
    assert record["method"].startswith("dprank.private_ties.ties_intervals")
    assert "tie_class" in pd.read_csv(tmp_path / "r.csv")


def test_low_memory_changes_no_byte_of_the_outputs(synthetic, tmp_path):
    """``--low-memory`` only changes the process's allocator (in a child: it is global)."""
    outs = {}
    for flag in ((), ("--low-memory",)):
        for cmd in (
            ["rank", str(synthetic), "--privacy", "edge", "--epsilon", "1"],
            ["privatize", str(synthetic), "--epsilon", "1", "--items-from-data"],
        ):
            out = tmp_path / f"{cmd[0]}{len(flag)}.csv"
            argv = [*cmd, *flag, "--insecure-seed", "7", "--quiet", "--out", str(out)]
            done = subprocess.run(
                [sys.executable, "-m", "dprank", *argv], capture_output=True, text=True, check=False
            )
            assert done.returncode == 0, done.stderr
            outs[cmd[0], bool(flag)] = out.read_bytes()
    assert outs["rank", True] == outs["rank", False]
    assert outs["privatize", True] == outs["privatize", False]


def test_local_release_on_standard_input_is_checked_against_its_record(
    synthetic, tmp_path, capsys, monkeypatch
):
    """``rank - --privacy local --input-record`` hashes the bytes as it reads them (the
    sha256 is computed only where a record or check uses it): the released file as
    written is ranked, the same file with one outcome changed is refused, nothing written."""
    released = tmp_path / "released.csv"
    code, _, err = run(
        ["privatize", synthetic, "--items-from-data", "--epsilon", 1, "--out", released], capsys
    )
    assert code == 0, err
    record = released.with_suffix(".json")
    data = released.read_bytes()
    lines = data.split(b"\n")
    fields = lines[1].split(b",")
    col = lines[0].split(b",").index(b"outcome")
    fields[col] = b"1" if fields[col] == b"0" else b"0"
    edited = b"\n".join([lines[0], b",".join(fields), *lines[2:]])
    for body, ok in ((data, True), (edited, False)):
        out = tmp_path / f"ranked_{ok}.csv"
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(body)))
        argv = ["rank", "-", "--privacy", "local", "--input-record", record, "--out", out]
        code, _, err = run(argv, capsys)
        if ok:
            assert code == 0, err
            assert json.loads(out.with_suffix(".json").read_text())["privacy"] == "local"
        else:
            assert code == 2 and "its sha256 differs" in err, err
            assert not out.exists() and not out.with_suffix(".json").exists()
    # a record without the released file's sha256 checks nothing: refused, as for a file
    blank = tmp_path / "blank.json"
    blank.write_text(json.dumps({**json.loads(record.read_text()), "sha256": None}))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(edited)))
    out = tmp_path / "ranked_blank.csv"
    argv = ["rank", "-", "--privacy", "local", "--input-record", blank, "--out", out]
    code, _, err = run(argv, capsys)
    assert code == 2 and "holds no sha256" in err and not out.exists(), err
