"""The method contract (dprank.testing) on every registered method and on the example method.

Each check of :func:`dprank.testing.method_checks` is one test per method: tiny data
through ``dprank.rank`` (secure and seeded sources), the command, ``Method.run`` as the
benchmark calls it, the intervals, the record's fields, bad input, and the privacy
claim against the privacy harness's empirical lower bound. The example method
(``examples/noisy_borda.py`` with the registry entry that docs/contributing.md gives)
keeps it too; and the benchmark's own runner runs every method. The last tests show
that the contract fails, by name, for the mistakes it is there to catch.
"""

from __future__ import annotations

import math
import re
import sys
from pathlib import Path

import numpy as np
import pytest

from dprank import testing
from dprank.methods import Fit, Method, all_methods
from dprank.testing import ContractError, check_method, method_checks, tiny_comparisons
from dprank_papers.studies import benchmark as bm

ROOT = Path(__file__).resolve().parents[1]


def example_method() -> Method:
    """``examples/noisy_borda.py`` with the registry entry of docs/contributing.md, as written."""
    sys.path.insert(0, str(ROOT))
    try:
        from examples import noisy_borda
    finally:
        sys.path.remove(str(ROOT))
    page = (ROOT / "docs" / "contributing.md").read_text()
    section = page[page.index("## Add a method") : page.index("## Add a figure")]
    blocks = re.findall(r"^( *)```python\n(.*?)^\1```", section, flags=re.S | re.M)
    entry = "\n".join(line[len(blocks[1][0]) :] for line in blocks[1][1].splitlines())
    registered = []
    namespace = {"noisy_borda": noisy_borda, "Fit": Fit, "Method": Method}
    namespace["register"] = registered.append  # the suite registers it while it runs
    exec(compile(entry, "docs/contributing.md", "exec"), namespace)
    (method,) = registered
    return method


EXAMPLE = example_method()
METHODS = [*all_methods(), EXAMPLE]
CHECKS = [
    pytest.param(check, id=f"{check.method}-{check.name}")
    for method in METHODS
    for check in method_checks(method)
]


@pytest.mark.parametrize("check", CHECKS)
def test_every_method_keeps_the_contract(check):
    check()


def test_the_example_is_the_one_the_recipe_names():
    assert EXAMPLE.name == "individual_noisy_borda" and EXAMPLE.name not in {
        m.name for m in all_methods()
    }
    assert check_method(EXAMPLE, checks=["declaration", "rank_seeded"]) == {
        "declaration": "ok",
        "rank_seeded": "ok",
    }
    assert EXAMPLE.name not in {m.name for m in all_methods()}  # registered only while checked


@pytest.mark.parametrize("method", METHODS, ids=lambda m: m.name)
def test_the_benchmarks_runner_runs_every_method(method):
    c = tiny_comparisons(method, users=True)
    theta = np.linspace(1.0, -1.0, c.n_items)
    data = bm.BenchmarkData(c, theta, 2, True)
    rows = bm.run_method(method, "tiny", [data], [1.0], seed=3)
    assert len(rows) >= 1 and (rows["method"] == method.name).all()
    assert rows["kendall"].between(0, 1).all()
    again = bm.run_method(method, "tiny", [data], [1.0], seed=3)
    assert rows["kendall"].tolist() == again["kendall"].tolist()


# --------------------------------------------------------------------------- it can fail


def _variant(name: str, fit, **fields) -> Method:
    declared = {
        "needs_users": True,
        "models": (),
        "description": "a broken variant of the example",
        "label": name,
        **fields,
    }
    return Method(name, fit, "-", "test", "user", "central", **declared)


def _no_noise(c, eps, rng, *, max_per_user=None, **_):
    from examples.noisy_borda import net_wins

    return Fit(scores=net_wins(c), details={"noise": "laplace", "noise_scale": 4.0 / eps})


def _numpy_laplace(c, eps, rng, *, max_per_user=None, **_):
    from examples.noisy_borda import net_wins

    return Fit(scores=net_wins(c) + rng.laplace(0.0, 4.0 / eps, c.n_items), details={"noise": "x"})


def _global_state(c, eps, rng, *, max_per_user=None, **_):
    from examples.noisy_borda import net_wins

    noise = np.random.default_rng().laplace(0.0, 4.0 / eps, c.n_items)  # ignores rng
    return Fit(scores=net_wins(c) + noise, details={"noise": "laplace", "noise_scale": 4.0 / eps})


@pytest.fixture
def examples_importable(monkeypatch):
    monkeypatch.syspath_prepend(str(ROOT))


def _tenth_noise(c, eps, rng, *, max_per_user=None, **_):
    from examples.noisy_borda import noisy_borda

    return Fit(**noisy_borda(c, 10.0 * eps, rng, max_per_user))  # claims eps, gives 10 eps


@pytest.mark.parametrize("fit", [_no_noise, _tenth_noise], ids=["no noise", "a tenth"])
def test_a_release_with_far_too_little_noise_fails_the_privacy_check(examples_importable, fit):
    method = _variant("individual_leaky", fit)
    with pytest.raises(ContractError, match=r"individual_leaky, check privacy: .*lower bound"):
        method_checks(method, checks=["privacy"])[0]()


def test_numpys_laplace_on_a_noise_source_fails_with_the_way_out(examples_importable):
    # the crash of the old recipe: rng.laplace(loc, scale, size) is numpy's signature
    method = _variant("individual_numpy_laplace", _numpy_laplace)
    with pytest.raises(ContractError) as info:
        check_method(method, checks=["rank_secure", "benchmark"])
    text = str(info.value)
    assert "check rank_secure: dprank.rank(rng=None) raised TypeError" in text
    assert "as_noise_source" in text and "check benchmark" not in text  # the benchmark runs


def test_noise_from_the_global_state_fails_the_seeded_check(examples_importable):
    method = _variant("individual_global_state", _global_state)
    with pytest.raises(ContractError, match="same seeded Generator differ"):
        check_method(method, checks=["rank_seeded"])


def test_a_fit_taking_any_option_fails_the_declaration(examples_importable):
    def fit(c, eps, rng, **options):
        return _no_noise(c, eps, rng)

    with pytest.raises(ContractError, match=r"declaration: its fit takes \*\*options"):
        check_method(_variant("individual_any_option", fit), checks=["declaration"])


def test_a_wrong_prefix_and_a_taken_name_are_refused():
    bad = Method("noisy_thing", _no_noise, "-", "t", "user", "central", models=(), label="x")
    with pytest.raises(ContractError, match="must begin with its privacy level's prefix"):
        check_method(bad, checks=["declaration"])
    clash = _variant("edge_counts", _no_noise)
    with pytest.raises(ContractError, match="another method of that name is registered"):
        check_method(clash, checks=["declaration"])


def test_the_failures_are_listed_together(examples_importable):
    method = _variant("individual_broken_twice", _global_state, description="")
    with pytest.raises(ContractError) as info:
        check_method(method, checks=["declaration", "rank_seeded"])
    assert len(str(info.value).splitlines()) == 2


def test_check_method_refuses_bad_arguments():
    with pytest.raises(TypeError, match="method must be"):
        check_method(3)
    with pytest.raises(KeyError, match="no_such_method"):
        check_method("no_such_method")
    with pytest.raises(ValueError, match=r"unknown checks \['speed'\]"):
        method_checks("edge_counts", checks=["speed"])
    with pytest.raises(TypeError, match="checks must be a list"):
        method_checks("edge_counts", checks="privacy")
    for eps in (0.0, -1.0, math.inf, math.nan):
        with pytest.raises(ValueError, match="epsilon"):
            method_checks("edge_counts", epsilon=eps)
    with pytest.raises(TypeError, match="epsilon"):
        method_checks("edge_counts", epsilon="1")
    with pytest.raises(ValueError, match="not private"):
        testing.audit_path("nonprivate_mle")


def test_the_claim_is_the_privacy_map_where_there_is_one():
    # dprank.methods' privacy map (Method.privacy_loss) where the method has it, else the record
    for name, factor in (("edge_counts", 1.0), ("individual_counts_as_published", 2.0)):
        eps, delta = testing.audit_claim(name, 0.5)
        assert eps == pytest.approx(0.5 * factor) and delta == 0.0
    eps, delta = testing.audit_claim("edge_noisy_obj", 1.0)
    assert eps == 1.0 and delta == pytest.approx(1e-6)


def test_the_module_example_runs():
    import doctest

    result = doctest.testmod(testing)
    assert result.attempted >= 2 and result.failed == 0


def test_a_record_with_the_wrong_private_flag_fails_naming_the_run():
    # the one check of a record's "private" flag, for dprank.rank's releases and the command's
    from dprank.testing._checks import _check_private

    method = all_methods()[0]
    _check_private(method, {"private": True}, "command", True, "secure run's ")
    with pytest.raises(ContractError, match=r"the seeded run's record says private=True, expe"):
        _check_private(method, {"private": True}, "command", False, "seeded run's ")
    with pytest.raises(ContractError, match=r"check rank_secure: the record says private=None"):
        _check_private(method, {}, "rank_secure", True)
    with pytest.raises(ContractError, match=r"\(a seeded, reproducible run, or a non-private"):
        _check_private(method, {"private": 1}, "rank_seeded", False)
