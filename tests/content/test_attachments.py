"""Attachments: every other file of the content folder captured by content hash, streamed, its bytes kept in the
state folder; unchanged ones not read again, removals recorded, the content folder never written."""

import hashlib
import json
import os
import sqlite3
import tracemalloc
import unicodedata

import pytest

from conftest import folder_hashes
from pipeline.build import build
from pipeline.content import attachments
from pipeline.content.attachments import Attachment, attachment_file, current_attachments
from pipeline.content.capture import capture_content
from pipeline.content.scan import list_sources, scan_sources
from pipeline.incremental import job_reuse
from pipeline.passes.base import Wiki
from pipeline.storage.store import db_path, open_store

GOOD = "---\ntitle: Alpha\n---\nBody of alpha.\n"
LONG_AGO = 1_000_000_000  # long before anything was hashed: the stats may vouch for a file of then
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
NFD = unicodedata.normalize("NFD", "de/Über Bild.png")
KINDS = {
    "img/logo.png": PNG,
    "docs/manual.pdf": b"%PDF-1.7\n" + b"\x00\xff" * 300,
    "media/clip.mp4": b"\x00\x00\x00\x18ftypmp42" + os.urandom(5000),
    "LICENSE": b"CC-BY-4.0\n",  # no extension
    "my photo 🎉.jpg": b"\xff\xd8\xff\xe0jpeg",
    "图片/猫.gif": b"GIF89a",
    "ملفات/تقرير.pdf": b"%PDF-1.4 arabic",
    NFD: b"nfd-named",
    "data/nested.yaml": b"a: 1\n",  # a data file only at the root
}


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _wiki(make_wiki, files: dict, **options):
    config = make_wiki(files, **options)
    for path in config.content_dir.rglob("*"):
        os.utime(path, (LONG_AGO, LONG_AGO), follow_symlinks=False)
    return config, open_store(config.state_db)


@pytest.fixture
def reads(monkeypatch):
    """The content files each capture opened to read an attachment, and the copies it made into the store."""
    seen = {"opened": [], "copied": 0}
    opened, add = attachments.open_regular, attachments._Store.add

    def counting_open(path, real_root):
        seen["opened"].append(path)
        return opened(path, real_root)

    def counting_add(store, chunks):
        seen["copied"] += 1
        return add(store, chunks)

    monkeypatch.setattr(attachments, "open_regular", counting_open)
    monkeypatch.setattr(attachments._Store, "add", counting_add)
    return seen


def test_every_kind_of_file_is_captured_with_its_bytes_kept_by_hash_and_the_content_never_written(make_wiki):
    files = {"a.md": GOOD, **KINDS, "redirects.yaml": "old: a\n", "notes.yaml": "x: 1\n", ".obsidian/app.json": "{}",
             ".DS_Store": b"\x00", "drafts/secret.png": b"draft"}  # fmt: skip
    config, conn = _wiki(make_wiki, files, exclude=["drafts/*"])
    before = folder_hashes(config.content_dir)
    report = capture_content(conn, config)
    assert folder_hashes(config.content_dir) == before
    expected = {path: Attachment(path, _sha(data), len(data)) for path, data in sorted(KINDS.items())}
    assert current_attachments(conn) == expected
    assert (report.files, len(report.new)) == (1, 1)  # the Markdown counts keep their meaning
    assert (report.attachments.files, sorted(report.attachments.new)) == (len(KINDS), sorted(KINDS))
    for path, data in KINDS.items():
        assert attachment_file(config.state_dir, _sha(data)).read_bytes() == data
    assert [row[0] for row in conn.execute("SELECT path FROM captures")] == ["a.md"]
    assert not list((config.state_dir / "attachments" / "tmp").iterdir())


def test_a_wiki_without_attachments_makes_no_store(make_wiki):
    config, conn = _wiki(make_wiki, {"a.md": GOOD, "redirects.yaml": "old: a\n"})
    report = capture_content(conn, config)
    assert report.attachments.files == 0 and current_attachments(conn) == {}
    assert not (config.state_dir / "attachments").exists()


def test_attachment_paths_are_as_the_scan_records_articles(make_wiki):
    config, _ = _wiki(make_wiki, {"de/Über Obsidian.md": GOOD, NFD: b"x"})
    (config.content_dir / unicodedata.normalize("NFD", "de/Über Obsidian.md")).write_text(GOOD)
    named = config.content_dir / os.fsdecode(b"caf\xe9.png")  # not UTF-8: escaped as an article's name is
    named.write_bytes(b"latin-1 name")
    listing = list_sources(config)
    assert listing.attachments == ["caf%E9.png", NFD]  # NFD kept as on disk, as the article beside it
    assert unicodedata.normalize("NFD", "de/Über Obsidian.md") in listing.paths
    conn = open_store(config.state_db)
    capture_content(conn, config)
    assert current_attachments(conn)["caf%E9.png"].sha256 == _sha(b"latin-1 name")


def test_an_unchanged_attachment_is_not_read_again_a_touched_one_is_hashed_not_copied(make_wiki, reads):
    config, conn = _wiki(make_wiki, {"a.md": GOOD, "a.png": PNG, "b.pdf": b"%PDF"})
    capture_content(conn, config)
    assert (len(reads["opened"]), reads["copied"]) == (2, 2)
    reads["opened"].clear()
    again = capture_content(conn, config)
    assert reads["opened"] == [] and again.attachments.unchanged == 2 and again.attachments.new == []
    os.utime(config.content_dir / "a.png", (LONG_AGO + 10, LONG_AGO + 10))  # the same bytes, another mtime
    touched = capture_content(conn, config)
    assert len(reads["opened"]) == 1 and reads["copied"] == 2 and touched.attachments.unchanged == 2
    reads["opened"].clear()
    assert capture_content(conn, config).attachments.unchanged == 2 and reads["opened"] == []  # vouched for again
    assert conn.execute("SELECT COUNT(*) FROM attachment_captures").fetchone()[0] == 2


def test_a_changed_attachment_is_captured_again_and_its_old_bytes_stay(make_wiki):
    config, conn = _wiki(make_wiki, {"a.png": PNG})
    capture_content(conn, config)
    (config.content_dir / "a.png").write_bytes(PNG[::-1])  # same size, other bytes
    report = capture_content(conn, config)
    assert report.attachments.new == ["a.png"] and report.attachments.unchanged == 0
    assert current_attachments(conn)["a.png"].sha256 == _sha(PNG[::-1])
    assert attachment_file(config.state_dir, _sha(PNG)).read_bytes() == PNG  # immutable: the old bytes stay
    (config.content_dir / "a.png").write_bytes(PNG + b"more")
    assert capture_content(conn, config).attachments.new == ["a.png"]
    rows = conn.execute("SELECT sha256, size, kind FROM attachment_captures WHERE path = 'a.png' ORDER BY id")
    assert [tuple(row) for row in rows] == [(_sha(PNG), len(PNG), "file"), (_sha(PNG[::-1]), len(PNG), "file"),
                                            (_sha(PNG + b"more"), len(PNG) + 4, "file")]  # fmt: skip


def test_a_removed_attachment_gets_a_removal_row_and_leaves_the_current_ones(make_wiki):
    config, conn = _wiki(make_wiki, {"a.md": GOOD, "a.png": PNG, "sub/b.pdf": b"%PDF"})
    capture_content(conn, config)
    (config.content_dir / "a.png").unlink()
    report = capture_content(conn, config)
    assert report.attachments.removed == ["a.png"] and report.removed == []
    assert list(current_attachments(conn)) == ["sub/b.pdf"]
    row = conn.execute("SELECT sha256, size, kind FROM attachment_captures WHERE path = 'a.png' ORDER BY id DESC").fetchone()
    assert tuple(row) == (_sha(PNG), 0, "removal")
    assert capture_content(conn, config).attachments.removed == []  # recorded once
    excluded = config.__class__(**{**config.__dict__, "exclude": ["sub/*"]})
    assert capture_content(conn, excluded).attachments.removed == ["sub/b.pdf"]


def test_attachment_rows_are_immutable(make_wiki):
    config, conn = _wiki(make_wiki, {"a.png": PNG})
    capture_content(conn, config)
    for statement in [
        "UPDATE attachment_captures SET sha256 = 'forged'",
        "DELETE FROM attachment_captures",
        "REPLACE INTO attachment_captures (id, path, sha256, size, kind, captured_at) VALUES (1, 'a.png', 'f', 1, 'file', 'n')",
        "INSERT OR REPLACE INTO attachment_captures (id, path, sha256, size, kind, captured_at) "
        "VALUES (1, 'b.png', 'f', 1, 'file', 'n')",
    ]:
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):
            conn.execute(statement)
    assert current_attachments(conn) == {"a.png": Attachment("a.png", _sha(PNG), len(PNG))}


def test_a_link_out_of_the_folder_is_never_read_nor_stored(make_wiki, tmp_path):
    outside = tmp_path / "outside.png"
    outside.write_bytes(b"SECRET-OUTSIDE")
    config, conn = _wiki(make_wiki, {"a.png": PNG})
    (config.content_dir / "leak.png").symlink_to(outside)
    (config.content_dir / "inside.png").symlink_to("a.png")
    report = capture_content(conn, config)
    assert [(n.path, n.code) for n in report.notices] == [("leak.png", "skipped-file")]
    assert sorted(current_attachments(conn)) == ["a.png", "inside.png"]
    stored = [path.read_bytes() for path in (config.state_dir / "attachments").rglob("*") if path.is_file()]
    assert stored == [PNG]  # the link inside shares its target's bytes


def test_a_state_folder_inside_the_content_folder_is_not_captured(make_wiki):
    config, _ = _wiki(make_wiki, {"a.md": GOOD, "a.png": PNG})
    config = config.__class__(**{**config.__dict__, "state_dir": config.content_dir / "state"})
    conn = open_store(config.state_db)
    capture_content(conn, config)
    assert list(current_attachments(conn)) == ["a.png"]
    assert capture_content(conn, config).attachments.new == []  # its own bytes and database are not content


def test_attachments_whose_stored_bytes_are_gone_are_stored_again(make_wiki, reads):
    import shutil

    config, conn = _wiki(make_wiki, {"a.png": PNG})
    capture_content(conn, config)
    shutil.rmtree(config.state_dir / "attachments")  # a cache-like folder someone deleted
    report = capture_content(conn, config)
    assert report.attachments.unchanged == 1 and report.attachments.new == [] and reads["copied"] == 2
    assert attachment_file(config.state_dir, _sha(PNG)).read_bytes() == PNG


@pytest.mark.slow
def test_a_big_attachment_is_captured_in_flat_memory(make_wiki):
    config, conn = _wiki(make_wiki, {"a.md": GOOD})
    video = config.content_dir / "big.mp4"
    with open(video, "wb") as handle:
        handle.write(b"\x00\x00\x00\x18ftypmp42")
    os.truncate(video, 300 << 20)  # sparse: 300 MB that take no room in the content folder
    tracemalloc.start()
    try:
        report = capture_content(conn, config)
        _, peak = tracemalloc.get_traced_memory()
        os.utime(video, (LONG_AGO, LONG_AGO))
        tracemalloc.reset_peak()
        touched = capture_content(conn, config)  # hashed again, not copied
        _, touched_peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert report.attachments.new == ["big.mp4"] and touched.attachments.unchanged == 1
    assert peak < 4 << 20 and touched_peak < 4 << 20
    stored = attachment_file(config.state_dir, current_attachments(conn)["big.mp4"].sha256)
    assert stored.stat().st_size == 300 << 20


def test_a_build_hands_passes_the_current_attachments_and_an_attachment_change_is_not_skipped(make_wiki):
    config, _ = _wiki(make_wiki, {"a.md": GOOD, "a.png": PNG})
    first = build(config)
    assert first.process.wiki.attachments == {"a.png": _sha(PNG)} and first.capture.attachments.new == ["a.png"]
    assert build(config).process.skipped
    (config.content_dir / "b.pdf").write_bytes(b"%PDF")
    second = build(config)
    assert not second.process.skipped and second.process.wiki.attachments == {"a.png": _sha(PNG), "b.pdf": _sha(b"%PDF")}


def test_the_attachments_part_of_a_read_set_is_their_paths_and_hashes():
    def part(attached: dict) -> str:
        return job_reuse._part("attachments", Wiki(options={}, articles=[], attachments=attached), {})

    assert part({"a.png": "1", "b.pdf": "2"}) == part({"b.pdf": "2", "a.png": "1"})
    assert len({part({}), part({"a.png": "1"}), part({"a.png": "2"}), part({"b.png": "1"})}) == 4


def test_an_attachment_gone_between_scan_and_read_is_a_notice_and_keeps_its_capture(make_wiki):
    config, conn = _wiki(make_wiki, {"a.png": PNG})
    capture_content(conn, config)
    (config.content_dir / "a.png").write_bytes(b"new bytes")
    scan = scan_sources(config, db_path(conn))
    assert list(scan.attachments.unvouched) == ["a.png"]
    (config.content_dir / "a.png").unlink()
    report = capture_content(conn, config, scanned=scan)
    assert [(n.path, n.code) for n in report.notices] == [("a.png", "skipped-file")]
    assert report.attachments.files == 0 and report.attachments.removed == []
    assert current_attachments(conn) == {"a.png": Attachment("a.png", _sha(PNG), len(PNG))}


def test_capture_and_status_report_attachments_apart(make_wiki, capsys):
    from pipeline.cli import main

    config, _ = _wiki(make_wiki, {"a.md": GOOD, "a.png": PNG, "b.pdf": b"%PDF"})
    args = ["--content", str(config.content_dir), "--state", str(config.state_dir)]
    assert main(["capture", *args]) == 0
    assert "captured 1 files: 1 new, 0 unchanged, 0 removed; 2 attachments: 2 new, 0 unchanged, 0 removed" in (
        capsys.readouterr().out
    )  # fmt: skip
    assert main(["status", *args, "--format", "json"]) == 0
    tables = json.loads(capsys.readouterr().out)["tables"]
    assert (tables["captures"], tables["attachment_captures"]) == (1, 2)


def test_a_full_disk_while_storing_is_an_error_not_a_skipped_file_and_records_nothing(make_wiki, monkeypatch):
    import errno

    config, conn = _wiki(make_wiki, {"a.md": GOOD, "a.png": PNG, "b.png": PNG[::-1]})

    def full(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(attachments.os, "write", full)
    with pytest.raises(OSError) as raised:
        capture_content(conn, config)
    assert raised.value.errno == errno.ENOSPC
    monkeypatch.undo()
    assert conn.execute("SELECT COUNT(*) FROM attachment_captures").fetchone()[0] == 0
    assert conn.execute("SELECT COUNT(*) FROM captures").fetchone()[0] == 0  # the whole capture rolled back
    assert not [path for path in (config.state_dir / "attachments").rglob("*") if path.is_file()]
    assert capture_content(conn, config).attachments.new == ["a.png", "b.png"]
