"""The scan: which Markdown files the content folder holds, and which of them a capture must read."""

import os

from pipeline.config import Config
from pipeline.content.capture import capture_content
from pipeline.content.scan import list_sources, scan_sources
from pipeline.storage.store import db_path, open_store

GOOD = "---\ntitle: Alpha\n---\nBody of alpha.\n"
LONG_AGO = 1_000_000_000  # long before anything was hashed: the stats may vouch for a file of then


def test_hidden_and_excluded_files_are_skipped(make_wiki):
    config = make_wiki({"a.md": GOOD, ".hidden/x.md": GOOD, "drafts/y.md": GOOD, "z.txt": "x", ".dot.md": GOOD})
    assert list_sources(config).paths == ["a.md", "drafts/y.md"]
    excluded = Config(content_dir=config.content_dir, exclude=["drafts/*"])
    assert list_sources(excluded).paths == ["a.md"]


def test_sources_are_sorted_and_symlinked_folders_not_followed(make_wiki, tmp_path):
    config = make_wiki({"b/z.md": GOOD, "b/a.MD": GOOD, "a.markdown": GOOD, "b/c/d.md": GOOD, "b/folder.md/x.md": GOOD})
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "o.md").write_text(GOOD)
    (config.content_dir / "linked").symlink_to(outside, target_is_directory=True)
    (config.content_dir / "alias.md").symlink_to(config.content_dir / "a.markdown")
    assert list_sources(config).paths == ["a.markdown", "alias.md", "b/a.MD", "b/c/d.md", "b/folder.md/x.md", "b/z.md"]


def _captured(make_wiki, files: dict[str, str]):
    config = make_wiki(files)
    for name in files:
        os.utime(config.content_dir / name, (LONG_AGO, LONG_AGO))
    conn = open_store(config.state_db)
    capture_content(conn, config)
    return config, conn


def test_a_scan_reads_no_file_and_vouches_for_those_whose_stat_is_as_when_hashed(make_wiki):
    config, conn = _captured(make_wiki, {"a.md": GOOD, "b.md": GOOD, "c.md": GOOD})
    (config.content_dir / "b.md").write_text(GOOD.replace("Alpha", "Beta"))  # a new mtime
    (config.content_dir / "d.md").write_text(GOOD)  # never hashed
    scan = scan_sources(config, db_path(conn))
    assert scan.paths == ["a.md", "b.md", "c.md", "d.md"] and list(scan.unvouched) == ["b.md", "d.md"]
    assert scan_sources(config).unvouched.keys() == set(scan.paths)  # without a store, none is vouched for


def test_a_capture_takes_the_scan_it_is_given_unless_another_capture_was_recorded_since(make_wiki):
    config, conn = _captured(make_wiki, {"a.md": GOOD, "b.md": GOOD})
    scan = scan_sources(config, db_path(conn))
    (config.content_dir / "a.md").write_text(GOOD.replace("Alpha", "Omega"))  # not in the scan: not read
    assert capture_content(conn, config, scanned=scan).new == []
    (config.content_dir / "b.md").write_text(GOOD.replace("Alpha", "Beta"))
    assert len(capture_content(conn, config).new) == 2  # a capture recorded since that scan
    (config.content_dir / "a.md").write_text(GOOD)
    report = capture_content(conn, config, scanned=scan)  # so it is made again
    assert report.files == 2 and len(report.new) == 1


def test_a_name_that_is_not_utf8_is_listed_escaped_with_a_notice_and_its_file_read_by_its_own_name(make_wiki):
    from urllib.parse import unquote_to_bytes

    config = make_wiki({"a.md": GOOD, "caf%E9.md": GOOD})  # a name of its own that is an escaped one
    named = lambda name: config.content_dir / os.fsdecode(name)  # noqa: E731 - a name of any bytes
    named(b"d\xff").mkdir()
    named(b"d\xff/100%\xe9.md").write_text(GOOD.replace("Alpha", "Percent"))
    named(b"caf\xe9.md").write_text(GOOD)  # escaped, it is caf%E9.md: that name is taken
    named(b"na\xefve.md").write_text(GOOD.replace("Alpha", "Naive"))
    listing = list_sources(config)
    assert listing.paths == ["a.md", "caf%E9.md", "d%FF/100%25%E9.md", "na%EFve.md"]
    assert all(unquote_to_bytes(name) == os.fsencode(rel) for name, rel in listing.on_disk.items())
    assert [(n.path, n.code) for n in listing.notices] == [
        ("caf%E9.md", "skipped-file"), ("d%FF/100%25%E9.md", "not-utf8-name"), ("na%EFve.md", "not-utf8-name"),
    ]  # fmt: skip
    conn = open_store(config.state_db)
    report = capture_content(conn, config)
    assert report.files == 4 and len(report.new) == 4
    raw = dict(conn.execute("SELECT path, raw FROM captures"))
    assert b"Percent" in raw["d%FF/100%25%E9.md"] and b"Naive" in raw["na%EFve.md"]
    again = capture_content(conn, config)  # the escaped paths are the same ones each time
    assert again.new == [] and again.removed == [] and again.unchanged == 4
