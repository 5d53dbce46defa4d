"""Config validation: clear errors before any job runs."""

import copy
from pathlib import Path

import pytest
import yaml

from dprank_papers._papers import load_papers
from dprank_papers.config import MIRROR_ENV_VAR, ConfigError, estimate_cell_memory, validate_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
PAPERS_DIR = ROOT / "workflow" / "papers"
PAPERS_SCHEMA = ROOT / "workflow" / "schemas" / "papers.schema.yaml"


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
    # a figure's experiments are checked with the declarations (workflow/papers/)
    cfg = validate_config(copy.deepcopy(_smoke()), SCHEMA)
    cfg["items"] = {"paper_a": {"fig1": {"experiments": ["exp9"]}}}
    with pytest.raises(ConfigError, match=r"paper_a\.yaml: items\.fig1\.experiments: 'exp9'"):
        load_papers(PAPERS_DIR, PAPERS_SCHEMA, cfg)


def test_paper_declarations_load_and_reject_unknown_keys_and_items():
    cfg = validate_config(copy.deepcopy(_smoke()), SCHEMA)
    papers = load_papers(PAPERS_DIR, PAPERS_SCHEMA, cfg)
    assert {"paper_a", "paper_b1", "paper_b2"} <= set(papers)
    # the smoke config plots fewer x values; the declaration's other settings stay
    assert papers["paper_a"]["items"]["fig2"]["x_values"] == [0.25, 0.625, 1.0]
    assert papers["paper_a"]["items"]["fig2"]["study"] == "paper_a_edge"
    assert papers["paper_b2"]["items"]["fig4"]["type"] == "lines"  # schema default filled
    cfg["items"] = {"paper_b2": {"fig4": {"colour": "red"}, "fig99": {}}}
    with pytest.raises(ConfigError) as info:
        load_papers(PAPERS_DIR, PAPERS_SCHEMA, cfg)
    assert "paper_b2.yaml: items.fig4" in str(info.value) and "colour" in str(info.value)
    assert "items.paper_b2.fig99: no such item" in str(info.value)


def test_paper_a_panels_are_checked_with_the_declarations():
    """A Paper A panel needs its metric, methods, x, series and y label (its own or the
    figure's) and plots one of the figure's experiments; a typo in a key is named."""
    cfg = validate_config(copy.deepcopy(_smoke()), SCHEMA)
    papers = load_papers(PAPERS_DIR, PAPERS_SCHEMA, cfg)
    assert papers["paper_a"]["items"]["fig4"]["ncols"] == 2  # schema default filled
    panel = {"metric": "rel_hamming", "methods": ["edge_mle"], "x": "n"}
    cfg["items"] = {"paper_a": {"fig1": {"panels": [panel]}}}
    with pytest.raises(ConfigError, match=r"items\.fig1\.panels\[0\]: lacks \['ylabel'\]"):
        load_papers(PAPERS_DIR, PAPERS_SCHEMA, cfg)  # fig1 gives its series, not a y label
    cfg["items"] = {"paper_a": {"fig4": {"panels": [{"experiment": "exp1"}]}}}
    with pytest.raises(ConfigError, match=r"fig4\.panels\[0\]\.experiment: 'exp1' is not one"):
        load_papers(PAPERS_DIR, PAPERS_SCHEMA, cfg)
    cfg["items"] = {"paper_a": {"fig1": {"panels": [{**panel, "ylabel": "y", "colour": "r"}]}}}
    with pytest.raises(ConfigError, match=r"paper_a\.yaml: items\.fig1\.panels\[0\].*colour"):
        load_papers(PAPERS_DIR, PAPERS_SCHEMA, cfg)


def test_boolean_written_as_text_is_read_as_yaml():
    # snakemake --config keep_intermediates=true passes the string 'true'
    cfg = copy.deepcopy(_smoke())
    cfg["keep_intermediates"] = "true"
    assert validate_config(cfg, SCHEMA)["keep_intermediates"] is True
    # a nested boolean from --config arrives as text too
    nested = next(
        (section, key)
        for section, value in cfg.items()
        if isinstance(value, dict)
        for key, inner in value.items()
        if isinstance(inner, bool)
    )
    cfg[nested[0]][nested[1]] = "False"
    assert validate_config(cfg, SCHEMA)[nested[0]][nested[1]] is False
    msg = _broken(lambda c: c.update(keep_intermediates="yes please"))
    assert "keep_intermediates: 'yes please' is not of type 'boolean'" in msg


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
    msg = _broken(lambda c: c["intervals"]["designs"]["smoke_edge"]["graph"].update(per_pairs=3))
    assert "intervals.designs.smoke_edge" in msg and "per_pairs" in msg
    msg = _broken(
        lambda c: c["intervals"]["designs"]["smoke_edge"].update(users={"count": 3, "per_user": 1})
    )
    assert "intervals.designs.smoke_edge" in msg
    # cross-key rules: an unknown selected design, a method without intervals
    msg = _broken(lambda c: c["intervals"].update(selected=["smoke_edge", "nope"]))
    assert "intervals.selected: 'nope' is not a design" in msg
    msg = _broken(lambda c: c["intervals"]["designs"]["smoke_edge"].update(method="local_count"))
    assert "local_count has no intervals" in msg


NAN, INF = float("nan"), float("inf")


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda c: _exp1(c).update(epsilon=[NAN, 1.0]), "paper_a_edge.experiments.exp1.epsilon[0]"),
        (lambda c: _exp1(c).update(p=[NAN]), "paper_a_edge.experiments.exp1.p[0]"),
        (lambda c: _exp1(c).update(n=[20, NAN]), "paper_a_edge.experiments.exp1.n[1]"),
        (lambda c: c.update(seed=NAN), "seed"),
        (
            lambda c: c["paper_a_real"]["constants"].update(kappa1=NAN),
            "paper_a_real.constants.kappa1",
        ),
        (lambda c: c["beyond_scale"].update(degree=NAN), "beyond_scale.degree"),
        (
            lambda c: c["paper_b2"]["experiments"]["scenario1"].update(p=NAN),
            "paper_b2.experiments.scenario1.p",
        ),
    ],
)
def test_nan_is_rejected_everywhere_once_naming_the_key(edit, key):
    message = _broken(edit)
    assert f"  - {key}: NaN is not a value here" in message
    assert "(1 problem)" in message


@pytest.mark.parametrize(
    ("edit", "key"),
    [
        (lambda c: c["paper_a_real"].update(epsilon=[INF, 4.0]), "paper_a_real.epsilon[0]"),
        (lambda c: c["benchmark"].update(epsilon=[0.5, INF]), "benchmark.epsilon[1]"),
        (lambda c: c["beyond_scale"].update(degree=INF), "beyond_scale.degree"),
        (lambda c: c.update(memory_limit_gb=INF), "memory_limit_gb"),
        (lambda c: _exp1(c).update(p=[0.5, INF]), "paper_a_edge.experiments.exp1.p[1]"),
        (
            lambda c: c["paper_b2"]["experiments"]["scenario1"].update(eps={"range": [1.0, INF]}),
            "paper_b2.experiments.scenario1.eps.range[1]",
        ),
    ],
)
def test_infinity_is_rejected_where_no_study_can_use_it(edit, key):
    message = _broken(edit)
    assert f"  - {key}: must be a finite number, got inf" in message


def test_infinity_is_accepted_where_it_means_non_private():
    cfg = copy.deepcopy(_smoke())
    _exp1(cfg).update(epsilon=[0.5, INF])
    cfg["paper_a_individual"]["experiments"]["exp5"]["epsilon"] = [INF]
    cfg["beyond_scale"]["epsilon"] = [INF, 1.0]
    validate_config(cfg, SCHEMA)
    message = _broken(lambda c: _exp1(c).update(epsilon=[-INF, 1.0]))
    assert "paper_a_edge.experiments.exp1.epsilon[0]: must be > 0, got -inf" in message


@pytest.mark.parametrize(
    ("edit", "key", "pair"),
    [
        (
            lambda c: c["paper_b2"]["experiments"]["scenario1"].update(eps={"range": [5.0, 1.0]}),
            "paper_b2.experiments.scenario1.eps.range",
            "[5.0, 1.0]",
        ),
        (
            lambda c: c["paper_b2"]["car"].update(eps={"shifted": [2.0, 1.0], "width": 1.0}),
            "paper_b2.car.eps.shifted",
            "[2.0, 1.0]",
        ),
        (
            lambda c: c["paper_b2"]["experiments"]["scenario5"]["draws"].update(L=[150, 100]),
            "paper_b2.experiments.scenario5.draws.L",
            "[150, 100]",
        ),
    ],
)
def test_descending_ranges_are_rejected(edit, key, pair):
    message = _broken(edit)
    assert f"  - {key}: a range [low, high] must not descend, got {pair}" in message
    cfg = copy.deepcopy(_smoke())
    cfg["paper_b2"]["experiments"]["scenario1"]["eps"] = {"range": [2.0, 2.0]}  # one value
    validate_config(cfg, SCHEMA)


def test_memory_estimate_covers_the_scale_study_and_the_benchmark():
    message = _broken(lambda c: c["beyond_scale"].update(n=[200, 100_000_000]))
    assert "beyond_scale: the cell with n = 100000000, degree = 20 needs about" in message
    assert "n = 200," not in message
    message = _broken(lambda c: c["benchmark"]["synthetic"]["btl20"].update(n=1_000_000))
    assert "benchmark.synthetic.btl20: the cell with n = 1000000, users = 200, L = 5" in message
    # the estimates grow with what the jobs hold: pairs (sparse), n x n (benchmark)
    scale = [estimate_cell_memory("beyond_scale", {"n": n, "degree": 50}) for n in (10**4, 10**5)]
    assert 9 * scale[0] < scale[1] < 11 * scale[0]
    bench = [estimate_cell_memory("benchmark", {"n": n, "users": 10, "L": 5}) for n in (100, 200)]
    assert 3.9 * bench[0] < bench[1] < 4 * bench[0]
    # the paper-scale designs fit in 1 GB
    paper = _load("config.yaml")
    paper["memory_limit_gb"] = 1.0
    validate_config(paper, SCHEMA)


def test_nested_command_line_values_are_read_as_yaml():
    """Snakemake's --config gives nested values as strings ('paper_a_real={reps: 5}')."""
    from snakemake.cli import parse_config

    cfg = copy.deepcopy(_smoke())
    override = parse_config(
        [
            "paper_a_real={reps: 5, epsilon: [0.5, 4]}",
            "paper_a_edge={experiments: {exp1: {chunk_size: null, epsilon: [0.5, .inf]}}}",
            "paper_b2={experiments: {scenario3: {grid: {scheme: [1, 2]}}}}",
            "keep_intermediates=true",
            "protocols=[paper]",
        ]
    )
    assert override["paper_a_real"]["reps"] == "5"  # what Snakemake passes
    from snakemake.utils import update_config

    update_config(cfg, override)
    validate_config(cfg, SCHEMA)
    assert cfg["paper_a_real"]["reps"] == 5 and cfg["paper_a_real"]["epsilon"] == [0.5, 4]
    exp1 = _exp1(cfg)
    assert exp1["chunk_size"] is None and exp1["epsilon"] == [0.5, INF]
    assert cfg["paper_b2"]["experiments"]["scenario3"]["grid"]["scheme"] == [1, 2]
    assert cfg["keep_intermediates"] is True and cfg["protocols"] == ["paper"]
    # a string stays a string where the schema wants one, and a wrong value still fails
    assert isinstance(cfg["results_dir"], str)
    bad = copy.deepcopy(_smoke())
    update_config(bad, parse_config(["paper_a_real={reps: five, epsilon: [.nan]}"]))
    with pytest.raises(ConfigError) as info:
        validate_config(bad, SCHEMA)
    assert "paper_a_real.reps: 'five' is not of type 'integer'" in str(info.value)
    assert "paper_a_real.epsilon[0]: NaN is not a value here" in str(info.value)


def test_results_dir_must_be_a_relative_folder_inside_the_working_directory():
    for value in ("/tmp/results", "../results", "results/../x", "results/", "", "."):
        assert "results_dir" in _broken(lambda c, v=value: c.update(results_dir=v)), value
    cfg = copy.deepcopy(_smoke())
    assert (
        cfg["results_dir"] == "results/smoke" and _load("config.yaml")["results_dir"] == "results"
    )
    cfg["results_dir"] = "out/run_2"
    validate_config(cfg, SCHEMA)
