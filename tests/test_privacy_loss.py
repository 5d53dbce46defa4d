"""A method's privacy loss is stated once: its privacy map (:meth:`Method.privacy_loss`).

A release's record, the ledger (through :func:`dprank.rank` and ``dprank rank``), the
privacy audit's claims and the privacy harness's claims read it there; here every
registered method is run through the release path and each of them is compared with the
map.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import numpy as np
import pytest

import dprank
from dprank.data.comparisons import Comparisons
from dprank.methods import Method, all_methods, get_method, register, release_local
from dprank.privacy.mechanisms import NEIGHBOURS, PrivacyLoss

N_ITEMS, L, EPS = 5, 4, 0.7
PREFIX = {"edge": "edge", "individual": "individual", "local": "local", "nonprivate": "none"}


def _tournament(ties: bool) -> Comparisons:
    """Every pair of 5 items once (lower index wins, two upsets; with ties: two draws), made by
    three users with at most ``L`` comparisons each."""
    i, j = np.triu_indices(N_ITEMS, k=1)
    y = np.ones(i.size)
    y[[2, 7]] = 0.0
    if ties:
        y[[4, 9]] = 0.5
    return Comparisons(
        n_items=N_ITEMS,
        i=i,
        j=j,
        y=y,
        count=np.ones(i.size),
        user=np.arange(i.size) % 3,
        labels=[f"item{k}" for k in range(N_ITEMS)],
        ties=ties,
    )


def _release(m: Method, tmp_path: Path):
    """``(ranking, eps of the loss)``: the method through :func:`dprank.rank` on tiny data,
    with a ledger for the central private methods."""
    prefix = m.name.partition("_")[0]
    privacy = PREFIX[prefix]
    short = m.name.removeprefix(prefix + "_")
    kw = {"rng": np.random.default_rng(1), "items_from_data": True}
    if short == "counts_as_published":
        short, kw["as_published"] = "counts", True
    if m.ties:
        kw["model"] = "davidson"
    if privacy == "individual":
        kw["max_per_user"] = L
    if m.name == "edge_one_shot":
        kw["top_k"] = 1
    data = _tournament(m.ties and "davidson" in m.models)
    if m.trust_model == "local":
        budgets = np.array([0.5, EPS, 0.3])
        data = release_local(data, budgets, np.random.default_rng(2), m.release or "rr")
        eps = float(budgets.max())
    elif privacy == "none":
        eps = math.inf
    else:
        kw["epsilon"], kw["ledger"] = EPS, tmp_path / "ledger.json"
        eps = EPS
    return dprank.rank(data, privacy=privacy, method=short, **kw), eps


def _registered() -> list[str]:
    return [m.name for m in all_methods()]


@pytest.mark.filterwarnings("ignore:individual-DP counts with Laplace")
@pytest.mark.parametrize("name", _registered())
def test_record_and_ledger_state_the_methods_privacy_map(name, tmp_path):
    m = get_method(name)
    r, eps = _release(m, tmp_path)
    loss = m.privacy_loss(eps, n_items=r.n_items, L=r.L, **r.options)
    assert isinstance(loss, PrivacyLoss) and loss.neighbour == NEIGHBOURS[loss.unit]
    assert r.privacy_loss == loss
    record = r.record()
    assert record["privacy_unit"] == loss.unit and record["neighbours"] == loss.neighbour
    assert record["delta"] == loss.delta
    assert record["epsilon"] == (loss.epsilon if r.epsilon is not None else None)
    if m.private and m.trust_model == "central":
        from dprank.ledger import Ledger

        ((summary,),) = [Ledger(tmp_path / "ledger.json").summary()]
        (entry,) = summary.releases
        assert (entry.epsilon, entry.delta, entry.privacy_unit) == (
            loss.epsilon,
            loss.delta,
            loss.unit,
        )
        assert entry.mechanism == m.name


def test_the_maps_that_differ_from_the_budget():
    assert get_method("individual_counts_as_published").privacy_loss(0.5) == PrivacyLoss(
        1.0, 0.0, "user", NEIGHBOURS["user"]
    )
    assert get_method("edge_one_shot").privacy_loss(1.0, n_items=4).delta == 1 / 16
    assert get_method("edge_noisy_obj").privacy_loss(1.0).delta == 1e-6
    assert get_method("edge_noisy_obj").privacy_loss(1.0, delta=1e-8).delta == 1e-8
    # a local method's loss is per comparison, at each user's budget
    assert get_method("local_adrr").privacy_loss(2.0).unit == "comparison"
    assert get_method("nonprivate_mle").privacy_loss(math.inf).epsilon == math.inf
    # parameters the map does not name are ignored; one it needs and lacks is named
    assert get_method("edge_mle").privacy_loss(1.0, L=3, n_items=9).epsilon == 1.0
    with pytest.raises(ValueError, match=r"edge_one_shot.*needs the declared n_items"):
        get_method("edge_one_shot").privacy_loss(1.0)
    with pytest.raises(ValueError, match="needs the declared n_items"):
        get_method("edge_one_shot").privacy_loss(1.0, n_items=None)  # None: not declared
    with pytest.raises(ValueError, match="eps must be positive and finite"):
        get_method("edge_mle").privacy_loss(math.inf)
    with pytest.raises(ValueError, match="eps must be positive"):
        get_method("edge_mle").privacy_loss(0.0)
    with pytest.raises(TypeError, match="eps must be a number"):
        get_method("edge_mle").privacy_loss("1")


def test_privacy_loss_and_a_method_with_its_own_map():
    with pytest.raises(ValueError, match="unit must be one of"):
        PrivacyLoss(1.0, 0.0, "pair", "x")
    with pytest.raises(ValueError, match="delta must be in"):
        PrivacyLoss(1.0, 1.0, "user", "x")
    with pytest.raises(ValueError, match="epsilon must be positive"):
        PrivacyLoss(0.0, 0.0, "user", "x")
    with pytest.raises(TypeError, match="privacy_map must be callable"):
        Method("x", print, "-", "x", "comparison", "central", privacy_map=1.0)
    base = get_method("edge_counts")
    doubled = dataclasses.replace(
        base, name="edge_doubled", privacy_map=lambda eps: PrivacyLoss.at("comparison", 2 * eps)
    )
    assert doubled.privacy_loss(0.25, n_items=3).epsilon == 0.5
    wrong = dataclasses.replace(base, name="edge_wrong", privacy_map=lambda eps: 2 * eps)
    with pytest.raises(TypeError, match=r"must return a dprank\.methods\.PrivacyLoss"):
        wrong.privacy_loss(1.0)


def test_the_command_ledger_reads_the_map(tmp_path):
    """``dprank rank --ledger``: the as-published counts spend 2 eps, the one-shot its delta."""
    from dprank.cli import main
    from dprank.ledger import Ledger

    data = _tournament(False)
    csv = tmp_path / "games.csv"
    rows = [
        (data.labels[a], data.labels[b]) if y == 1 else (data.labels[b], data.labels[a])
        for a, b, y in zip(data.i, data.j, data.y, strict=True)
    ]
    lines = [f"{w},{lo},u{u}\n" for (w, lo), u in zip(rows, data.user, strict=True)]
    csv.write_text("winner,loser,user\n" + "".join(lines))
    ledger = tmp_path / "ledger.json"
    common = ["--insecure-seed", "3", "--ledger", str(ledger), "--quiet"]
    argv = ["rank", str(csv), "--privacy", "individual", "--method", "counts", "--epsilon"]
    argv += ["0.5", "--max-per-user", str(L), "--as-published", "--items-from-data"]
    assert main([*argv, "--out", str(tmp_path / "a.csv"), *common]) == 0
    argv = ["rank", str(csv), "--privacy", "edge", "--method", "one_shot", "--top-k", "1"]
    assert main([*argv, "--epsilon", "0.5", "--out", str(tmp_path / "b.csv"), *common]) == 0
    (summary,) = Ledger(ledger).summary()
    by_mechanism = {r.mechanism: r for r in summary.releases}
    published = get_method("individual_counts_as_published").privacy_loss(0.5)
    one_shot = get_method("edge_one_shot").privacy_loss(0.5, n_items=N_ITEMS)
    assert by_mechanism["individual_counts_as_published"].epsilon == published.epsilon == 1.0
    assert by_mechanism["edge_one_shot"].delta == one_shot.delta == 1 / 25
    record = json.loads((tmp_path / "b.json").read_text())
    assert (record["epsilon"], record["delta"]) == (one_shot.epsilon, one_shot.delta)


def test_the_harness_claims_are_the_methods_maps():
    from dprank.api import method_name
    from dprank.audit.harness import PATHS

    checked = 0
    for path in PATHS.values():
        options = path.options or {}
        if "privacy" not in options:
            continue  # dprank privatize: no registered method (each comparison eps-LDP)
        name = method_name(
            options["privacy"],
            options.get("method"),
            as_published=bool(options.get("as_published")),
            model=options.get("model", "btl"),
        )
        n_items = path.neighbours(1.0)[0].d0.n_items
        loss = get_method(name).privacy_loss(1.0, n_items=n_items, L=options.get("max_per_user"))
        assert path.claim(1.0) == (loss.epsilon, loss.delta), path.name
        checked += 1
    assert checked >= 10


def test_a_registered_method_with_its_own_map_is_read_by_the_record(tmp_path):
    """A method added with a map (here: edge counts claiming 2 eps) is recorded with it."""
    base = get_method("edge_counts")
    doubled = dataclasses.replace(
        base,
        name="edge_counts_doubled_for_test",
        privacy_map=lambda eps: PrivacyLoss.at("comparison", 2.0 * eps),
    )
    register(doubled)
    try:
        r = dprank.rank(
            _tournament(False),
            privacy="edge",
            method="counts_doubled_for_test",
            epsilon=0.5,
            rng=np.random.default_rng(0),
            ledger=tmp_path / "ledger.json",
        )
        assert r.record()["epsilon"] == 1.0 and r.epsilon_guaranteed == 1.0
        from dprank.ledger import Ledger

        ((summary,),) = [Ledger(tmp_path / "ledger.json").summary()]
        assert [e.epsilon for e in summary.releases] == [1.0]
    finally:
        from dprank.methods import unregister

        unregister("edge_counts_doubled_for_test")
