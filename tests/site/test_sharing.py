"""Sharing: canonical, OpenGraph and Twitter card meta (absolute under `site_url`), "Edit this page" from `repo_url`
and `edit_uri`, and the hover previews' `preview.json` beside each article page."""

from __future__ import annotations

import json

import pytest

from pipeline.config import load_config
from pipeline.errors import ConfigError
from pipeline.site.sharing import edit_url
from tests.site.helpers import SITE, build_site, read

FILES = {**SITE, "guides/set up.md": "---\ntitle: Set up\n---\n\nFirst *paragraph* &amp; more.\n\nSecond.\n"}


def test_without_site_url_pages_name_their_paths_and_share_their_title_and_description(make_wiki):
    config = make_wiki(FILES, search=False)
    build_site(config)
    alpha = read(config.out_dir, "alpha/index.html")
    assert '<link rel="canonical" href="/alpha/">' in alpha
    assert '<meta property="og:title" content="Alpha">' in alpha
    assert '<meta property="og:description" content="The first page.">' in alpha
    assert '<meta property="og:type" content="article">' in alpha
    assert '<meta property="og:locale" content="en">' in alpha
    assert '<meta property="og:locale:alternate" content="es">' in alpha  # its translation's
    assert '<meta name="twitter:card" content="summary">' in alpha
    assert 'og:locale:alternate' not in read(config.out_dir, "beta/index.html")  # no translation
    evil = read(config.out_dir, "evil/index.html")
    assert '<meta property="og:title" content="&lt;script&gt;alert(1)&lt;/script&gt;">' in evil
    assert '<meta property="og:type" content="website">' in read(config.out_dir, "special/all/index.html")
    assert "Edit this page" not in alpha  # no edit_uri


def test_site_url_makes_canonical_alternate_and_og_urls_absolute(make_wiki):
    config = make_wiki(FILES, search=False, site_url="https://wiki.example.org/docs")
    build_site(config)
    alpha = read(config.out_dir, "es/alpha/index.html")
    assert '<link rel="canonical" href="https://wiki.example.org/docs/es/alpha/">' in alpha
    assert '<link rel="alternate" hreflang="en" href="https://wiki.example.org/docs/alpha/">' in alpha
    assert '<meta property="og:url" content="https://wiki.example.org/docs/es/alpha/">' in alpha
    assert '<meta property="og:locale" content="es">' in alpha
    assert 'href="/alpha/"' not in alpha.partition("</head>")[0]  # every URL of the head is absolute
    assert '<a href="/es/' in alpha  # links inside the site stay paths of it


def test_edit_this_page_links_to_the_article_source(make_wiki):
    config = make_wiki(FILES, search=False, repo_url="https://github.com/owner/wiki", edit_uri="edit/main/content")
    build_site(config)
    alpha = read(config.out_dir, "alpha/index.html")
    edit = '<a href="https://github.com/owner/wiki/edit/main/content/alpha.md" rel="nofollow">Edit this page</a>'
    assert edit in alpha
    assert 'href="https://github.com/owner/wiki/edit/main/content/guides/set%20up.md"' in read(
        config.out_dir, "guides/set-up/index.html")  # fmt: skip
    assert "Editar esta página" in read(config.out_dir, "es/alpha/index.html")
    assert "Edit this page" not in read(config.out_dir, "special/all/index.html")


@pytest.mark.parametrize("repo, uri, expected", [
    ("https://github.com/o/r", "edit/main/docs/", "https://github.com/o/r/edit/main/docs/"),
    ("https://github.com/o/r/", "/edit/main/docs", "https://github.com/o/r/edit/main/docs/"),
    (None, "https://gitlab.example/o/r/-/edit/main/", "https://gitlab.example/o/r/-/edit/main/"),
    ("https://example.org/r", "src/?mode=edit&path=", "https://example.org/r/src/?mode=edit&path="),
    ("https://github.com/o/r", None, ""), (None, "edit/main/", ""),
])  # fmt: skip
def test_edit_url_is_edit_uri_absolute_or_below_repo_url_as_mkdocs_has_it(repo, uri, expected):
    assert edit_url(repo, uri) == expected


@pytest.mark.parametrize("line", [
    "site_url: javascript:alert(1)", "site_url: /docs/", "repo_url: ftp://example.org/r", "edit_uri: javascript:x",
    "edit_uri: data:text/html,x",
])  # fmt: skip
def test_urls_that_are_not_http_are_refused_naming_the_option(tmp_path, line):
    (tmp_path / "wiki.yaml").write_text(line + "\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=rf"wiki.yaml: {line.split(':')[0]}: expected an http"):
        load_config(tmp_path / "wiki.yaml")


def test_each_article_has_a_preview_of_its_title_description_and_first_paragraph(make_wiki):
    config = make_wiki(FILES, search=False)
    first = build_site(config)
    preview = json.loads(read(config.out_dir, "guides/set-up/preview.json"))
    assert preview == {"title": "Set up", "description": "", "lead": "First paragraph & more."}
    alpha = json.loads(read(config.out_dir, "alpha/preview.json"))
    assert alpha["description"] == "The first page." and alpha["lead"].startswith("Alpha links to beta")
    raw = read(config.out_dir, "evil/preview.json")
    assert "<" not in raw and json.loads(raw)["title"] == "<script>alert(1)</script>"
    assert "assets/preview.js" in read(config.out_dir, "alpha/index.html")
    assert first.site.pages + first.site.redirects == len(list(config.out_dir.rglob("*.html")))  # a preview is no page
    # An edit of a later paragraph leaves the preview as it is; one of the first writes it again.
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Other."), encoding="utf-8")
    second = build_site(config)
    assert "beta/index.html" in second.site.written and "beta/preview.json" not in second.site.written
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("links back", "points"), encoding="utf-8")
    assert "beta/preview.json" in build_site(config).site.written
    assert json.loads(read(config.out_dir, "beta/preview.json"))["lead"] == "Beta points to alpha."


def test_a_preview_removed_from_the_output_folder_is_written_again(make_wiki):
    config = make_wiki(FILES, search=False)
    build_site(config)
    (config.out_dir / "alpha" / "preview.json").unlink()
    (config.content_dir / "beta.md").write_text(SITE["beta.md"] + "\nMore.\n", encoding="utf-8")
    build_site(config)
    assert json.loads(read(config.out_dir, "alpha/preview.json"))["title"] == "Alpha"


@pytest.mark.parametrize("markup", [
    "short &amp; <em>plain</em>",
    "word " * 400,  # long: read from its start
    "x" * 1190 + '<a href="' + "y" * 900 + '">link</a> ' + "z " * 200,  # a tag cut at the start's end
    "<b>" + "&amp; " * 300 + "</b>",
    "a " * 149 + "<span>" + "b" * 2000 + "</span>",  # little text in a long start: whole
    "c" * 1180 + "&CounterClockwiseContourIntegral; " + "d " * 100,  # an entity cut at the start's end
    "e " * 165 + "&amp;" * 200,
    "<i></i>" * 128 + "g" * 290 + "&CounterClockwiseContourIntegral;" + "h" * 400,  # cut entity within the lead
], ids=["short", "long", "cut-tag", "entities", "little-text", "cut-entity", "text-then-entities", "cut-entity-near"])
def test_a_preview_lead_read_from_its_start_is_the_lead_of_the_whole_paragraph(markup):
    from pipeline.site.emitters.articles import LEAD_LENGTH, _text, lead

    whole = _text(markup)
    expected = whole if len(whole) <= LEAD_LENGTH else whole[: LEAD_LENGTH - 1].rstrip() + "…"
    assert lead(markup) == expected and len(lead(markup)) <= LEAD_LENGTH
