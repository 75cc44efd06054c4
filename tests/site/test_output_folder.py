"""Which output folder a build may write: never the content or state folder, `/` or home; a folder
holding files pipeline did not write only with `force`; its marker, and a folder an older version wrote."""

from __future__ import annotations

import dataclasses

import pytest

from pipeline.build import build
from pipeline.errors import UserError
from pipeline.site.writer import MARKER
from tests.conftest import folder_hashes
from tests.site.helpers import SITE


def building(config, **options):
    return build(dataclasses.replace(config, search=False), workers=1, site=True, **options)


@pytest.mark.parametrize(
    "out, says",
    [
        (lambda c: c.content_dir, "is the content folder"),
        (lambda c: c.content_dir / "site", "is inside the content folder"),
        (lambda c: c.content_dir.parent, "holds the content folder"),
        (lambda c: c.state_dir, "is the state folder"),
        (lambda c: c.state_dir / "site", "is inside the state folder"),
    ],
)  # fmt: skip
def test_the_content_and_state_folders_are_never_the_output_nor_hold_it_nor_lie_in_it(make_wiki, out, says):
    config = make_wiki(SITE)
    config.state_dir.mkdir()
    (config.state_dir / "kept").write_text("state")
    before = folder_hashes(config.content_dir.parent)
    with pytest.raises(UserError, match=says):
        building(dataclasses.replace(config, out_dir=out(config)), force=True)  # forced, still refused
    assert folder_hashes(config.content_dir.parent) == before  # nothing written anywhere


def test_a_symlink_to_the_content_folder_is_the_content_folder(make_wiki, tmp_path):
    config = make_wiki(SITE)
    (tmp_path / "link").symlink_to(config.content_dir)
    with pytest.raises(UserError, match="is the content folder"):
        building(dataclasses.replace(config, out_dir=tmp_path / "link"))


def test_the_root_and_home_folders_are_refused(make_wiki, tmp_path, monkeypatch):
    config = make_wiki(SITE)
    with pytest.raises(UserError, match="root folder"):
        building(dataclasses.replace(config, out_dir=tmp_path / ".." / ".." / ".." / ".." / ".." / ".." / ".."))
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    (tmp_path / "home").mkdir()
    with pytest.raises(UserError, match="home folder"):
        building(dataclasses.replace(config, out_dir=tmp_path / "home"), force=True)
    assert list((tmp_path / "home").iterdir()) == []


def test_a_folder_holding_files_pipeline_did_not_write_is_refused_unless_forced(make_wiki, tmp_path):
    config = make_wiki(SITE)
    (config.out_dir / "notes").mkdir(parents=True)
    (config.out_dir / "notes" / "mine.txt").write_text("mine")
    with pytest.raises(UserError, match=f"pipeline did not write .*{MARKER}.*--force"):
        building(config)
    assert not (config.state_dir / "state.db").exists()  # refused before anything was captured
    building(config, force=True)
    assert (config.out_dir / MARKER).is_file() and (config.out_dir / "alpha" / "index.html").is_file()
    assert (config.out_dir / "notes" / "mine.txt").read_text() == "mine"  # never pipeline's to remove
    (config.content_dir / "beta.md").write_text(SITE["beta.md"] + "\nMore.\n")
    assert "beta/index.html" in building(config).site.written  # marked: no --force needed again


def test_an_empty_or_missing_folder_is_written_and_marked(make_wiki):
    config = make_wiki(SITE)
    config.out_dir.mkdir()
    building(config)
    assert (config.out_dir / MARKER).read_text().startswith("This folder is the output of `pipeline build`")


def test_a_folder_an_older_version_wrote_without_a_marker_is_still_pipelines(make_wiki):
    config = make_wiki(SITE)
    building(config)
    (config.out_dir / MARKER).unlink()  # as an older version left it: only the state's manifest names it
    (config.content_dir / "beta.md").write_text(SITE["beta.md"] + "\nMore.\n")
    assert "beta/index.html" in building(config).site.written
    assert (config.out_dir / MARKER).is_file()


def test_another_state_s_unmarked_site_is_not_this_state_s(make_wiki, tmp_path):
    config = make_wiki(SITE)
    building(config)
    (config.out_dir / MARKER).unlink()
    with pytest.raises(UserError, match="pipeline did not write"):
        building(dataclasses.replace(config, state_dir=tmp_path / "other-state"))
