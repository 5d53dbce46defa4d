"""Config validation: clear errors before any job runs."""

import copy
from pathlib import Path

import pytest
import yaml

from dprank.config import ConfigError, validate_config

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


def test_several_problems_are_listed_together():
    def edit(c):
        c["seed"] = -3
        c["protocols"] = ["paper", "autors"]

    msg = _broken(edit)
    assert "2 problems" in msg and "autors" in msg
