"""The privacy harness (dprank.audit.harness): every release path in the DP game, quick profile.

Each game runs a release path on two neighbouring data sets through the API or the
command and asserts that no distinguisher of the battery beats the (eps, delta)-DP
bound on its success rate by more than 3 standard errors, and that no Clopper-Pearson
lower bound on epsilon exceeds the claim. Controls show the battery's power: the
perturbed MLE as released before issue 44 and an overspent randomized response are
flagged. The full profile is the workflow target ``privacy_audit_full``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dprank import testing
from dprank.audit import harness as h
from dprank.base.seeding import Stream, cell_key, generator
from dprank.fit.mle import fit_penalized_mle
from dprank.methods import all_methods
from dprank.privacy.mechanisms import individual_gamma, individual_mle_noise_scale
from dprank.privacy.noise import NoiseSource, grid_exponent
from dprank.privacy.release import local_release

GAMES = h.profile_games("quick")


def _rng(*key) -> np.random.Generator:
    return generator(44, "test_privacy_harness", cell_key({"key": repr(key)}), 0, Stream.AUDIT)


@pytest.mark.parametrize(
    ("name", "via", "eps", "trials"), GAMES, ids=[f"{g[1]}-{g[2]}-{g[0]}" for g in GAMES]
)
def test_release_path_holds_against_every_distinguisher(name, via, eps, trials):
    for res in h.play(name, eps, trials, _rng(name, via, eps), via=via):
        assert res.results, name
        for r in res.failures:
            pytest.fail(
                f"{name} via {via} at eps {eps} ({res.neighbours}): {r['distinguisher']} "
                f"succeeds {r['accuracy']:.3f} (bound {r['bound']:.3f}, se {r['se']:.3f}), "
                f"eps >= {r['eps_lower']:.3f} (claim {res.claimed_eps}): {r['event']}"
            )


def test_every_private_method_and_mechanism_has_a_release_path():
    from dprank.api import PRIVACY

    covered = set()
    for path in h.PATHS.values():
        o = path.options
        if "privacy" in o and "method" in o:
            covered.add(f"{PRIVACY[o['privacy']]}_{o['method']}")
            if o.get("as_published"):
                covered.add("individual_counts_as_published")
    private = {m.name for m in all_methods() if m.private}
    shipped = {m.name for m in all_methods() if m.private and (m.paper != "-" or m.ties)}
    assert shipped <= covered, shipped - covered
    # any other private method (a contributed one) plays the same game on the neighbours of
    # its privacy level in the method contract (dprank.testing, tests/test_method_contract.py)
    for name in sorted(private - covered):
        path = testing.audit_path(name, (1.0, 0.0))
        assert path.api is not None and path.neighbours(1.0), name
    assert {"privatize --mechanism rr", "privatize --mechanism laplace"} <= set(h.PATHS)
    # both ways for every path, and the quick profile plays every path
    assert all(p.api is not None and p.command is not None for p in h.PATHS.values())
    assert {g[0] for g in GAMES} == set(h.PATHS)
    assert {g[0] for g in h.profile_games("full") if g[1] == "command"} == set(h.PATHS)


def _legacy_individual_mle(data, eps, noise):
    """The individual-DP perturbed MLE as released before issue 44 (the control)."""
    L = 2
    gamma, lam = individual_gamma(eps, L), individual_mle_noise_scale(eps, L)
    theta = fit_penalized_mle(data, gamma, noise.laplace(lam, data.n_items), sum_zero=True).theta
    ranks = np.argsort(np.argsort(-theta)) + 1.0
    return h.Output(theta, ranks, {"noise": {"grid_exponent": grid_exponent(lam)}})


def test_battery_flags_the_perturbed_mle_as_released_before():
    control = h.ReleasePath(
        "control: perturbed MLE, grid noise solved to float precision",
        "mle_individual",
        "individual DP",
        h.user_replace(L=2),
        lambda e: (e, 0.0),
        None,
        _legacy_individual_mle,
        options={"max_per_user": 2},
    )
    (res,) = h.play(control, 1.0, 60, _rng("legacy"))
    failed = {r["distinguisher"] for r in res.failures}
    assert {"grid_residue", "pair_set_search"} <= failed
    residue = next(r for r in res.results if r["distinguisher"] == "grid_residue")
    assert residue["accuracy"] >= 0.9 and residue["eps_lower"] > 1.0


def test_battery_flags_an_overspent_randomized_response():
    def overspent(data, eps, noise):  # claims eps, spends 3 eps
        rel = local_release(data, np.full(data.n_users, 3.0 * eps), noise, "rr")
        return h.Output(np.asarray(rel.y, dtype=np.float64), None, {})

    control = h.ReleasePath(
        "control: randomized response at 3 eps",
        "local_rr",
        "local",
        h.local_flip(),
        lambda e: (e, 0.0),
        None,
        overspent,
    )
    (res,) = h.play(control, 1.0, 400, _rng("rr"))
    assert not res.holds
    assert res.eps_lower_bound > 1.0 and res.max_accuracy > res.bound


def test_accuracy_bound():
    assert h.accuracy_bound(1.0) == pytest.approx(math.e / (1 + math.e))
    assert h.accuracy_bound(0.0) == 0.5
    assert h.accuracy_bound(1.0, 0.1) == pytest.approx((math.e + 0.1) / (math.e + 1))


def test_channel_distinguishers_see_the_command_only():
    seen = []

    def build(game, sel0, sel1):
        seen.append(game.via)
        return h.statistic(lambda outs: np.array([len(o.channel.stderr) for o in outs]), ["len"])

    h.register_distinguisher(h.Distinguisher("stderr_length", build, channel=True))
    try:
        name = "rank --privacy edge --method counts"
        (api,) = h.play(
            name, 1.0, 8, _rng("hook", 1), distinguishers=["stderr_length", "threshold"]
        )
        (cmd,) = h.play(
            name, 1.0, 8, _rng("hook", 2), via="command", distinguishers=["stderr_length"]
        )
    finally:
        h.DISTINGUISHERS.pop("stderr_length")
    assert seen == ["command"]
    assert [r["distinguisher"] for r in api.results] == ["threshold"]
    assert [r["distinguisher"] for r in cmd.results] == ["stderr_length"]


def test_command_runs_as_shipped_on_reproducible_bits():
    path = h.PATHS["rank --privacy edge --method mle"]
    nb = path.neighbours(1.0)[0]
    game = h.Game(path, 1.0, nb, "command")
    system = NoiseSource.system
    a = h.game_runs(game, nb.d0, 2, h.seeded_source(np.random.default_rng(5)))
    b = h.game_runs(game, nb.d0, 2, h.seeded_source(np.random.default_rng(5)))
    assert NoiseSource.system == system  # restored
    assert a[0].channel.exit_status == 0 and a[0].record["private"] is True
    assert np.array_equal(a[0].values, b[0].values) and not np.array_equal(a[0].values, a[1].values)
    assert set(a[0].channel.files) == {"ranking.csv", "ranking.json"}


def test_run_path_gives_every_channel_of_the_command():
    nb = h.PATHS["rank --privacy edge --method counts"].neighbours(1.0)[0]
    runs = h.run_path("rank --privacy edge --method counts", nb.d1, 1.0, 2, _rng("run_path"))
    assert [r.channel.exit_status for r in runs] == [0, 0]
    assert runs[0].channel.stderr == runs[1].channel.stderr
    assert runs[0].channel.files["ranking.json"] == runs[1].channel.files["ranking.json"]
    assert runs[0].channel.files["ranking.csv"] != runs[1].channel.files["ranking.csv"]
