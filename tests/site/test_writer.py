"""The site writer: only changed bytes are written, stale files removed, nothing outside the output folder."""

from __future__ import annotations

import pytest

from pipeline.site.writer import MARKER, SiteWriter, journal_file, journaled_files, last_render, missing_files


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
    assert _files(out) == ["a/index.html", "c/index.html"]
    assert (out / MARKER).is_file()  # never a file of the site: no build removes it


def _files(out) -> list[str]:
    """The site's files (not the marker the writer leaves beside them)."""
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file() and p.name != MARKER)


@pytest.mark.parametrize("rel", ["../escape.html", "a/../../escape.html", "/etc/passwd", ""])
def test_refuses_paths_that_leave_the_output_folder(tmp_path, rel):
    with pytest.raises(ValueError, match="outside the output folder"):
        SiteWriter(tmp_path / "site", tmp_path / "manifest.json").put(rel, b"x")
    assert not (tmp_path / "escape.html").exists()


def test_the_pages_a_stopped_build_wrote_lose_their_keys_and_the_state_is_not_used(tmp_path):
    out, manifest = tmp_path / "site", tmp_path / "state" / "manifest.json"
    first = SiteWriter(out, manifest)
    first.put("a/index.html", b"one")
    first.put("b/index.html", b"two")
    first.finish({"a/index.html": "ka", "b/index.html": "kb"}, {"shared": "s"})
    last = last_render(manifest, out)
    assert (last.keys, last.state) == ({"a/index.html": "ka", "b/index.html": "kb"}, {"shared": "s"})
    calls = []
    stopped = SiteWriter(out, manifest, before_writing=lambda: calls.append(1))
    stopped.put("b/index.html", b"two")  # unchanged: nothing is written yet
    assert calls == [] and last_render(manifest, out).keys["b/index.html"] == "kb"
    stopped.put("a/index.html", b"changed")
    stopped.put("c/index.html", b"new")
    stopped.journal.close()  # stopped: never finished
    assert calls == [1]  # once, before the first write
    last = last_render(manifest, out)
    assert (last.keys, last.state) == ({"b/index.html": "kb"}, {})


def test_a_file_is_named_in_the_journal_before_it_is_written(tmp_path, monkeypatch):
    from pipeline.site import writer

    out, manifest = tmp_path / "site", tmp_path / "state" / "manifest.json"
    seen = []
    real = writer._write
    journaling = lambda target, data: seen.append(journaled_files(manifest, out)) or real(target, data)  # noqa: E731
    monkeypatch.setattr(writer, "_write", journaling)
    first = SiteWriter(out, manifest)
    first.put("a/index.html", b"one")
    first.put("b/index.html", b"two")
    first.put("a/index.html", b"three")  # replaced: named again
    assert seen == [["a/index.html"], ["a/index.html", "b/index.html"], ["a/index.html", "b/index.html"]]
    first.finish()
    assert journaled_files(manifest, out) == [] and not journal_file(manifest).exists()


def test_the_temporary_file_of_a_page_a_stopped_build_was_replacing_is_removed(tmp_path):
    out, manifest = tmp_path / "site", tmp_path / "state" / "manifest.json"
    done = SiteWriter(out, manifest)
    done.put("a/index.html", b"one")
    done.finish()
    stopped = SiteWriter(out, manifest)
    stopped.put("a/index.html", b"two")
    stopped.journal.close()
    (out / "a" / ".index.html.tmp").write_bytes(b"tw")  # as if stopped between writing it and the rename
    writer = SiteWriter(out, manifest)
    writer.put("a/index.html", b"two")
    assert writer.finish().removed == ["a/.index.html.tmp"] and _files(out) == ["a/index.html"]


def _stopped_build(out, manifest, files: dict[str, bytes]) -> None:
    """Writes as a build does, then stops before `finish`: its manifest is never written."""
    stopped = SiteWriter(out, manifest)
    for rel, data in files.items():
        stopped.put(rel, data)
    stopped.journal.close()


def test_files_a_stopped_build_made_are_removed_by_the_next_unless_it_makes_them_too(tmp_path):
    out, manifest = tmp_path / "site", tmp_path / "state" / "manifest.json"
    done = SiteWriter(out, manifest)
    done.put("a/index.html", b"one")
    done.finish()
    _stopped_build(out, manifest, {"b/index.html": b"two", "c/index.html": b"three"})
    _stopped_build(out, manifest, {"d/index.html": b"four"})  # a second one, before any build finished
    report = SiteWriter(out, manifest)
    report.put("a/index.html", b"one")
    report.put("c/index.html", b"three")
    assert report.finish().removed == ["b/index.html", "d/index.html"]
    assert _files(out) == ["a/index.html", "c/index.html"]


def test_a_stopped_build_into_another_folder_leaves_this_ones_files_alone(tmp_path):
    out, manifest = tmp_path / "site", tmp_path / "state" / "manifest.json"
    _stopped_build(tmp_path / "elsewhere", manifest, {"b/index.html": b"two"})
    (out / "b").mkdir(parents=True)
    (out / "b" / "index.html").write_bytes(b"mine")
    writer = SiteWriter(out, manifest)
    writer.put("a/index.html", b"one")
    assert writer.finish().removed == [] and (out / "b" / "index.html").read_bytes() == b"mine"


def test_a_journal_that_is_not_text_is_begun_again(tmp_path):
    out, manifest = tmp_path / "site", tmp_path / "state" / "manifest.json"
    manifest.parent.mkdir()
    journal_file(manifest).write_bytes(b"\xff\xfe\x00garbage")
    writer = SiteWriter(out, manifest)
    writer.put("a/index.html", b"one")
    assert writer.finish().written == ["a/index.html"] and not journal_file(manifest).exists()


def test_a_copied_file_is_copied_again_only_when_its_bytes_changed_or_it_is_gone(tmp_path):
    source, out, manifest = tmp_path / "blob", tmp_path / "site", tmp_path / "state" / "manifest.json"
    source.write_bytes(b"first")
    writer = SiteWriter(out, manifest)
    writer.copy("files/a.bin", source, "d1")
    assert writer.finish().written == ["files/a.bin"]
    writer = SiteWriter(out, manifest)
    writer.copy("files/a.bin", source, "d1")  # the same bytes: not copied
    assert writer.finish().written == [] and (out / "files/a.bin").read_bytes() == b"first"
    source.write_bytes(b"other")
    writer = SiteWriter(out, manifest)
    writer.copy("files/a.bin", source, "d2")
    assert writer.finish().written == ["files/a.bin"] and (out / "files/a.bin").read_bytes() == b"other"
    (out / "files/a.bin").unlink()
    writer = SiteWriter(out, manifest)
    writer.copy("files/a.bin", source, "d2")  # gone from the output: copied again
    assert writer.finish().written == ["files/a.bin"]


@pytest.mark.slow
def test_a_big_file_is_copied_in_flat_memory(tmp_path):
    import os
    import tracemalloc

    source = tmp_path / "video.mp4"
    with open(source, "wb") as file:
        os.truncate(file.fileno(), 300 * 1024 * 1024)  # sparse: 300 MB read back as zeros
    writer = SiteWriter(tmp_path / "site", tmp_path / "state" / "manifest.json")
    tracemalloc.start()
    try:
        writer.copy("video.mp4", source, "d")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert os.path.getsize(tmp_path / "site" / "video.mp4") == 300 * 1024 * 1024
    assert peak < 4 * 1024 * 1024


@pytest.mark.parametrize("relative", [False, True])
def test_missing_files_are_those_of_the_last_site_not_in_the_folder_and_inside_it(tmp_path, monkeypatch, relative):
    out = tmp_path / "site"
    for rel in ("index.html", "a/index.html", "a/preview.json"):
        (out / rel).parent.mkdir(parents=True, exist_ok=True)
        (out / rel).write_text("x")
    (tmp_path / "outside.html").write_text("x")
    monkeypatch.chdir(tmp_path)
    folder = out.relative_to(tmp_path) if relative else out
    rels = ["index.html", "a/index.html", "a/preview.json", "b/index.html", "../outside.html", "../gone.html",
            str(tmp_path / "gone.html")]
    assert missing_files(folder, rels) == ["b/index.html"]  # a path out of the folder is never one to put back
    (out / "a" / "preview.json").unlink()
    assert missing_files(folder, rels) == ["a/preview.json", "b/index.html"]
    assert missing_files(tmp_path / "none", rels) == ["index.html", "a/index.html", "a/preview.json", "b/index.html"]
