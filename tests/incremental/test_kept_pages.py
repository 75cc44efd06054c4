"""The last builds' files kept in the state folder: an emptied output folder (a CI job restoring only the state
folder) gets them back byte for byte, without rendering; an entry is whole, never changed, and goes with its file."""

from __future__ import annotations

import dataclasses
import errno
import os
import shutil

import pytest

from pipeline.build import build
from pipeline.commands.build import summary_line
from pipeline.incremental.kept_pages import KEPT_PAGES, KeptPages
from pipeline.site import MANIFEST, parallel
from pipeline.site.writer import journal_file
from tests.conftest import folder_hashes
from tests.site.helpers import SITE, assert_same_as_a_full_render, build_site, rendered, site  # noqa: F401 (fixtures)


def _kept(config) -> dict[str, bytes]:
    root = config.state_dir / KEPT_PAGES
    return {path.name: path.read_bytes() for path in root.rglob("*") if path.is_file()}


def _edit_beta(config) -> None:
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")


def test_an_emptied_output_folder_is_put_back_whole_and_nothing_is_rendered(site, rendered):
    config, _ = site
    before = folder_hashes(config.out_dir)
    shutil.rmtree(config.out_dir)
    rendered.clear()
    report = build_site(config)
    assert folder_hashes(config.out_dir) == before  # byte for byte, the wiki pages and assets too
    assert rendered == [] and report.site.put_back == report.site.files == len(before) - 1  # but the folder's marker
    assert f"({report.site.files} put back from the state folder)" in summary_line(report)


def test_after_an_edit_an_emptied_folder_renders_only_what_the_edit_changes(site, rendered, monkeypatch):
    config, _ = site
    _edit_beta(config)
    shutil.rmtree(config.out_dir)
    rendered.clear()
    report = build_site(config)
    assert "beta/" in rendered and "alpha/" not in rendered and "alpha/history/" not in rendered
    assert "beta/index.html" in report.site.written and report.site.unchanged > 0  # an edit build, after all
    assert_same_as_a_full_render(config, monkeypatch)


def test_a_kept_page_is_a_hard_link_of_the_file_written_and_stays_whole_when_the_page_changes(site):
    config, _ = site
    page = config.out_dir / "beta" / "index.html"
    kept_before = _kept(config)
    assert page.read_bytes() in kept_before.values() and page.stat().st_nlink == 2
    _edit_beta(config)
    build_site(config)
    kept_after = _kept(config)
    assert "Edited." in page.read_text(encoding="utf-8") and page.read_bytes() in kept_after.values()
    assert all(b"Edited." not in data for name, data in kept_before.items() if name in kept_after)  # never rewritten
    assert len(kept_after) == len(kept_before)  # the replaced files' entries went with them


def test_a_page_whose_kept_file_is_gone_is_rendered_and_the_others_linked_back_by_the_render(site, rendered):
    config, _ = site
    before = folder_hashes(config.out_dir)
    page = (config.out_dir / "alpha" / "index.html").read_bytes()
    for path in (config.state_dir / KEPT_PAGES).rglob("*"):
        if path.is_file() and path.read_bytes() == page:
            path.unlink()
    shutil.rmtree(config.out_dir)
    rendered.clear()
    report = build_site(config)
    assert folder_hashes(config.out_dir) == before
    assert "alpha/" in rendered and "beta/" not in rendered and report.site.from_kept > 0


def test_after_a_stopped_build_nothing_is_put_back_before_the_render(site, rendered):
    config, _ = site
    before = folder_hashes(config.out_dir)
    shutil.rmtree(config.out_dir)
    journal = journal_file(config.state_dir / MANIFEST)
    journal.write_text(f"{config.out_dir.resolve()}\nalpha/index.html\n", encoding="utf-8")  # as a stopped build leaves
    rendered.clear()
    build_site(config)
    assert folder_hashes(config.out_dir) == before
    # Not put back before the render: what the stopped build may have left is not known. The wiki pages are
    # rendered again; an article's page comes back from its entry, named by the digest of what it is made of now.
    assert "special/all/" in rendered and "alpha/" not in rendered


@pytest.mark.parametrize("where", ["keeping", "putting back"])
def test_where_no_hard_link_can_be_made_the_files_are_copied(site, rendered, monkeypatch, where):
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
    build_site(config)
    assert folder_hashes(config.out_dir) == before
    assert ("beta/" in rendered) == (where == "keeping")
    assert (config.out_dir / "beta" / "index.html").stat().st_nlink == 1
    assert (config.out_dir / "beta" / "index.html").read_bytes() in _kept(config).values()


def test_the_files_render_processes_write_are_kept_and_put_back(site, monkeypatch):
    config, _ = site
    monkeypatch.setattr(parallel, "MIN_PAGES_PER_PROCESS", 1)  # the tiny wiki's pages dealt to two processes
    monkeypatch.setattr(parallel, "CHUNK", 2)
    shutil.rmtree(config.out_dir)
    shutil.rmtree(config.state_dir)
    build(dataclasses.replace(config, search=False), workers=2, site=True)  # every page rendered, by both
    before = folder_hashes(config.out_dir)
    shutil.rmtree(config.out_dir)
    again = build(dataclasses.replace(config, search=False), workers=2, site=True)
    assert again.process.skipped and folder_hashes(config.out_dir) == before  # every file put back before the build


def test_a_folder_that_cannot_be_put_back_is_rendered_again(site, rendered, monkeypatch):
    config, _ = site
    before = folder_hashes(config.out_dir)
    shutil.rmtree(config.out_dir)

    def failing(self, *args):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(KeptPages, "restore", failing)
    rendered.clear()
    build_site(config)
    assert folder_hashes(config.out_dir) == before and "special/all/" in rendered
