"""A build after the site's settings changed (base URL, site name) gives, file for file, the site a clean
build with those settings gives: nothing cached (compiled templates, page keys) keeps the old ones."""

from __future__ import annotations

import dataclasses

import pytest

from pipeline.build import build
from pipeline.urls import normalize_base
from tests.conftest import folder_hashes
from tests.site.helpers import SITE, without_shortcuts


def _built(config, **settings):
    config = dataclasses.replace(config, search=False, **settings)
    build(config, workers=1, site=True)
    return config


def _assert_clean(config, root) -> None:
    clean = without_shortcuts(config, root)
    build(clean, workers=1, site=True, reuse=False)
    assert folder_hashes(config.out_dir) == folder_hashes(clean.out_dir)


@pytest.mark.slow
def test_alternating_base_urls_give_each_time_the_site_of_a_clean_build(make_wiki, tmp_path):
    config = make_wiki(SITE)
    for number, base_url in enumerate(["/docs/", "/", "docs", "/docs/", "https://example.org/wiki/", "/"]):
        built = _built(config, base_url=base_url)
        _assert_clean(built, tmp_path / f"clean-{number}")
        expected = normalize_base(base_url)
        assert f'href="{expected}assets/wiki.css"' in (config.out_dir / "index.html").read_text(), base_url


@pytest.mark.slow
def test_a_changed_site_name_gives_the_site_of_a_clean_build(make_wiki, tmp_path):
    config = make_wiki(SITE)
    for number, name in enumerate(["First Wiki", "Second & Wiki", "First Wiki"]):
        built = _built(config, site_name=name)
        _assert_clean(built, tmp_path / f"clean-{number}")
        assert name.replace("&", "&amp;") in (config.out_dir / "beta" / "index.html").read_text()


@pytest.mark.parametrize(
    "given, normal",
    [("docs", "/docs/"), ("docs/", "/docs/"), ("/docs", "/docs/"), ("/", "/"), ("", "/"), (" /a/b ", "/a/b/"),
     ("https://example.org/x", "https://example.org/x/")],
)  # fmt: skip
def test_a_base_url_is_a_path_from_the_root_ending_with_a_slash(given, normal):
    assert normalize_base(given) == normal


def test_a_base_url_without_slashes_builds_the_site_of_the_same_with_them(make_wiki, tmp_path):
    config = make_wiki(SITE)
    plain = _built(config, base_url="docs")
    slashed = _built(dataclasses.replace(config, out_dir=tmp_path / "slashed"), base_url="/docs/")
    assert folder_hashes(plain.out_dir) == folder_hashes(slashed.out_dir)
    assert 'href="/docs/beta/"' in (plain.out_dir / "alpha" / "index.html").read_text()
