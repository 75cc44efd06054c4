"""An edit renders its own pages only, when nothing every page shares changed; the rest of the site stays as it is."""

from __future__ import annotations

import dataclasses
import hashlib
import shutil

import pytest

from pipeline.build import build
from pipeline.incremental.kept_pages import KEPT_PAGES
from pipeline.inline import DEFAULT_OPTIONS
from pipeline.inline import articles_from, run_inline
from pipeline.passes.base import Wiki
import pipeline.site as site_package
from pipeline.site import render
from pipeline.site.model import build_model
from pipeline.site.page_digests import SiteState, recorded_state, patch, site_state
from pipeline.site.pages import Revision
from tests.site.helpers import SITE, assert_same_as_a_full_render, build_site, read, rendered, site  # noqa: F401 (fixtures)


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


def test_a_body_edit_plans_only_its_pages_and_the_lists_of_changes(site, planned, monkeypatch):
    config, first = site
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "A new body."), encoding="utf-8")
    report = build_site(config)
    assert planned[-1] == [
        "beta/history/index.html", "beta/index.html", "es/index.html", "es/special/recent/index.html", "index.html",
        "special/recent/index.html",
    ]  # fmt: skip
    assert "A new body." in read(config.out_dir, "beta/index.html")
    assert (report.site.files, report.site.pages, report.site.redirects) == (
        first.site.files, first.site.pages, first.site.redirects)  # fmt: skip
    assert_same_as_a_full_render(config, monkeypatch)


def test_a_body_edit_after_the_state_database_was_made_anew_is_rendered(site, monkeypatch):
    config, _ = site
    config.state_db.unlink()  # its captures and jobs numbered from 1 again; the site and its manifest stay
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "After a reset."), encoding="utf-8")
    build_site(config)
    assert "After a reset." in read(config.out_dir, "beta/index.html")
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


def _article_pages(files: list[str]) -> list[str]:
    return [rel for rel in files if rel.count("/") == 1 + rel.startswith("es/") or rel.endswith("/history/index.html")]


# A page summary that changes in place: the file, the change, the articles whose pages show it, what one of them shows
# now, and whether the wiki pages (lists of titles, red links) may show it too.
# (A title is not one: every page's navigation tree shows it, so a retitle plans every page, as below.)
SEEDS_IN_PLACE = {
    # Alpha's "What links here" loses beta, evil's gains it; no list shows either.
    "a link": ("beta.md", ("[[alpha]]", "[[evil]]"), ["alpha", "beta", "evil"], ("evil", ">Beta</a>"), False),
    # Evil's "What links here" gains beta; alpha's, which beta still links to under the same title, stays.
    "a link beside another": ("beta.md", ("[[alpha]].", "[[alpha]] and [[evil]]."), ["beta", "evil"],
                              ("evil", ">Beta</a>"), False),
    # Alpha's "What links here" loses beta, and the wanted pages gain a red link.
    "a red link": ("beta.md", ("[[alpha]]", "[[gone]]"), ["alpha", "beta"], ("special/wanted", "gone"), True),
}


@pytest.mark.parametrize("change", SEEDS_IN_PLACE.values(), ids=SEEDS_IN_PLACE.keys())
def test_a_page_summary_changed_in_place_plans_the_pages_showing_it_and_the_wiki_pages(planned, site, monkeypatch, change):
    config, _ = site
    path, (old, new), shown, (page, text), lists = change
    (config.content_dir / path).write_text(SITE[path].replace(old, new), encoding="utf-8")
    build_site(config)
    assert _article_pages(planned[-1]) == sorted(f"{p}/{rel}" for p in shown for rel in ("history/index.html", "index.html"))
    wiki_pages = set(planned[-1]) - set(_article_pages(planned[-1]))
    if lists:  # every other page is planned: the first build's less the articles' pages (and the translation status
        # pages, planned only when a status changed: their emitter keeps its digest)
        status = {rel for rel in planned[0] if rel.endswith("special/translations/index.html")}
        assert wiki_pages == set(planned[0]) - set(_article_pages(planned[0])) - status
    else:  # as after a body edit: the home pages and the lists of changes
        assert {rel.removeprefix("es/") for rel in wiki_pages} == {"index.html", "special/recent/index.html"}
    assert text in read(config.out_dir, f"{page}/index.html")
    assert_same_as_a_full_render(config, monkeypatch)


@pytest.mark.parametrize("change", [("title: Beta", "title: Bet"), ("title: Beta", "title: Beta\nslug: bet"), ("[extras]", "[extras, more]"),
                                    ("title: Beta", "title: Beta\naliases: [B]"), ("title: Beta", "title: Beta\ndraft: true")])
def test_a_page_summary_change_that_moves_a_page_or_a_list_plans_every_page(planned, site, monkeypatch, change):
    config, first = site
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace(*change), encoding="utf-8")
    build_site(config)
    assert len(planned[-1]) >= len(planned[0]) - 2  # a draft leaves the lists: its two pages are not planned
    assert_same_as_a_full_render(config, monkeypatch)


def test_an_output_folder_missing_a_file_the_state_does_not_keep_plans_every_page(site, planned):
    config, _ = site
    shutil.rmtree(config.state_dir / KEPT_PAGES)
    (config.out_dir / "special" / "categories" / "index.html").unlink()
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    report = build_site(config)
    assert len(planned[-1]) == len(planned[0]) and "special/categories/index.html" in report.site.written


def test_a_file_missing_from_the_output_folder_is_put_back_and_only_the_edit_planned(site, planned, monkeypatch):
    config, _ = site
    (config.out_dir / "special" / "categories" / "index.html").unlink()
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    build_site(config)
    assert "beta/index.html" in planned[-1] and not {"alpha/index.html", "special/categories/index.html"} & set(planned[-1])
    assert (config.out_dir / "special" / "categories" / "index.html").is_file()
    assert_same_as_a_full_render(config, monkeypatch)


@pytest.fixture
def digested(monkeypatch):
    """The URLs of the article and history pages digested to be compared with the last build's (in order)."""
    urls: list[str] = []
    original = render.PageJob.digest

    def recording(job, page, tree):
        urls.append(page.url)
        return original(job, page, tree)

    monkeypatch.setattr(render.PageJob, "digest", recording)
    return urls


def _articles_rendered(urls: list[str], config) -> set[str]:
    """The article and history pages among `urls` (an article's URL is its folder in the output)."""
    return {url for url in urls if url.endswith("/history/") or url and (config.out_dir / url / "history").is_dir()}


ADDED = {
    # Gamma links to beta, whose "What links here" names it, and joins a category.
    "an article linking to another": ("gamma.md", "---\ntitle: Gamma\ncategory: guides\n---\n\nIt links to [[beta]].\n",
                                      {"beta/", "gamma/"}, ("beta/", ">Gamma</a>")),
    # Alpha's red link to [[missing page]] reaches it now: alpha's page is rendered again with the link.
    "the article a red link named": ("missing-page.md", "---\ntitle: Missing page\n---\n\nHere now.\n",
                                     {"alpha/", "missing-page/"}, ("alpha/", 'href="/missing-page/"')),
    # It takes the URL a redirect had (redirects.yaml: /old/alpha), whose page is made no more; and its slug
    # is alpha's, so beta's [[alpha]] no longer names one page, and alpha's "What links here" loses beta.
    "an article at a redirect's URL": ("old/alpha.md", "---\ntitle: Old Alpha\n---\n\nText.\n",
                                       {"old/alpha/", "alpha/", "beta/"}, ("old/alpha/", "<h1>Old Alpha</h1>")),
}


@pytest.mark.parametrize("change", ADDED.values(), ids=ADDED.keys())
def test_an_added_article_renders_every_page_of_its_language_which_lists_it_in_its_tree(
    planned, rendered, site, monkeypatch, change
):
    config, first = site
    path, text, shown, (page, html) = change
    (config.content_dir / path).parent.mkdir(exist_ok=True)
    (config.content_dir / path).write_text(text, encoding="utf-8")
    rendered.clear()
    report = build_site(config)
    new = {page_file for page_file in planned[-1] if page_file not in planned[0]}
    assert new == {f"{path[:-3]}/index.html", f"{path[:-3]}/history/index.html"}  # every page planned
    # Every page's navigation tree lists the new article: every English article page is rendered again.
    english = {f"{p.parent.parent.relative_to(config.out_dir).as_posix()}/" for p in config.out_dir.rglob("history/index.html")
               if not p.relative_to(config.out_dir).as_posix().startswith("es/")}  # fmt: skip
    assert _articles_rendered(rendered, config) >= {*shown, *english}
    assert f'href="/{path[:-3]}/"' in read(config.out_dir, "evil/index.html")
    assert {url for url in rendered if url not in _articles_rendered(rendered, config)} >= {"", "es/", "special/all/"}
    assert html in read(config.out_dir, f"{page}index.html") and f"/{path[:-3]}/" in read(config.out_dir, "sitemap.xml")
    assert report.site.pages == first.site.pages + 2
    assert_same_as_a_full_render(config, monkeypatch)


@pytest.mark.parametrize("change", ["paired", "one gone"])
def test_an_article_added_beside_a_changed_placing_or_a_removal_digests_every_page(digested, site, monkeypatch, change):
    config, _ = site
    if change == "paired":  # beta's page gains a language switcher: its page summary's translations changed
        (config.content_dir / "beta.es.md").write_text("---\ntitle: Beta ES\npaired_with: beta.md\n---\n\nHola.\n")
    else:
        (config.content_dir / "gamma.md").write_text("---\ntitle: Gamma\n---\n\nNew.\n", encoding="utf-8")
        (config.content_dir / "evil.md").unlink()
    digested.clear()
    build_site(config)
    assert len(digested) == 2 * len(list(config.out_dir.rglob("history/index.html")))  # as a build without state
    assert_same_as_a_full_render(config, monkeypatch)


def _patched(last, now):
    found = patch(last, now, None)  # own parts alone: the model is not looked at
    return None if found is None else found.articles


def test_only_the_articles_whose_own_parts_changed_are_planned():
    last = SiteState("shared", {"a.md": "2026-11-30|1", "b.md": "2026-11-30|2"})
    assert _patched(last, SiteState("shared", {"a.md": "2026-11-30|1", "b.md": "2026-11-30|3"})) == {"b.md"}
    assert _patched(last, SiteState("shared", dict(last.own))) == set()
    assert _patched(last, SiteState("other", dict(last.own))) is None  # a template, a data file, a new article...
    assert _patched(None, last) is None and _patched(last, SiteState(None, dict(last.own))) is None
    # The sitemap lists every page with the day it changed: a new day for one is a new sitemap.
    assert _patched(last, SiteState("shared", {"a.md": "2026-11-30|1", "b.md": "2026-12-01|3"})) is None
    # An article added: every page planned (the sitemap is made again), its and the changed ones' rendered.
    added = patch(last, SiteState("shared", {**last.own, "b.md": "2026-12-01|3", "c.md": "2026-12-01|4"}), None)
    assert (added.articles, added.lists, added.every) == ({"b.md", "c.md"}, True, True)


def test_an_articles_own_part_is_its_day_revisions_and_updated_time_and_the_shared_part_its_page_summaries_and_salts():
    files = {"a.md": "---\ntitle: A\n---\n[[b]]\n", "b.md": "---\ntitle: B\n---\nText.\n"}
    articles = articles_from(files)
    results = {name: {a.capture_id: outputs[a.path] for a in articles} for name, outputs in run_inline(files).items()}
    model = build_model(Wiki(DEFAULT_OPTIONS, articles, results), [], {name: 1 for name in results})
    first = site_state(model, {"en": "salt"}, {})
    assert _patched(first, site_state(model, {"en": "other"}, {})) is None  # navigation, settings, theme
    model.by_path()["a.md"].updated = "2026-12-01T10:00:00+00:00"
    today = site_state(model, {"en": "salt"}, {})
    assert today.shared == first.shared and _patched(first, today) is None  # its sitemap day changed
    model.by_path()["a.md"].updated = "2026-12-01T11:00:00+00:00"
    assert _patched(today, site_state(model, {"en": "salt"}, {})) == {"a.md"}
    revision = Revision("b.md", "2026-12-01T11:00:00+00:00", "0" * 64, None, "edited", "B", "b/")
    assert _patched(today, site_state(model, {"en": "salt"}, {"b.md": [revision]})) == {"a.md", "b.md"}


def test_a_kept_state_that_is_not_one_is_not_used():
    state = SiteState("shared", {"a.md": "2026-11-30|1"}, pages=3, redirects=1)
    assert recorded_state({"shared": "shared", "own": {"a.md": "2026-11-30|1"}, "pages": 3, "redirects": 1}) == state
    for broken in ({}, {"shared": None, "own": {}}, {"shared": "s", "own": []}, {"shared": "s", "own": {}, "extra": 1}):
        assert recorded_state(broken) is None
