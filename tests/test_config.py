"""Config validation: clear errors before any job runs."""

import copy
from pathlib import Path

import pytest
import yaml

from dprank.config import MIRROR_ENV_VAR, ConfigError, estimate_cell_memory, validate_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def _load(name):
    return yaml.safe_load((ROOT / name).read_text())


def _smoke():
    """The smoke config as Snakemake sees it: merged key by key over config.yaml."""
    from snakemake.utils import update_config

    cfg = _load("config.yaml")
    update_config(cfg, _load(".test/config.yaml"))
    return cfg


def test_shipped_configs_are_valid():
    validate_config(_load("config.yaml"), SCHEMA)
    validate_config(_smoke(), SCHEMA)


def _broken(edit):
    cfg = copy.deepcopy(_smoke())
    edit(cfg)
    with pytest.raises(ConfigError) as info:
        validate_config(cfg, SCHEMA)
    return str(info.value)


def test_unknown_top_level_key():
    msg = _broken(lambda c: c.update(sead=1))
    assert "sead" in msg


def test_typo_in_experiment_key():
    def edit(c):
        c["paper_a_edge"]["experiments"]["exp1"]["epsilons"] = c["paper_a_edge"]["experiments"][
            "exp1"
        ].pop("epsilon")

    msg = _broken(edit)
    assert "epsilons" in msg and "paper_a_edge.experiments.exp1" in msg


def test_negative_epsilon():
    msg = _broken(lambda c: c["paper_a_edge"]["experiments"]["exp2"]["epsilon"].append(-1.0))
    assert "epsilon" in msg and "-1" in msg


def test_wrong_type_and_unknown_figure_experiment():
    msg = _broken(lambda c: c.update(chunk_size="big"))
    assert "chunk_size" in msg
    msg = _broken(lambda c: c["paper_a_edge"]["figures"]["fig1"].update(experiments=["exp9"]))
    assert "exp9" in msg


def test_boolean_written_as_text_says_how_to_write_it():
    # snakemake --config keep_intermediates=true passes the string 'true'
    msg = _broken(lambda c: c.update(keep_intermediates="true"))
    assert "--config keep_intermediates=True" in msg and "true in YAML" in msg
    # a nested key cannot be set by --config key=value: only the YAML form is offered
    cfg = _smoke()
    nested = next(
        (section, key)
        for section, value in cfg.items()
        if isinstance(value, dict)
        for key, inner in value.items()
        if isinstance(inner, bool)
    )
    msg = _broken(lambda c: c[nested[0]].update({nested[1]: "False"}))
    assert f"{nested[0]}.{nested[1]}" in msg and "false in YAML" in msg and "--config" not in msg


def test_several_problems_are_listed_together():
    def edit(c):
        c["seed"] = -3
        c["protocols"] = ["paper", "autors"]

    msg = _broken(edit)
    assert "2 problems" in msg and "autors" in msg


# ---------------------------------------------------------------- the config against the machine


def _exp1(cfg):
    return cfg["paper_a_edge"]["experiments"]["exp1"]


def test_cell_beyond_the_machine_memory_is_rejected():
    """The issue's example: an edge-DP cell with a million items (dense n x n arrays)."""
    message = _broken(lambda c: _exp1(c).update(n=[20, 1_000_000]))
    assert "paper_a_edge.experiments.exp1: the cell with n = 1000000 needs about" in message
    assert "this machine's memory" in message
    assert "n = 20 " not in message


def test_memory_limit_key_sets_the_limit():
    big = copy.deepcopy(_smoke())
    _exp1(big).update(n=[1_000_000])
    need_gb = estimate_cell_memory("paper_a_edge", {"n": 1_000_000}, big["chunk_size"]) / 1e9
    big["memory_limit_gb"] = 2 * need_gb
    validate_config(big, SCHEMA)  # a larger limit accepts it
    message = _broken(lambda c: c.update(memory_limit_gb=1e-6))
    for where in (
        "paper_a_edge.experiments.exp1:",
        "paper_a_individual.experiments.exp5:",
        "paper_b2.experiments.scenario1:",
    ):
        assert where in message
    assert "memory_limit_gb = 1e-06" in message
    assert "memory_limit_gb: must be > 0" in _broken(lambda c: c.update(memory_limit_gb=0))


def test_memory_estimate_follows_the_dense_arrays():
    for section in ("paper_a_edge", "paper_a_individual"):
        small, large = (estimate_cell_memory(section, {"n": n}, 6) for n in (100, 200))
        assert large == 4 * small  # n x n arrays
    assert estimate_cell_memory("paper_a_edge", {"n": 100}, 12) > estimate_cell_memory(
        "paper_a_edge", {"n": 100}, 6
    )
    b = [estimate_cell_memory("paper_b2", {"m": m, "L": 100}) for m in (10, 20, 40)]
    assert b == sorted(b) and len(set(b)) == 3
    with pytest.raises(ValueError, match="no memory estimate"):
        estimate_cell_memory("paper_a_real", {"n": 4})


def test_memory_and_mirror_checks_can_be_left_to_the_main_process():
    cfg = copy.deepcopy(_smoke())
    _exp1(cfg).update(n=[1_000_000])
    cfg["data_mirror"] = "/nonexistent/mirror"
    validate_config(cfg, SCHEMA, check_environment=False)


def test_missing_data_mirror_is_rejected(monkeypatch, tmp_path):
    monkeypatch.delenv(MIRROR_ENV_VAR, raising=False)
    message = _broken(lambda c: c.update(data_mirror=str(tmp_path / "missing")))
    assert "data_mirror: the folder" in message and "missing" in message
    cfg = copy.deepcopy(_smoke())
    cfg["data_mirror"] = str(tmp_path)
    validate_config(cfg, SCHEMA)


def test_missing_data_mirror_variable_is_rejected(monkeypatch, tmp_path):
    monkeypatch.setenv(MIRROR_ENV_VAR, str(tmp_path / "gone"))
    message = _broken(lambda c: None)
    assert f"environment variable {MIRROR_ENV_VAR}" in message and "gone" in message
    monkeypatch.setenv(MIRROR_ENV_VAR, str(tmp_path))
    validate_config(copy.deepcopy(_smoke()), SCHEMA)


def test_intervals_study_is_checked():
    # schema: a typo in a design, a design with both a graph and users
    msg = _broken(lambda c: c["intervals"]["designs"]["smoke_edge"].update(per_pairs=3))
    assert "intervals.designs.smoke_edge" in msg and "per_pairs" in msg
    msg = _broken(lambda c: c["intervals"]["designs"]["smoke_edge"].update(users=3))
    assert "intervals.designs.smoke_edge" in msg
    # cross-key rules: an unknown selected design, a method without intervals
    msg = _broken(lambda c: c["intervals"].update(selected=["smoke_edge", "nope"]))
    assert "intervals.selected: 'nope' is not a design" in msg
    msg = _broken(lambda c: c["intervals"]["designs"]["smoke_edge"].update(method="local_count"))
    assert "local_count has no intervals" in msg
