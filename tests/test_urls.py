"""Where pages live: one function decides each article's URL, for links and for files alike."""

import pytest

from pipeline.urls import article_url


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
