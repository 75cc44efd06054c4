"""Rendered pages kept by digest: an emptied output folder (a CI job restoring only the state folder) is filled
from them, byte for byte, without rendering; an entry is whole, never changed, and goes with its page."""

from __future__ import annotations

import errno
import os
import shutil

import pytest

from pipeline.incremental.kept_pages import KEPT_PAGES
from tests.conftest import folder_hashes
from tests.site.helpers import SITE, build_site, rendered, site  # noqa: F401 (fixtures)


def _kept(config) -> dict[str, bytes]:
    root = config.state_dir / KEPT_PAGES
    return {path.name: path.read_bytes() for path in root.rglob("*") if path.is_file()}


def _emptied_and_built(config) -> object:
    shutil.rmtree(config.out_dir)
    return build_site(config)


def test_an_emptied_output_folder_gets_every_article_page_back_without_rendering_it(site, rendered):
    config, first = site
    before = folder_hashes(config.out_dir)
    rendered.clear()
    report = _emptied_and_built(config)
    assert folder_hashes(config.out_dir) == before  # byte for byte
    assert rendered and not [url for url in rendered if url.endswith("history/") or url in ("alpha/", "beta/")]
    assert report.site.from_kept == len(_kept(config)) > 0  # every kept page, put back
    assert len(report.site.written) == first.site.files


def test_a_kept_page_is_a_hard_link_of_the_file_written_and_stays_whole_when_the_page_changes(site):
    config, _ = site
    page = config.out_dir / "beta" / "index.html"
    kept_before = _kept(config)
    assert page.read_bytes() in kept_before.values() and page.stat().st_nlink == 2
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    build_site(config)
    kept_after = _kept(config)
    assert "Edited." in page.read_text(encoding="utf-8") and page.read_bytes() in kept_after.values()
    assert all(b"Edited." not in data for name, data in kept_before.items() if name in kept_after)  # never rewritten
    assert len(kept_after) == len(kept_before)  # the replaced page's entry went with it


def test_after_an_edit_an_emptied_folder_is_what_a_full_render_makes(site, rendered):
    config, _ = site
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    build_site(config)
    edited = folder_hashes(config.out_dir)
    rendered.clear()
    _emptied_and_built(config)
    assert folder_hashes(config.out_dir) == edited
    assert rendered and "beta/" not in rendered


def test_a_kept_page_that_is_gone_is_rendered_again(site, rendered):
    config, _ = site
    page = (config.out_dir / "alpha" / "index.html").read_bytes()
    for path in (config.state_dir / KEPT_PAGES).rglob("*"):
        if path.is_file() and path.read_bytes() == page:
            path.unlink()
    rendered.clear()
    _emptied_and_built(config)
    assert rendered.count("alpha/") == 1 and (config.out_dir / "alpha" / "index.html").read_bytes() == page


@pytest.mark.parametrize("where", ["keeping", "putting back"])
def test_where_no_hard_link_can_be_made_the_pages_are_copied(site, rendered, monkeypatch, where):
    config, _ = site
    before = folder_hashes(config.out_dir)
    if where == "keeping":
        shutil.rmtree(config.state_dir / KEPT_PAGES)
        shutil.rmtree(config.out_dir)
    link = os.link

    def cross_device(source, target, *args, **kwargs):
        if KEPT_PAGES in str(source) + str(target):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return link(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "link", cross_device)
    rendered.clear()
    _emptied_and_built(config) if where == "putting back" else build_site(config)
    assert folder_hashes(config.out_dir) == before
    assert ("beta/" in rendered) == (where == "keeping")
    assert (config.out_dir / "beta" / "index.html").stat().st_nlink == 1
    assert (config.out_dir / "beta" / "index.html").read_bytes() in _kept(config).values()
