"""Where pages live: one function decides each article's URL, for links and for files alike."""

import pytest

from pipeline import urls
from pipeline.urls import article_url, href, leaves_site


@pytest.mark.parametrize(
    "path, slug, lang, url",
    [
        ("setup.md", "setup", "en", "setup/"),  # a root file
        ("guides/setup.md", "install", "en", "guides/install/"),  # the slug names the page, the folder its place
        ("Guides/Set Up/First Steps.md", "First Steps", "en", "guides/set-up/first-steps/"),  # each part slugged
        ("guides/setup.es.md", "setup", "es", "es/guides/setup/"),  # another language under its code
        ("guides/_index.md", "guides-home", "en", "guides/"),  # a folder's page, whatever its slug
        ("guides/index.es.md", "indice", "es", "es/guides/"),
        ("_index.md", "home", "en", ""),  # the root's page
        ("guides/about.md", "index", "en", "guides/"),  # a slug naming the folder's page
        ("🗂️ Index.md", "index", "en", "index/"),  # a name that only slugs to `index`: a page of its own
        ("Guides/Index.es.md", "index", "es", "es/guides/index/"),
    ],
)
def test_an_articles_url_is_its_folder_then_its_slug(path, slug, lang, url):
    assert article_url(path, slug, lang, "en") == url


def test_articles_of_one_folder_share_its_url_whatever_was_asked_before():
    """Each folder's URL is made once and reused: a root page asked first does not change a nested one's."""
    assert article_url("a.md", "a", "en", "en") == "a/"
    assert article_url("deep/er/b.md", "b", "en", "en") == "deep/er/b/"
    assert article_url("deep/er/c.md", "c", "fr", "en") == "fr/deep/er/c/"
    assert article_url("deep/d.md", "d", "en", "en") == "deep/d/"


@pytest.mark.parametrize(
    "url, link",
    [
        ("guides/setup/", "/docs/guides/setup/"),  # a page of the site
        ("", "/docs/"),
        ("https://example.org/a?b#c", "https://example.org/a?b#c"),  # http, https and mailto leave the site
        ("HTTP://example.org", "HTTP://example.org"),
        ("mailto:someone@example.org", "mailto:someone@example.org"),
        ("javascript://%0aalert(document.domain)//", "/docs/javascript://%0aalert(document.domain)//"),
        ("JavaScript:alert(1)", "/docs/JavaScript:alert(1)"),
        (" java\tscript:alert(1)", "/docs/java\tscript:alert(1)"),  # a browser drops the tab and the space
        ("data:text/html,x", "/docs/data:text/html,x"),
        ("ftp://example.org/", "/docs/ftp://example.org/"),
        ("//evil.example/", "/docs/evil.example/"),  # a path never names another host
        ("/\\evil.example/", "/docs/evil.example/"),
        ("\t//evil.example/", "/docs/evil.example/"),
    ],
)
def test_only_http_https_and_mailto_leave_the_site_everything_else_is_a_site_path(url, link):
    assert href(url, "/docs/") == link


def test_a_redirect_may_leave_only_by_http_or_https():
    assert leaves_site(" https://example.org", ("http", "https"))
    assert not leaves_site("mailto:a@example.org", ("http", "https"))
    assert not leaves_site("javascript://x", ("http", "https"))


@pytest.mark.parametrize("path, lang, url", [
    ("es/Bases/Vistas.md", "es", "es/bases/vistas/"),  # a language's folder is not repeated
    ("en/Home.md", "en", "home/"),  # the default language's folder is the site's root
    ("es/Home.md", "en", "es/home/"),  # a folder named as another language is a folder
    ("ES/Notas.md", "es", "es/notas/"),
])  # fmt: skip
def test_a_top_folder_named_as_the_pages_language_is_its_part_of_the_site(path, lang, url):
    stem = path.rsplit("/", 1)[1][:-3]
    assert urls.article_url(path, stem, lang, "en") == url


@pytest.mark.parametrize("target, named", [
    ("photo.png", True), ("docs/Guide v2.PDF", True), ("archive.tar.gz", True), ("note.md", False),
    ("Why do links break‽", False), ("v1.2 release notes", False), ("folder/", False), (".hidden", False),
])  # fmt: skip
def test_a_target_with_an_extension_other_than_markdown_names_an_attachment(target, named):
    assert urls.is_attachment(target) is named
    assert urls.attachment_url("assets/Logo (dark).svg") == "assets/Logo%20%28dark%29.svg"


@pytest.mark.parametrize("url, shown", [
    ("setup.md", "setup.md"), ("#part", "#part"), ("/guides/", "/guides/"),  # on the site: as written
    ("https://example.org/x", "https://example.org/x"), ("mailto:a@example.org", "mailto:a@example.org"),
    ("ftp://example.org/f", "/docs/ftp://example.org/f"), ("irc://example.org/c", "/docs/irc://example.org/c"),
    ("//evil.example/x", "/docs/evil.example/x"), ("\\\\evil.example/x", "/docs/evil.example/x"),
    ("data:image/png;base64,AAAA", "/docs/data:image/png;base64,AAAA"),
])  # fmt: skip
def test_a_content_link_to_no_page_leaves_the_site_only_by_http_https_or_mailto(url, shown):
    assert urls.content_href(url, "/docs/") == shown

