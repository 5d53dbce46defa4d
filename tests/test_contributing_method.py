"""The contributing recipe "Add a method" (docs/contributing.md), followed to the letter.

In a temporary copy of the repository (a git repository, so that what the recipe
changed is ``git status``), the steps of the page are applied as written, their code
taken from the page's code blocks: the example method ``examples/noisy_borda.py``
becomes ``src/dprank/methods/noisy_borda.py``, registered in ``src/dprank/methods/__init__.py``,
with
its test and its API reference line, then the docs' values are regenerated. The copy's
own package (``PYTHONPATH``) then lists the method in ``dprank methods``, ranks a
hand-written file with ``dprank rank --method noisy_borda``, and passes the method's
contract test and the tests that read the registry. The files changed are the number
the page states.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "contributing.md"
NAME = "individual_noisy_borda"

#: The tests of the copy that read the registry (a new method must not break them).
REGISTRY_TESTS = [
    "tests/test_noisy_borda.py",
    "tests/test_docs.py::test_derived_values_are_current",
    "tests/test_docs.py::test_api_reference_covers_every_public_module",
    "tests/test_intervals.py::test_every_registered_method_is_covered_or_rejected",
    "tests/test_privacy_harness.py::test_every_private_method_and_mechanism_has_a_release_path",
    "tests/test_methods.py::test_every_registered_method_runs_on_one_small_input",
    "tests/test_methods.py::test_every_registered_method_has_its_own_readable_label",
    "tests/test_cli.py::test_methods_subcommand",
    "tests/test_release_mle.py::test_release_ok_marks_the_methods_a_default_may_pick",
    "tests/test_privacy_misuse.py::test_a_fit_says_private_only_for_secure_noise",
    "tests/test_default_methods.py",
]


def _section() -> str:
    text = PAGE.read_text()
    start = text.index("## Add a method")
    return text[start : text.index("\n## ", start + 1)]


def _blocks(section: str) -> list[str]:
    """The section's Python code blocks, unindented."""
    blocks = re.findall(r"^( *)```python\n(.*?)^\1```", section, flags=re.S | re.M)
    return [
        "".join(line[len(indent) :] + "\n" for line in body.splitlines()) for indent, body in blocks
    ]


def _run(cmd: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _git(cwd: Path, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_COMMITTER_NAME": "t"}
    env["GIT_AUTHOR_EMAIL"] = env["GIT_COMMITTER_EMAIL"] = "t@t"
    out = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def _copy(dest: Path) -> Path:
    """The tracked files of the checkout (and its built extension) in a new git repository.

    In a copy of the project without git (CI's offline copy), everything but what a run or
    the set-up makes.
    """
    if (ROOT / ".git").exists():
        files = _git(ROOT, "ls-files", "-z").split("\0")
    else:
        made = {".venv", "results", ".snakemake", "site", "wheelhouse", "build", ".hypothesis"}
        files = [
            path.relative_to(ROOT).as_posix()
            for path in ROOT.rglob("*")
            if path.is_file()
            and not made.intersection(path.relative_to(ROOT).parts)
            and "__pycache__" not in path.parts
            and not path.relative_to(ROOT).as_posix().startswith("resources/data/")
            and not any(part.endswith(".egg-info") for part in path.parts)
        ]
    for name in filter(None, files):
        src = ROOT / name
        if src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)
    for built in (ROOT / "src" / "dprank").glob("_native*"):
        shutil.copy2(built, dest / "src" / "dprank" / built.name)
    _git(dest, "init", "-q")
    _git(dest, "add", "-A")
    _git(dest, "commit", "-q", "-m", "copy")
    return dest


def _follow_the_recipe(repo: Path, section: str) -> None:
    """The page's steps, as written (the code of its blocks, the paths of its text)."""
    imports, entry, test = _blocks(section)
    # 1. the module: the example, copied as the page says
    assert "cp examples/noisy_borda.py src/dprank/methods/noisy_borda.py" in section
    shutil.copy(repo / "examples/noisy_borda.py", repo / "src/dprank/methods/noisy_borda.py")
    # 2. the registry entry: the import with the others, the fit and Method at the end
    methods = repo / "src/dprank/methods/__init__.py"
    text = methods.read_text()
    anchor = "from __future__ import annotations\n"
    text = text.replace(anchor, anchor + "\n" + imports, 1)
    methods.write_text(text.rstrip("\n") + "\n\n\n" + entry)
    # 3. the test
    assert "`tests/test_<name>.py`" in section
    (repo / "tests/test_noisy_borda.py").write_text(test)
    # 4. the API reference: a method of neither paper goes to docs/api/models.md
    assert "method of neither paper: `docs/api/models.md`" in " ".join(section.split())
    with (repo / "docs/api/models.md").open("a") as f:
        f.write("\n::: dprank.methods.noisy_borda\n")


@pytest.fixture(scope="module")
def recipe(tmp_path_factory):
    """The copy with the recipe applied and the docs' values regenerated: ``(repo, env)``."""
    repo = _copy(tmp_path_factory.mktemp("recipe"))
    section = _section()
    _follow_the_recipe(repo, section)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(repo / "src"), str(repo / "tests")])
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    command = "python -m dprank_papers.docs_generate --no-dry-run"
    assert f"Then run `{command}`" in section
    proc = _run([sys.executable, *command.split()[1:]], repo, env)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return repo, env


def test_the_recipe_changes_the_files_it_states(recipe):
    repo, _ = recipe
    changed = sorted(line[3:] for line in _git(repo, "status", "--porcelain").splitlines())
    written = [
        "docs/api/models.md",
        "src/dprank/methods/__init__.py",
        "src/dprank/methods/noisy_borda.py",
        "tests/test_noisy_borda.py",
    ]
    generated = ["docs/getting-started.md", "docs/includes/values.yaml"]
    assert changed == sorted(written + generated)
    assert "four files you write and one command" in _section()
    for name in generated:
        assert f"`{name}`" in _section(), name
    diff = _git(repo, "diff", "--numstat", "src/dprank/methods/__init__.py").split()
    assert int(diff[0]) <= 25 and int(diff[1]) == 0  # lines added, none removed


def test_the_new_method_is_listed_by_dprank_methods(recipe):
    repo, env = recipe
    proc = _run([sys.executable, "-m", "dprank", "methods"], repo, env)
    assert proc.returncode == 0, proc.stderr
    row = next(line for line in proc.stdout.splitlines() if line.startswith(NAME))
    assert "Noisy Borda" in row and "user" in row and row.rstrip().endswith("central")


def test_dprank_rank_ranks_a_hand_written_file_with_the_new_method(recipe):
    repo, env = recipe
    (repo / "games.csv").write_text(
        "winner,loser,user\nann,bob,u1\nann,cy,u1\nbob,cy,u2\ncy,dee,u2\nann,dee,u3\n"
        "bob,dee,u3\ndee,cy,u4\nann,bob,u4\n"
    )
    argv = ["rank", "games.csv", "--privacy", "individual", "--method", "noisy_borda"]
    argv += ["--epsilon", "2", "--max-per-user", "2", "--items-from-data", "--out", "r.csv"]
    for extra, private in (([], "true"), (["--insecure-seed", "4"], "false")):
        proc = _run([sys.executable, "-m", "dprank", *argv, *extra], repo, env)
        assert proc.returncode == 0, proc.stderr
        rows = (repo / "r.csv").read_text().splitlines()
        assert rows[0] == "item,score,rank" and len(rows) == 5
        assert {r.split(",")[0] for r in rows[1:]} == {"ann", "bob", "cy", "dee"}
        record = (repo / "r.json").read_text()
        assert f'"mechanism": "{NAME}"' in record and f'"private": {private}' in record
        assert '"noise_scale": 4.0' in record  # 4 L / eps = 4 * 2 / 2


def test_the_copy_passes_the_contract_and_the_tests_that_read_the_registry(recipe):
    repo, env = recipe
    cmd = [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider", *REGISTRY_TESTS]
    proc = _run(cmd, repo, env)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "passed" in proc.stdout
