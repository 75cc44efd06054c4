"""Incremental output: exactly the files whose bytes change are rewritten; deleted articles' output goes."""

from __future__ import annotations

import dataclasses

import pytest

from pipeline.build import build
from tests.conftest import folder_hashes
from tests.site.helpers import SITE, build_site, read, site  # noqa: F401 (the `site` fixture)


def test_editing_one_body_rewrites_only_the_pages_that_change(site):
    config, first = site
    assert first.site.unchanged == 0 and len(first.site.written) == first.site.files
    before = folder_hashes(config.out_dir)
    edited = SITE["beta.md"].replace("Body.", "A longer body.")
    (config.content_dir / "beta.md").write_text(edited, encoding="utf-8")
    second = build_site(config)
    # Beta's page (body, capture hash, last updated), its history (a new revision), and the English
    # recent changes, which the English home page and feed also show. Alpha links to Beta, but nothing it
    # shows of Beta changed, nor Beta's preview (its first paragraph). The sitemap's lastmod is a day, so it
    # changes only across midnight.
    expected = {
        "beta/index.html", "beta/history/index.html", "special/recent/index.html", "index.html", "feed.xml",
    }  # fmt: skip
    assert set(second.site.written) - {"sitemap.xml"} == expected
    after = folder_hashes(config.out_dir)
    assert {rel for rel in after if after[rel] != before.get(rel)} == set(second.site.written)
    assert second.site.unchanged == second.site.files - len(expected) - ("sitemap.xml" in second.site.written)
    assert "A longer body." in read(config.out_dir, "beta/index.html")


def test_a_page_deleted_from_the_output_is_put_back_by_the_next_build(site):
    config, _ = site
    page = (config.out_dir / "alpha" / "index.html").read_bytes()
    (config.out_dir / "alpha" / "index.html").unlink()
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    report = build_site(config)
    assert (config.out_dir / "alpha" / "index.html").read_bytes() == page  # from the state folder's kept files
    assert "Edited." in read(config.out_dir, "beta/index.html") and "beta/index.html" in report.site.written


def test_a_rebuild_with_no_change_writes_nothing(site):
    config, _ = site
    stamps = {p: p.stat().st_mtime_ns for p in config.out_dir.rglob("*") if p.is_file()}
    again = build_site(config)
    assert again.site.written == [] and again.site.removed == []
    assert {p: p.stat().st_mtime_ns for p in config.out_dir.rglob("*") if p.is_file()} == stamps


def test_a_deleted_article_loses_its_output_and_nothing_else_is_touched(site):
    config, _ = site
    (config.out_dir / "CNAME").write_text("wiki.example.org\n", encoding="utf-8")  # not ours: must stay
    (config.content_dir / "evil.md").unlink()
    report = build_site(config)
    assert set(report.site.removed) == {"evil/index.html", "evil/history/index.html", "evil/preview.json"}
    assert not (config.out_dir / "evil").exists()
    assert (config.out_dir / "CNAME").read_text(encoding="utf-8") == "wiki.example.org\n"
    recent = read(config.out_dir, "special/recent/index.html")
    assert "deleted" in recent and "evil.md" in recent


def test_another_output_folder_never_loses_files_to_an_old_manifest(site, tmp_path):
    config, _ = site
    other = dataclasses.replace(config, out_dir=tmp_path / "elsewhere")
    (other.out_dir / "keep").mkdir(parents=True)
    (other.out_dir / "keep" / "index.html").write_text("mine", encoding="utf-8")
    report = build(dataclasses.replace(other, search=False), workers=1, site=True, force=True)  # not pipeline's
    assert report.site.removed == [] and (other.out_dir / "keep" / "index.html").read_text() == "mine"



def test_an_edit_build_reads_the_body_of_the_pages_it_renders_only(site, monkeypatch):
    from pipeline.site import model

    config, _ = site
    bodies = []
    body_of = model._Bodies.of

    def counting(self, article):
        body = body_of(self, article)
        body._read = lambda read_body=body._read: bodies.append(article.path) or read_body()
        return body

    monkeypatch.setattr(model._Bodies, "of", counting)
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Read me."), encoding="utf-8")
    report = build_site(config)
    assert bodies == ["beta.md"]  # the other pages' digests name their bodies by the jobs they come from
    assert "beta/index.html" in report.site.written and "Read me." in read(config.out_dir, "beta/index.html")


def test_a_page_whose_source_did_not_change_is_rendered_again_when_its_html_did(site):
    config, _ = site
    assert 'class="new"' in read(config.out_dir, "alpha/index.html")
    (config.content_dir / "missing-page.md").write_text("---\ntitle: Missing page\n---\n\nHere now.\n", encoding="utf-8")
    report = build_site(config)
    assert "alpha/index.html" in report.site.written  # its html job ran again: the red link resolves now
    assert 'href="/missing-page/"' in read(config.out_dir, "alpha/index.html")


def test_compiled_templates_are_kept_until_their_source_changes(make_wiki, tmp_path, monkeypatch):
    from jinja2 import Environment

    templates = tmp_path / "theme"
    templates.mkdir()
    (templates / "nav.html").write_text('<nav class="mine">{{ site_name }}</nav>\n', encoding="utf-8")
    config = make_wiki(SITE, templates_dir=templates)
    build_site(config)
    compiled = []
    compile_ = Environment.compile
    monkeypatch.setattr(Environment, "compile", lambda self, source, name=None, *args, **options: compiled.append(
        name) or compile_(self, source, name, *args, **options))  # fmt: skip
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    build_site(config)
    assert compiled == []  # every template the edit build rendered with came compiled from the last build
    (templates / "nav.html").write_text('<nav class="theirs">{{ site_name }}</nav>\n', encoding="utf-8")
    build_site(config)
    assert compiled == ["nav.html"] and '<nav class="theirs">' in read(config.out_dir, "beta/index.html")


def _stopped(config, monkeypatch, after_puts: int | None = None, **options) -> None:
    """Build `config` and stop it as Ctrl-C would: after `after_puts` files, else just before its manifest."""
    from pipeline.site.writer import SiteWriter

    put, puts = SiteWriter.put, []

    def stopping_put(self, rel, data, kept=True):
        if after_puts is not None and len(puts) == after_puts:
            raise KeyboardInterrupt
        puts.append(rel)
        put(self, rel, data, kept)

    def stopping_finish(self, *args):
        raise KeyboardInterrupt

    with monkeypatch.context() as patch:
        patch.setattr(SiteWriter, "put", stopping_put)
        if after_puts is None:
            patch.setattr(SiteWriter, "finish", stopping_finish)
        with pytest.raises(KeyboardInterrupt):
            build_site(config, **options)


# A retitle shows in every page's navigation tree: every page is put again, after the assets and redirects (20: midway).
@pytest.mark.parametrize("after_puts", [None, 20])
def test_a_build_stopped_while_writing_leaves_no_stale_page_once_its_edit_is_undone(site, monkeypatch, after_puts):
    config, _ = site
    before = folder_hashes(config.out_dir)
    omega = SITE["alpha.md"].replace("title: Alpha", "title: Omega")
    (config.content_dir / "alpha.md").write_text(omega, encoding="utf-8")
    _stopped(config, monkeypatch, after_puts)  # Beta's backlinks, the Spanish page, the category show Omega
    assert any("Omega" in read(config.out_dir, rel) for rel in before if rel.endswith(".html"))
    (config.content_dir / "alpha.md").write_text(SITE["alpha.md"], encoding="utf-8")
    build_site(config)
    after = folder_hashes(config.out_dir)
    assert not [rel for rel in after if rel.endswith(".html") and "Omega" in read(config.out_dir, rel)]
    # Only what the undone edit leaves behind differs: Alpha's revisions (its history, the recent changes, how far
    # behind its Spanish translation is).
    assert {rel for rel in after if after[rel] != before.get(rel)} <= {
        "alpha/index.html", "alpha/history/index.html", "special/recent/index.html", "index.html", "feed.xml",
        "es/special/translations/index.html"}  # fmt: skip


def test_the_page_a_stopped_build_made_for_an_article_deleted_since_is_removed(site, monkeypatch):
    config, _ = site
    (config.content_dir / "gamma.md").write_text("---\ntitle: Gamma\n---\n\nNew.\n", encoding="utf-8")
    _stopped(config, monkeypatch)
    assert (config.out_dir / "gamma" / "index.html").is_file()
    (config.content_dir / "gamma.md").unlink()
    report = build_site(config)
    assert "gamma/index.html" in report.site.removed and not (config.out_dir / "gamma").exists()


def test_a_build_stopped_while_writing_leaves_the_search_index_to_be_made_again(site, monkeypatch):
    from pipeline.site import search_pending

    config, _ = site
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    _stopped(config, monkeypatch, search=True)
    assert search_pending(dataclasses.replace(config, search=True))


def test_a_short_lived_process_leaves_the_site_model_to_its_exit_and_a_long_lived_one_frees_it(site):
    import weakref

    from pipeline.runtime import lifespan
    from pipeline.site.model import Model

    config, _ = site
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    try:
        lifespan.short_lived()
        build_site(config)
        [model] = [value for values in lifespan._until_exit for value in values if isinstance(value, Model)]
        left = weakref.ref(model)
        del model
        assert left() is not None and "beta.md" in {page.path for page in left().articles}  # held: the exit drops it
    finally:
        lifespan.long_lived()
    assert left() is None
