"""Two articles whose URLs would be one: both are published, the second (by path) at a numbered URL, with a warning;
links, the pages and an edit build agree with a full build."""

from __future__ import annotations

import re

from tests.site.helpers import assert_same_as_a_full_render, build_site, read

LINKER = "---\ntitle: Linker\n---\nSee [[C]] and [[C++]].\n"


def links_of(config) -> list[str]:
    return re.findall(r'<a href="(/[^"]*)" class="(?:wikilink[^"]*|new)"', read(config.out_dir, "linker/index.html"))


def test_a_second_article_at_an_articles_url_is_published_numbered_and_an_edit_build_follows(make_wiki, monkeypatch):
    config = make_wiki({"C.md": "---\ntitle: C\n---\nThe C language.\n", "linker.md": LINKER})
    build_site(config)
    assert links_of(config) == ["/c/", "/special/wanted/#wanted-c"]
    (config.content_dir / "C++.md").write_text("---\ntitle: C++\n---\nThe C++ language.\n", encoding="utf-8")
    report = build_site(config)
    # `C++.md` sorts first: it keeps `c/`, and `C.md` moves to `c-2/`, the links to it with it.
    assert report.site.conflicts == ["C.md: its URL /c/ is also C++.md's: it is published at /c-2/"]
    assert "<h1>C++</h1>" in read(config.out_dir, "c/index.html")
    assert "<h1>C</h1>" in read(config.out_dir, "c-2/index.html")
    assert links_of(config) == ["/c-2/", "/c/"]
    assert_same_as_a_full_render(config, monkeypatch)
    (config.content_dir / "C++.md").unlink()
    report = build_site(config)
    assert report.site.conflicts == [] and not (config.out_dir / "c-2").exists()
    assert links_of(config) == ["/c/", "/special/wanted/#wanted-c"]
    assert "<h1>C</h1>" in read(config.out_dir, "c/index.html")
    assert_same_as_a_full_render(config, monkeypatch)


def test_a_numbered_url_skips_one_an_article_has():
    from pipeline.urls import shared_urls

    urls = {"C.md": "c/", "C++.md": "c/", "c 2.md": "c-2/", "d.md": "d/", "C#.md": "c/"}
    assert shared_urls(urls) == {"C.md": ("c-4/", "C#.md"), "C++.md": ("c-3/", "C#.md")}
    assert shared_urls({"a.md": "a/", "b.md": "b/"}) == {}
