"""The documentation site browses and searches from disk: built as ``make docs`` builds it
(into a temporary folder), every internal link of every page names a file of the site (not a
folder, which a browser shows as a listing) and an anchor that page has, and the search index
is inlined as a script, which Material's search reads when the page is a ``file://`` URL, in
the vendored iframe-worker shim: no page loads a script or stylesheet from the network."""

import json
import os
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parents[1]

pytest.importorskip("material", reason="the docs extra (mkdocs-material) is not installed")


class _Page(HTMLParser):
    """The link targets (``href``, ``src``) and element ids of one HTML page."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.links: list[str] = []
        self.ids: set[str] = set()
        self.scripts: list[str] = []
        self.stylesheets: list[str] = []

    def handle_starttag(self, tag, attrs):
        found = dict(attrs)
        if tag == "script" and found.get("src"):
            self.scripts.append(found["src"])
        elif tag == "link" and found.get("href"):
            rel = (found.get("rel") or "").lower().split()
            if "stylesheet" in rel or (
                {"preload", "modulepreload"} & set(rel) and found.get("as") in ("script", "style")
            ):
                self.stylesheets.append(found["href"])
        for name, value in attrs:
            if value is None:
                continue
            if name == "id":
                self.ids.add(value)
            elif name == "name" and tag == "a":
                self.ids.add(value)
            elif name in ("href", "src"):
                self.links.append(value)


def _parse(path: Path) -> _Page:
    page = _Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """The site, built strictly from the working tree's docs/ and mkdocs.yml (a few seconds)."""
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return out


@pytest.fixture(scope="module")
def pages(site) -> dict[Path, _Page]:
    """Every page of the site (404.html included), parsed once for all the tests."""
    return {path: _parse(path) for path in sorted(site.rglob("*.html"))}


def _internal(link: str) -> bool:
    parts = urlsplit(link)
    return not parts.scheme and not parts.netloc and not link.startswith("//")


def test_every_internal_link_names_a_file_and_an_anchor(site, pages):
    # 404.html is served by a web server for any missing path, so its links are absolute.
    assert site / "index.html" in pages
    broken = []
    for path, page in pages.items():
        if path.name == "404.html":
            continue
        for link in page.links:
            if not _internal(link):
                continue
            parts = urlsplit(link)
            target = (path.parent / unquote(parts.path)).resolve() if parts.path else path
            where = f"{path.relative_to(site)}: {link}"
            if not target.is_file():
                broken.append(f"{where} (no such file)")
                continue
            if parts.fragment and target.suffix == ".html":
                ids = (pages[target] if target in pages else _parse(target)).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where} (no anchor #{parts.fragment})")
    assert broken == [], "\n".join(broken)


def test_links_are_files_not_folders(site, pages):
    """``use_directory_urls: false``: a page is ``name.html``; no ``name/index.html`` folders."""
    index = pages[site / "index.html"]
    linked = [link for link in index.links if _internal(link) and link.endswith(".html")]
    assert "getting-started.html" in linked
    assert not (site / "getting-started").exists()


def test_search_works_offline(site):
    """The offline plugin writes the index as a script (``var __index = {...}``) beside the
    JSON, which Material loads with a script tag when served from the file system."""
    script = (site / "search" / "search_index.js").read_text(encoding="utf-8")
    prefix = "var __index = "
    assert script.startswith(prefix)
    index = json.loads(script[len(prefix) :])
    locations = {doc["location"].split("#")[0] for doc in index["docs"]}
    assert {"index.html", "getting-started.html", "papers/paper-a.html"} <= locations
    assert any("ambiguity" in doc["text"].lower() for doc in index["docs"])


def test_no_page_loads_a_script_or_stylesheet_from_the_network(site, pages):
    """Every ``<script src>`` and stylesheet ``<link>`` of every page (404.html included) is a
    file of the site; in particular the offline plugin's ``https://unpkg.com/iframe-worker/shim``
    is replaced by the vendored copy that ``extra.polyfills`` in mkdocs.yml lists."""
    remote = []
    shims = 0
    for path, page in pages.items():
        for url in page.scripts + page.stylesheets:
            if not _internal(url):
                remote.append(f"{path.relative_to(site)}: {url}")
        shims += any(url.endswith("iframe-worker-shim.js") for url in page.scripts)
    assert remote == [], "\n".join(remote)
    assert shims == sum(1 for _ in site.rglob("*.html"))


def test_the_vendored_shim_replaces_the_worker_from_file_urls(site):
    """The copy is iframe-worker's shim (with its MIT licence), which swaps ``window.Worker``
    for an iframe-based one when the page is a ``file://`` URL, so the search worker starts."""
    shim = (site / "assets" / "javascripts" / "iframe-worker-shim.js").read_text(encoding="utf-8")
    assert "iframe-worker 1.0.4" in shim and "MIT" in shim
    assert 'location.protocol==="file:"&&(window.Worker=o)' in shim
    assert "window.IFrameWorker=o" in shim
