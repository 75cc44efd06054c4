"""An edit renders its own pages only, when nothing every page shares changed; the rest of the site stays as it is."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest

from pipeline.build import DEFAULT_OPTIONS, build
from pipeline.inline import articles_from, run_inline
from pipeline.passes.base import Wiki
from pipeline.site import publish, render
from pipeline.site.model import build_model
from pipeline.site.pages import Revision
from pipeline.site.state import SiteState, changed_articles, kept_state, site_state
from tests.site.helpers import SITE, build_site, read, site  # noqa: F401 (the `site` fixture)


@pytest.fixture
def planned(monkeypatch):
    """The files of the pages each build plans, one list per build."""
    calls: list[list[str]] = []
    render_pages = render.render_pages

    def recording(job, pages, *args):
        calls.append(sorted(render.page_file(page.url) for page in pages))
        return render_pages(job, pages, *args)

    monkeypatch.setattr(render, "render_pages", recording)
    return calls


def assert_same_as_a_full_render(config, monkeypatch):
    """Render the same wiki again planning every page and rendering each (no state, no page digests):
    every file it makes has the bytes the last build left."""
    with monkeypatch.context() as patch:
        patch.setattr(publish, "previous_keys", lambda manifest, out: ({}, {}))
        again = build(dataclasses.replace(config, search=False), workers=1, site=True, reuse=False)
    assert again.site.written == [] and again.site.removed == [] and again.site.unchanged == again.site.files


def test_a_body_edit_plans_only_its_pages_and_the_lists_of_changes_and_pages(site, planned, monkeypatch):
    config, first = site
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "A new body."), encoding="utf-8")
    report = build_site(config)
    assert planned[-1] == [
        "beta/history/index.html", "beta/index.html", "es/index.html", "es/special/all/index.html",
        "es/special/recent/index.html", "index.html", "special/all/index.html", "special/recent/index.html",
    ]  # fmt: skip
    assert "A new body." in read(config.out_dir, "beta/index.html")
    assert (report.site.files, report.site.pages, report.site.redirects) == (
        first.site.files, first.site.pages, first.site.redirects)  # fmt: skip
    assert_same_as_a_full_render(config, monkeypatch)


def test_an_article_embedding_an_edited_one_is_rendered_again_with_it(make_wiki, planned, monkeypatch):
    config = make_wiki({**SITE, "gamma.md": "---\ntitle: Gamma\n---\n\nIt shows beta:\n\n![[beta]]\n"})
    build_site(config)
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Shown twice."), encoding="utf-8")
    build_site(config)
    pages = [rel for rel in planned[-1] if "special" not in rel and rel not in ("index.html", "es/index.html")]
    assert pages == ["beta/history/index.html", "beta/index.html", "gamma/history/index.html", "gamma/index.html"]
    assert "Shown twice." in read(config.out_dir, "gamma/index.html")
    assert_same_as_a_full_render(config, monkeypatch)


def test_a_translation_whose_source_was_edited_shows_its_new_banner_without_every_page_planned(site, planned, monkeypatch):
    config, _ = site
    (config.content_dir / "alpha.md").write_text(SITE["alpha.md"].replace("More.", "More, edited."), encoding="utf-8")
    build_site(config)
    pages = [rel for rel in planned[-1] if "special" not in rel and rel not in ("index.html", "es/index.html")]
    assert pages == ["alpha/history/index.html", "alpha/index.html", "es/alpha/history/index.html", "es/alpha/index.html"]
    source = hashlib.sha256((config.content_dir / "alpha.md").read_bytes()).hexdigest()
    assert f"which is now at {source[:12]}" in read(config.out_dir, "es/alpha/index.html")  # its outdated banner
    assert_same_as_a_full_render(config, monkeypatch)


def test_a_title_change_plans_every_page(site, planned, monkeypatch):
    config, first = site
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("title: Beta", "title: Bet"), encoding="utf-8")
    build_site(config)
    assert len(planned[-1]) == len(planned[0])  # Alpha's "What links here" and the lists name Beta
    assert "Bet</a>" in read(config.out_dir, "alpha/index.html")
    assert_same_as_a_full_render(config, monkeypatch)


def test_an_output_folder_missing_a_file_plans_every_page(site, planned):
    config, _ = site
    (config.out_dir / "special" / "categories" / "index.html").unlink()
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    report = build_site(config)
    assert len(planned[-1]) == len(planned[0]) and "special/categories/index.html" in report.site.written


def test_only_the_articles_whose_own_parts_changed_are_planned():
    last = SiteState("shared", {"a.md": "2026-11-30|1", "b.md": "2026-11-30|2"})
    assert changed_articles(last, SiteState("shared", {"a.md": "2026-11-30|1", "b.md": "2026-11-30|3"})) == {"b.md"}
    assert changed_articles(last, SiteState("shared", dict(last.own))) == set()
    assert changed_articles(last, SiteState("other", dict(last.own))) is None  # a title, a link, a template...
    assert changed_articles(None, last) is None and changed_articles(last, SiteState(None, dict(last.own))) is None
    # The sitemap lists every page with the day it changed: a new day for one is a new sitemap.
    assert changed_articles(last, SiteState("shared", {"a.md": "2026-11-30|1", "b.md": "2026-12-01|3"})) is None


def test_an_articles_own_part_is_its_day_revisions_and_updated_time_and_the_shared_part_its_seeds_and_salts():
    files = {"a.md": "---\ntitle: A\n---\n[[b]]\n", "b.md": "---\ntitle: B\n---\nText.\n"}
    articles = articles_from(files)
    results = {name: {a.capture_id: outputs[a.path] for a in articles} for name, outputs in run_inline(files).items()}
    model = build_model(Wiki(DEFAULT_OPTIONS, articles, results), [], {name: 1 for name in results})
    first = site_state(model, {"en": "salt"}, {})
    assert changed_articles(first, site_state(model, {"en": "other"}, {})) is None  # navigation, settings, theme
    model.by_path()["a.md"].updated = "2026-12-01T10:00:00+00:00"
    today = site_state(model, {"en": "salt"}, {})
    assert today.shared == first.shared and changed_articles(first, today) is None  # its sitemap day changed
    model.by_path()["a.md"].updated = "2026-12-01T11:00:00+00:00"
    assert changed_articles(today, site_state(model, {"en": "salt"}, {})) == {"a.md"}
    revision = Revision("b.md", "2026-12-01T11:00:00+00:00", "0" * 64, None, "edited", "B", "b/")
    assert changed_articles(today, site_state(model, {"en": "salt"}, {"b.md": [revision]})) == {"a.md", "b.md"}


def test_a_kept_state_that_is_not_one_is_not_used():
    state = SiteState("shared", {"a.md": "2026-11-30|1"}, pages=3, redirects=1)
    assert kept_state({"shared": "shared", "own": {"a.md": "2026-11-30|1"}, "pages": 3, "redirects": 1}) == state
    for broken in ({}, {"shared": None, "own": {}}, {"shared": "s", "own": []}, {"shared": "s", "own": {}, "extra": 1}):
        assert kept_state(broken) is None
