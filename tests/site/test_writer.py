"""The site writer: only changed bytes are written, stale files removed, nothing outside the output folder."""

from __future__ import annotations

import pytest

from pipeline.site.writer import SiteWriter


def test_writes_changed_files_only_and_removes_what_the_last_build_wrote_but_this_one_did_not(tmp_path):
    out, manifest = tmp_path / "site", tmp_path / "state" / "manifest.json"
    first = SiteWriter(out, manifest)
    first.put("a/index.html", b"one")
    first.put("b/deep/index.html", b"two")
    first.finish()
    second = SiteWriter(out, manifest)
    second.put("a/index.html", b"one")
    second.put("c/index.html", b"three")
    report = second.finish()
    assert report.written == ["c/index.html"] and report.unchanged == 1
    assert report.removed == ["b/deep/index.html"] and not (out / "b").exists()
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()) == ["a/index.html", "c/index.html"]


@pytest.mark.parametrize("rel", ["../escape.html", "a/../../escape.html", "/etc/passwd", ""])
def test_refuses_paths_that_leave_the_output_folder(tmp_path, rel):
    with pytest.raises(ValueError, match="outside the output folder"):
        SiteWriter(tmp_path / "site", tmp_path / "manifest.json").put(rel, b"x")
    assert not (tmp_path / "escape.html").exists()
