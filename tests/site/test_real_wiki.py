"""The real bilingual wiki, built end to end through the command line: page counts pinned."""

from __future__ import annotations

import json
import re

import pytest

from pipeline.cli import main
from tests.conftest import POINTSAV

pytestmark = pytest.mark.slow  # a whole wiki built: outside the fast tier

# Pinned from a build of tests/corpora/pointsav-wiki; a change means the site or the corpus changed.
ARTICLES = 569
CATEGORY_PAGES = {"en": 14, "es": 14}  # the 13 of categories.yaml, and `root`, which articles use undeclared
REDIRECTS = 185


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    pointsav = POINTSAV
    root = tmp_path_factory.mktemp("pointsav")
    status = main(["build", "--content", str(pointsav), "--out", str(root / "out"), "--state", str(root / "state"),
                   "--format", "json"])  # fmt: skip
    assert status == 0
    return pointsav, root / "out", root / "state"


def test_every_article_has_a_page(built):
    pointsav, out, _ = built
    sources = [p for p in pointsav.rglob("*.md") if not any(part.startswith(".") for part in p.relative_to(pointsav).parts)]
    assert len(sources) == ARTICLES
    pages = [p for p in out.rglob("index.html") if 'class="article"' in p.read_text(encoding="utf-8")]
    assert len(pages) == ARTICLES
    three = (out / "architecture/three-ring-architecture/index.html").read_text(encoding="utf-8")
    assert 'hreflang="es" href="/es/architecture/three-ring-architecture/"' in three


def test_category_pages_come_from_categories_yaml(built):
    _, out, _ = built
    for lang, prefix in (("en", ""), ("es", "es/")):
        assert len(list((out / prefix / "category").glob("*/index.html"))) == CATEGORY_PAGES[lang]
    page = (out / "category/architecture/index.html").read_text(encoding="utf-8")
    assert "<h1>Category: How It&#39;s Built</h1>" in page
    assert 'href="/architecture/three-ring-architecture/"' in page


def test_redirects_come_from_redirects_yaml(built):
    _, out, _ = built
    redirects = [p for p in out.rglob("index.html") if 'http-equiv="refresh"' in p.read_text(encoding="utf-8")]
    assert len(redirects) == REDIRECTS
    moved = (out / "systems/totebox-archive/index.html").read_text(encoding="utf-8")
    assert 'url=/infrastructure/totebox-archive/"' in moved
    assert (out / "infrastructure/totebox-archive/index.html").is_file()


def test_search_is_indexed_per_language(built):
    _, out, _ = built
    for lang in ("en", "es"):  # 257 to 512 pages each: four shards each
        entries = [json.loads((out / "pagefind" / lang / str(n) / "pagefind-entry.json").read_text(encoding="utf-8"))
                   for n in range(4)]  # fmt: skip
        assert all(set(entry["languages"]) == {lang} for entry in entries)
        assert sum(entry["languages"][lang]["page_count"] for entry in entries) > 250
    assert (out / "pagefind" / "pagefind-ui.js").is_file() and (out / "pagefind" / "shards.js").is_file()


def test_a_second_build_writes_nothing(built, capsys):
    pointsav, out, state = built
    capsys.readouterr()
    status = main(["build", "--content", str(pointsav), "--out", str(out), "--state", str(state), "--format", "json"])
    summary = capsys.readouterr().out.strip().splitlines()[-1]
    assert status == 0
    assert re.match(r"pages 0 written, \d+ unchanged, 0 removed", summary), summary
    assert "jobs 0 run" in summary


def test_every_contents_entry_links_to_a_heading_of_its_page(built):
    # The headings pass and the page parse the body with the same footnotes: a `[^1]` in a heading is
    # a footnote in both, so the contents' anchors are the page's heading ids.
    _, out, _ = built
    checked = 0
    for page in out.rglob("index.html"):
        html = page.read_text(encoding="utf-8")
        ids = set(re.findall(r' id="([^"]+)"', html))
        for anchor in re.findall(r'<li class="toc-level-\d"><a href="#([^"]+)"', html):
            assert anchor in ids, (page, anchor)
            checked += 1
    assert checked > 1000


def test_pages_filled_from_holes_are_the_pages_a_whole_render_gives(built):
    from pipeline.content.capture import load_articles
    from pipeline.passes import html
    from pipeline.storage.results import resolve_stored
    from pipeline.storage.store import open_store

    _, _, state = built
    conn = open_store(state / "state.db")
    try:
        jobs = conn.execute("SELECT capture_id, inputs FROM job_passes WHERE pass_name = 'html'").fetchall()
        articles = {a.capture_id: a for a in load_articles(conn, [row["capture_id"] for row in jobs])}
        blobs = dict(conn.execute("SELECT sha256, json FROM job_inputs").fetchall())
    finally:
        conn.close()
    filled = 0
    for row in jobs:
        inputs = {name: resolve_stored(json.loads(blobs[sha]), str(state / "state.db"))
                  for name, sha in json.loads(row["inputs"]).items()}  # fmt: skip
        article = articles[row["capture_id"]]
        whole = html.run(article, {**inputs, "markup": None})
        assert html.run(article, inputs) == whole, article.path
        filled += html._prerendered(inputs["markup"], inputs, article.body)
    assert filled > 500  # nearly every page of the real wiki takes the filled path
