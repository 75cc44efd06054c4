"""What a capture reads of an untrusted content folder: regular files inside it, never a link out, a FIFO
or a device, and a file swapped for one of those after the scan is refused when opened."""

import os
from pathlib import Path

import pytest

from pipeline.content.capture import capture_content
from pipeline.content.facts import fact_sources, gather
from pipeline.content.scan import SKIPPED_FILE, Skipped, list_sources, read_inside, read_regular, scan_sources
from pipeline.storage.store import db_path, open_store

GOOD = "---\ntitle: Alpha\n---\nBody of alpha.\n"
SECRET = "---\ntitle: Secret\n---\nSECRET-OUTSIDE\n"


@pytest.fixture
def outside(tmp_path) -> Path:
    """A folder beside the content folder, with a secret Markdown file and a YAML mapping."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.md").write_text(SECRET)
    (folder / "redirects.yaml").write_text("old: SECRET-OUTSIDE\n")
    return folder


@pytest.fixture
def held_fifo(tmp_path):
    """A FIFO held open for reading and writing by the test: opening it never waits, whatever the code does."""
    path = tmp_path / "fifo"
    os.mkfifo(path)
    fd = os.open(path, os.O_RDWR | os.O_NONBLOCK)
    yield path
    os.close(fd)


def _notices(listing) -> dict[str, str]:
    return {path: message for path, code, message in listing.notices if code == SKIPPED_FILE}


def test_links_out_of_the_folder_and_files_that_are_not_regular_are_skipped_with_a_notice(make_wiki, outside):
    config = make_wiki({"a.md": GOOD, "sub/b.md": GOOD})
    content = config.content_dir
    (content / "passwd.md").symlink_to(outside / "secret.md")
    (content / "relative.md").symlink_to(Path("..") / "outside" / "secret.md")
    (content / "sub" / "up.md").symlink_to(Path("..") / ".." / "outside" / "secret.md")
    (content / "zero.md").symlink_to("/dev/null")  # a device (as /dev/zero: read, it never ends)
    os.mkfifo(content / "pipe.md")
    (content / "pipe-link.md").symlink_to("pipe.md")
    (content / "loop.md").symlink_to("loop.md")
    (content / "dangling.md").symlink_to("nowhere.md")
    (content / "alias.md").symlink_to("a.md")  # a regular file inside: followed
    (content / "sub" / "back.md").symlink_to(Path("..") / "a.md")
    (content / "out").symlink_to(outside, target_is_directory=True)  # a folder out of the folder: not walked
    (content / "again").symlink_to(content / "sub", target_is_directory=True)  # one inside: not walked either
    (content / "sub" / "root").symlink_to("..", target_is_directory=True)  # the content folder itself: the same
    (content / "folder.md").symlink_to(content / "sub", target_is_directory=True)
    (content / "image.png").symlink_to(outside / "secret.md")  # an attachment: the same rules
    os.mkfifo(content / "sub" / "video.mp4")
    (content / "sub" / "logo.png").symlink_to(Path("..") / "a.md")  # a regular file inside: followed
    listing = list_sources(config)
    assert listing.paths == ["a.md", "alias.md", "sub/b.md", "sub/back.md"]
    assert listing.attachments == ["sub/logo.png"]
    skipped = _notices(listing)
    assert set(skipped) == {"passwd.md", "relative.md", "sub/up.md", "zero.md", "pipe.md", "pipe-link.md", "loop.md",
                            "dangling.md", "out", "again", "sub/root", "folder.md", "image.png",
                            "sub/video.mp4"}  # fmt: skip
    assert skipped["image.png"] == f"a symbolic link to outside the content folder (to {outside / 'secret.md'})"
    assert skipped["sub/video.mp4"] == "a FIFO, not a regular file"
    assert skipped["passwd.md"] == f"a symbolic link to outside the content folder (to {outside / 'secret.md'})"
    assert skipped["zero.md"] == "a symbolic link to outside the content folder (to /dev/null)"
    assert skipped["pipe-link.md"] == "a symbolic link to a FIFO, not a regular file"
    assert skipped["pipe.md"] == "a FIFO, not a regular file"
    assert skipped["again"] == skipped["sub/root"] == "a symbolic link to a folder (not walked)"
    assert skipped["dangling.md"].startswith("cannot read:")


def test_a_capture_stores_no_byte_of_a_file_it_skips(make_wiki, outside):
    config = make_wiki({"a.md": GOOD})
    (config.content_dir / "passwd.md").symlink_to(outside / "secret.md")
    (config.content_dir / "environ.md").symlink_to("/proc/self/environ")
    conn = open_store(config.state_db)
    report = capture_content(conn, config)
    assert report.files == 1 and {path for path, _, _ in report.notices} == {"passwd.md", "environ.md"}
    assert [row[0] for row in conn.execute("SELECT path FROM captures")] == ["a.md"]
    assert all(b"SECRET" not in row[0] for row in conn.execute("SELECT raw FROM captures"))


def test_a_file_captured_then_made_a_link_out_of_the_folder_is_removed(make_wiki, outside):
    config = make_wiki({"a.md": GOOD, "b.md": GOOD})
    conn = open_store(config.state_db)
    capture_content(conn, config)
    (config.content_dir / "b.md").unlink()
    (config.content_dir / "b.md").symlink_to(outside / "secret.md")
    report = capture_content(conn, config)
    assert report.removed == ["b.md"] and [n.path for n in report.notices] == ["b.md"]


def test_a_file_swapped_after_the_scan_for_a_link_out_or_a_fifo_is_refused_when_opened(make_wiki, outside, held_fifo):
    config = make_wiki({"a.md": GOOD, "b.md": GOOD, "c.md": GOOD})
    conn = open_store(config.state_db)
    scan = scan_sources(config, db_path(conn))
    (config.content_dir / "a.md").unlink()
    (config.content_dir / "a.md").symlink_to(outside / "secret.md")
    (config.content_dir / "b.md").unlink()
    (config.content_dir / "b.md").symlink_to(held_fifo)  # a FIFO outside: opened, it is refused by its fstat
    report = capture_content(conn, config, scanned=scan)
    assert {n.path: n.message for n in report.notices} == {
        "a.md": "a symbolic link to outside the content folder", "b.md": "a FIFO, not a regular file",
    }  # fmt: skip
    assert report.files == 1 and [row[0] for row in conn.execute("SELECT path FROM captures")] == ["c.md"]


def test_reading_refuses_what_is_not_a_regular_file_inside_the_folder(tmp_path, outside, held_fifo):
    root = os.path.realpath(tmp_path / "outside")
    assert read_regular(str(outside / "secret.md"), root) == SECRET.encode()
    with pytest.raises(Skipped, match="FIFO"):
        read_regular(str(held_fifo), str(tmp_path))
    with pytest.raises(Skipped, match="character device"):
        read_regular("/dev/null", "/")
    with pytest.raises(Skipped, match="outside the content folder"):
        read_regular(str(outside / "secret.md"), os.path.realpath(tmp_path / "elsewhere"))


def test_data_files_follow_the_same_rule(make_wiki, outside, held_fifo):
    config = make_wiki({"a.md": GOOD, "citations.yaml": "x: {title: Inside}\n"})
    content = config.content_dir
    (content / "redirects.yaml").symlink_to(outside / "redirects.yaml")
    (content / "categories.yaml").symlink_to(held_fifo)
    assert read_inside(content, "redirects.yaml") is None and read_inside(content, "categories.yaml") is None
    assert read_inside(content, "citations.yaml") == b"x: {title: Inside}\n"
    assert set(_notices(list_sources(config))) == {"redirects.yaml", "categories.yaml"}
    conn = open_store(config.state_db)
    capture_content(conn, config)
    facts = gather(conn, content)
    assert facts.data["redirects"] is None and facts.data["categories"] is None and facts.problems == []
    assert facts.data["citations"] == [{"id": "x", "text": "Inside", "url": None}]
    sources = fact_sources(conn, content, None)["data"]
    assert sources["redirects"] is None and sources["categories"] is None and sources["citations"] is not None
