"""The README is true: its Python example runs, its commands name real targets."""

import re
from pathlib import Path

from yaml import safe_load

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def read_yaml(path):
    return safe_load(path.read_text())


def test_python_examples_run():
    blocks = re.findall(r"```python\n(.*?)```", README, flags=re.S)
    assert blocks
    for block in blocks:
        namespace: dict = {}
        exec(compile(block, "README.md", "exec"), namespace)
    assert namespace["fit"].converged


def test_make_targets_and_rules_exist():
    makefile = (ROOT / "Makefile").read_text()
    for target in re.findall(r"(?:^|`)make ([\w-]+)", README, flags=re.M):
        assert re.search(rf"^{re.escape(target)}:", makefile, flags=re.M), target
    rules = "".join(p.read_text() for p in (ROOT / "workflow/rules").glob("*.smk"))
    # the papers' targets are generated from their declarations (workflow/rules/items.smk)
    generated = set()
    for path in (ROOT / "workflow/papers").glob("*.yaml"):
        generated |= {path.stem} | {f"{path.stem}_{item}" for item in read_yaml(path)["items"]}
    for rule in set(re.findall(r"`(paper_[ab]\w*)`", README)):
        assert rule in generated or re.search(rf"^rule {rule}:", rules, flags=re.M), rule


def test_short_and_links_into_the_docs_resolve():
    """A newcomer's page: 200 lines at most, every link to docs/ names a real page."""
    assert len(README.splitlines()) <= 200
    links = re.findall(r"\]\((docs/[^)#]+)(?:#[^)]*)?\)", README)
    assert links
    for link in links:
        assert (ROOT / link).exists(), link
    assert "make reproduce" in README and "make test" in README


def test_the_first_screen_says_what_to_set_offline():
    """A newcomer without network learns on the README's first screen (its first 40 lines,
    beside the two commands) how to give the tests the data and what happens without it
    (tests/test_offline.py checks that the skip says the same)."""
    first = "\n".join(README.splitlines()[:40])
    assert "make test" in first and "**Offline**" in first
    assert "DPRANK_DATA_MIRROR=/path/to/mirror make test" in first
    assert "skips the tests that need the data" in first
