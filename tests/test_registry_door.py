"""The registry is the one door to the estimators (issue 32).

The papers' studies and the privacy audit reach the estimators (and the
releases and statistics of the local methods) through :mod:`dprank.methods`
(``get_method(name)``, :meth:`dprank.methods.Method.part`,
:attr:`dprank.methods.Method.noise_scale`), never by importing the estimator
modules. Every import is checked, at module level and inside functions.
"""

import ast
from pathlib import Path

from _imports import imported

SRC = Path(__file__).resolve().parents[1] / "src" / "dprank"
#: the papers' reproduction (the studies), a client of the library
PAPERS = SRC.parent / "dprank_papers"

#: modules that hold estimators: callers outside the library core go through the registry
ESTIMATOR_MODULES = {"mle", "weighted_mle", "oneshot", "mixed_effects", "sparse"}
#: estimator, release and statistics functions of modules that also hold other things
ESTIMATOR_NAMES = {
    "ldp": {
        "add_rr_statistics",
        "add_sufficient_statistics",
        "adrr_weights",
        "count_ranking",
        "count_scores",
        "count_scores_from_pair_counts",
        "debias",
        "laplace_release",
        "randomized_response",
        "sample_rr_statistics_equal_eps",
        "simulate_ldp_statistics",
        "sufficient_statistics",
    },
    "ranking": {"copeland_counts", "noisy_counts"},
}


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def direct_estimator_imports(source: str, module: str, is_package: bool = False) -> list[str]:
    """``line: what`` for each import in ``source`` that bypasses the registry."""
    package = module if is_package else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(source)):
        pairs = imported(node, package)
        for mod, name in pairs:
            if name is not None and mod == "dprank" and name in ESTIMATOR_MODULES:
                mod, name = f"dprank.{name}", None  # ``from dprank import mle``
            head, _, leaf = mod.partition("dprank.")
            if head or "." in leaf:
                continue
            if leaf in ESTIMATOR_MODULES or (
                name in ESTIMATOR_NAMES.get(leaf, ()) or (name is None and leaf in ESTIMATOR_NAMES)
            ):
                found.append(f"{node.lineno}: {mod}" + (f".{name}" if name else ""))
    return found


def test_the_check_finds_direct_imports():
    src = (
        "from dprank.mle import fit_penalized_mle\n"
        "from dprank.ldp import debias, rr_flip_probability\n"
        "from dprank import oneshot\n"
        "def f():\n    import dprank.weighted_mle\n"
        "from dprank.methods import get_method\n"
        "from dprank.ranking import top_k\n"
    )
    found = direct_estimator_imports(src, "dprank_papers.studies.x")
    assert found == [
        "1: dprank.mle.fit_penalized_mle",
        "2: dprank.ldp.debias",
        "3: dprank.oneshot",
        "5: dprank.weighted_mle",
    ]


def _bypasses(folder: str) -> dict[str, list[str]]:
    out = {}
    for path in sorted((PAPERS / folder).rglob("*.py")):
        found = direct_estimator_imports(
            path.read_text(), _module_name(path), path.name == "__init__.py"
        )
        if found:
            out[str(path.relative_to(SRC.parent))] = found
    return out


def test_the_audit_reaches_the_estimators_through_the_registry():
    modules = [*(SRC / "audit").glob("*.py"), PAPERS / "studies" / "privacy_audit.py"]
    assert len(modules) >= 5
    found = {
        str(p.relative_to(SRC.parent)): direct_estimator_imports(
            p.read_text(), _module_name(p), p.name == "__init__.py"
        )
        for p in modules
    }
    assert not {k: v for k, v in found.items() if v}


def test_the_studies_reach_the_estimators_through_the_registry():
    """Every study (Papers A and B, the benchmark, the intervals, ...) uses dprank.methods."""
    assert (PAPERS / "studies" / "paper_b2" / "scenarios.py").is_file()
    assert _bypasses("studies") == {}


def test_the_parts_are_the_library_functions_the_fits_call():
    import dprank.ldp
    import dprank.mixed_effects
    import dprank.mle
    import dprank.oneshot
    import dprank.ranking
    import dprank.weighted_mle
    from dprank.methods import all_methods, get_method

    expected = {
        ("edge_mle", "estimator"): dprank.mle.fit_penalized_mle,
        ("edge_mle", "batch_fit"): dprank.mle.fit_penalized_mle_batch,
        ("individual_mle", "batch_fit"): dprank.mle.fit_penalized_mle_batch,
        ("edge_counts", "release"): dprank.ranking.noisy_counts,
        ("edge_one_shot", "scores"): dprank.oneshot.one_shot_scores,
        ("edge_noisy_obj", "estimator"): dprank.weighted_mle.noisy_obj_fit,
        ("local_adrr", "add_statistics"): dprank.ldp.add_rr_statistics,
        ("local_adrr", "estimator"): dprank.weighted_mle.fit_weighted_mle,
        ("local_count", "scores"): dprank.ldp.count_scores,
        ("nonprivate_mle", "mixed_effects_fit"): dprank.mixed_effects.fit_mixed_effects_btl,
    }
    for (name, role), func in expected.items():
        assert get_method(name).part(role) is func, (name, role)
    assert all(callable(f) for m in all_methods() for f in m.parts.values())


def test_a_missing_part_names_the_method_and_its_parts():
    import pytest

    from dprank.methods import Method, get_method

    with pytest.raises(ValueError, match="method edge_counts has no part 'estimator'; its parts:"):
        get_method("edge_counts").part("estimator")
    with pytest.raises(TypeError, match="role must be a str"):
        get_method("edge_counts").part(1)
    with pytest.raises(TypeError, match="parts must map"):
        Method("x", print, "-", "x", "none", "none", parts={"fit": 1})
