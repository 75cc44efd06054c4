"""Tag pages: one per tag of each language (frontmatter `tags:` and inline `#tags`), a tag index, and both kept
current by an edit as a full build makes them."""

from __future__ import annotations

import pytest

from pipeline.build import build
from tests.conftest import folder_hashes
from tests.site.helpers import build_site, read, without_shortcuts

def main(out, rel: str) -> str:
    """The page's own part (not the navigation, which lists every page)."""
    return read(out, rel).partition('<main id="content"')[2].partition("</main>")[0]


TAGGED = {
    "alpha.md": "---\ntitle: Alpha\ntags: [Help, news]\n---\n\nAlpha is #help/start and #news.\n",
    "beta.md": "---\ntitle: Beta\ntags: help\n---\n\nBeta is #Help once.\n",
    "gamma.md": "---\ntitle: Gamma\n---\n\nGamma is #news too.\n",
    "alpha.es.md": "---\ntitle: Alfa\ntags: [noticias]\n---\n\nAlfa.\n",
    "tags/news.md": "---\ntitle: News about tags\n---\n\nAn article whose URL a tag page would have.\n",
}


def test_each_tag_has_a_page_listing_its_pages_in_its_language(make_wiki):
    config = make_wiki(TAGGED, search=False)
    build_site(config)
    out = config.out_dir
    help_page = main(out, "tags/help/index.html")  # `Help` and `help` share a page, named as first written
    assert "<h1>Tag: Help</h1>" in help_page and ">Alpha</a>" in help_page
    assert help_page.count(">Beta</a>") == 1  # tagged `help` and `#Help`: listed once
    nested = main(out, "tags/help/start/index.html")
    assert ">Alpha</a>" in nested and ">Beta</a>" not in nested
    assert "<h1>Etiqueta: noticias</h1>" in read(out, "es/tags/noticias/index.html")
    assert not (out / "es" / "tags" / "help").exists()
    # An article keeps its URL: the tag `news` gets no page of its own there.
    assert "News about tags" in main(out, "tags/news/index.html")
    index = read(out, "tags/index.html")
    assert 'href="/tags/help/">#Help</a> <span class="count">(2)</span>' in index
    assert 'href="/tags/help/start/">#help/start</a>' in index
    assert 'href="/es/tags/noticias/"' in read(out, "es/tags/index.html")


def test_a_nested_tags_pages_are_its_parents_too(make_wiki):
    config = make_wiki({"a.md": "# A\n\nFiled under #work/projects/alpha.\n", "b.md": "# B\n\nJust #work.\n"})
    build_site(config)
    work, projects = main(config.out_dir, "tags/work/index.html"), main(config.out_dir, "tags/work/projects/index.html")
    assert ">A</a>" in work and ">B</a>" in work  # `#work` finds `#work/projects/alpha`, as in Obsidian
    assert ">A</a>" in projects and ">B</a>" not in projects
    index = read(config.out_dir, "tags/index.html")
    assert 'href="/tags/work/">#work</a> <span class="count">(2)</span>' in index
    assert 'href="/tags/work/projects/alpha/">#work/projects/alpha</a> <span class="count">(1)</span>' in index


def test_an_inline_tag_and_the_article_footer_link_to_existing_tag_pages(make_wiki):
    config = make_wiki(TAGGED, search=False)
    build_site(config)
    alpha = read(config.out_dir, "alpha/index.html")
    assert '<a class="tag" href="/tags/help/start/">#help/start</a>' in alpha  # in the body
    assert 'class="taglinks"' in alpha and 'href="/tags/news/" rel="tag">#news</a>' in alpha
    assert (config.out_dir / "tags" / "help" / "start" / "index.html").is_file()
    assert 'class="taglinks"' not in read(config.out_dir, "tags/news/index.html")


@pytest.mark.slow
def test_a_tag_taken_or_dropped_by_an_edit_updates_its_page_as_a_full_build_does(make_wiki, tmp_path):
    config = make_wiki(TAGGED, search=False)
    build_site(config)
    steps = [
        ("gamma.md", "---\ntitle: Gamma\ntags: [help]\n---\n\nGamma is #news too.\n"),  # takes an existing tag
        ("alpha.md", "---\ntitle: Alpha\ntags: [Help]\n---\n\nAlpha is #help/start.\n"),  # drops one, kept by gamma
        ("beta.md", "---\ntitle: Beta\n---\n\nBeta has no tag now: #brand-new.\n"),  # a new tag
        ("alpha.md", "---\ntitle: Alpha\n---\n\nAlpha has none.\n"),  # `help/start` is gone
    ]
    for number, (path, text) in enumerate(steps):
        (config.content_dir / path).write_text(text, encoding="utf-8")
        report = build_site(config)
        full = without_shortcuts(config, tmp_path / f"full-{number}")
        build(full, workers=1, site=True, reuse=False)
        assert folder_hashes(config.out_dir) == folder_hashes(full.out_dir), f"after step {number}"
        if number == 0:  # gamma's page and help's, with the index's count; not the other tags'
            assert {"tags/help/index.html", "tags/index.html", "gamma/index.html"} <= set(report.site.written)
            assert "tags/help/start/index.html" not in report.site.written
    assert ">Gamma</a>" in main(config.out_dir, "tags/help/index.html")
    assert (config.out_dir / "tags" / "brand-new" / "index.html").is_file()
    assert not (config.out_dir / "tags" / "help" / "start").exists()


def test_a_wiki_without_tags_has_no_tag_pages(make_wiki):
    config = make_wiki({"a.md": "---\ntitle: A\n---\n\nNo tags; a colour #fff is none.\n"})
    report = build_site(config)
    assert not (config.out_dir / "tags").exists() and report.site.pages > 0
