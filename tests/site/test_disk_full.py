"""A full disk during a build: one line naming the path and the cause, exit 1, and once there is room
again the next build makes the site a clean build makes, byte for byte.

The disk fills for real on a small tmpfs when the tests run as root (mounting one needs it); else an
injected ENOSPC (the write of a file's bytes fails half-way, as on a full disk) stands in for it.
"""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import subprocess
from pathlib import Path

import pytest

from pipeline import cli
from pipeline.build import build
from pipeline.config import load_config
from pipeline.site import SEARCH_PENDING, writer
from pipeline.site.shards import RECORD
from tests.conftest import folder_hashes, write_files
from tests.site.helpers import SITE, without_shortcuts


class _FullDisk:
    """A file opened for writing on a full disk: half its bytes go in, then ENOSPC (naming no file)."""

    def __init__(self, file) -> None:
        self.file = file

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.file.close()

    def write(self, data: bytes) -> int:
        self.file.write(data[: len(data) // 2])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def filling_after(files: int):
    """An `open` for the writer under which the disk is full once `files` files were written."""
    opened = []

    def opening(path, mode="r", *args, **options):
        file = open(path, mode, *args, **options)
        if "r" in mode:
            return file
        opened.append(path)
        return file if len(opened) <= files else _FullDisk(file)

    return opening


def wiki(tmp_path: Path, out: Path, search: bool = False):
    """The SITE wiki's command line (its config file beside the content), and its Config as the command reads it."""
    write_files(tmp_path / "content", SITE)
    (tmp_path / "wiki.yaml").write_text(f"search: {str(search).lower()}\nworkers: 1\n")
    folders = {"content": str(tmp_path / "content"), "state": str(tmp_path / "state"), "out": str(out)}
    argv = ["build", "--config", str(tmp_path / "wiki.yaml"), *(f"--{k}={v}" for k, v in folders.items())]
    return argv, load_config(tmp_path / "wiki.yaml", **folders)


def assert_one_line_error(capsys, naming: Path, cause: str) -> None:
    errors = [line for line in capsys.readouterr().err.splitlines() if line.startswith("pipeline: error:")]
    assert len(errors) == 1 and errors[0].startswith(f"pipeline: error: {naming}") and cause in errors[0], errors


def assert_same_as_a_clean_build(config, root: Path) -> None:
    clean = without_shortcuts(config, root)
    build(clean, workers=1, site=True, reuse=False)
    assert folder_hashes(config.out_dir) == folder_hashes(clean.out_dir)


def test_an_injected_full_disk_is_one_line_and_the_next_build_is_a_clean_build(tmp_path, monkeypatch, capsys):
    argv, config = wiki(tmp_path, tmp_path / "site")
    assert cli.main(argv) == 0
    for rel in ("alpha.md", "beta.md", "evil.md"):  # every page changes: files are replaced, not made
        (config.content_dir / rel).write_text(SITE[rel] + "\nOne more line.\n")
    capsys.readouterr()
    monkeypatch.setattr(writer, "open", filling_after(3), raising=False)
    assert cli.main(argv) == 1
    assert_one_line_error(capsys, config.out_dir, "No space left on device")  # a file in it, by its path
    monkeypatch.undo()
    assert cli.main(argv) == 0
    assert_same_as_a_clean_build(config, tmp_path / "clean")


def test_a_full_disk_on_a_cold_build_names_the_file_it_could_not_write(tmp_path, monkeypatch, capsys):
    argv, config = wiki(tmp_path, tmp_path / "site")
    monkeypatch.setattr(writer, "open", filling_after(5), raising=False)
    assert cli.main(argv) == 1
    error = capsys.readouterr().err.strip().splitlines()[-1]
    written = error.removeprefix("pipeline: error: ").split(": No space left on device")[0]
    assert Path(written).is_file() and Path(written).parent != config.out_dir.parent  # a page of the site
    monkeypatch.undo()
    assert cli.main(argv) == 0
    assert_same_as_a_clean_build(config, tmp_path / "clean")


@pytest.fixture
def tmpfs(tmp_path):
    """A tmpfs of 64 KiB at `tmp_path / "disk"`, and how to resize it (`resize(kib)`); root only."""
    if os.geteuid() != 0:
        pytest.skip("mounting a small tmpfs needs root: the injected full-disk tests stand in for it")
    disk = tmp_path / "disk"
    disk.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=64k", "tmpfs", str(disk)], capture_output=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")

    def resize(kib: int) -> None:
        subprocess.run(["mount", "-o", f"remount,size={kib}k", str(disk)], check=True)

    yield disk, resize
    subprocess.run(["umount", "-l", str(disk)], check=False)


def _used_kib(folder: Path) -> int:
    stat = os.statvfs(folder)
    return (stat.f_blocks - stat.f_bfree) * stat.f_frsize // 1024


@pytest.mark.slow
def test_a_full_tmpfs_stops_the_build_with_one_line_and_the_next_build_is_a_clean_build(tmp_path, tmpfs, capsys):
    disk, resize = tmpfs
    argv, config = wiki(tmp_path, disk / "site")
    assert cli.main(argv) == 1
    assert_one_line_error(capsys, disk, "No space left on device")
    resize(64 * 1024)
    assert cli.main(argv) == 0
    assert_same_as_a_clean_build(config, tmp_path / "clean")


@pytest.mark.slow
def test_a_search_index_a_full_tmpfs_cut_is_not_recorded_and_is_made_again_with_room(tmp_path, tmpfs, capsys):
    disk, resize = tmpfs
    resize(64 * 1024)
    argv, config = wiki(tmp_path, disk / "site", search=True)
    (tmp_path / "wiki.yaml").write_text("search: false\nworkers: 1\n")
    assert cli.main(argv) == 0  # the pages, without their index
    (tmp_path / "wiki.yaml").write_text("search: true\nworkers: 1\n")
    resize(_used_kib(disk) + 256)  # room for the pages again, not for both languages' bundles (about 800 KiB each)
    capsys.readouterr()
    assert cli.main(argv) == 0  # the site is there, its index is not: a warning (which fails a strict build)
    err = capsys.readouterr().err
    assert "search index not built: Pagefind's bundle of pagefind/" in err and "not whole" in err, err
    assert (config.state_dir / SEARCH_PENDING).exists()
    recorded = json.loads((config.state_dir / RECORD).read_text()) if (config.state_dir / RECORD).exists() else {}
    assert len(recorded) < 2  # a shard that did not fit is not recorded as indexed
    for page in ("alpha/index.html", "es/alpha/index.html"):  # every script a page loads is there
        html = (config.out_dir / page).read_text()
        for script in ("pagefind/pagefind-ui.js", "pagefind/shards.js", "pagefind/pagefind-ui.css"):
            assert script in html and (config.out_dir / script).is_file()
    resize(64 * 1024)
    assert cli.main(argv) == 0
    assert not (config.state_dir / SEARCH_PENDING).exists()
    assert_same_as_a_clean_build(dataclasses.replace(config, search=True), tmp_path / "clean")
