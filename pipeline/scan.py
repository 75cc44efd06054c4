"""The content folder's Markdown files, and which of them must be read: the first step of a capture.

A file whose size and modification time are those it had when it was last hashed, into
its path's current capture, is vouched for by them and not read. As git does for its
index, a file modified within RACY_NS of being hashed is read every time, so two writes
in one timestamp tick can never hide a change. The scan only reads the store: a build
runs it in its standby process (`forks.Standby`) while it loads its passes, and a capture
takes it only if no capture was recorded since (`Scan.history`).
"""

from __future__ import annotations

import fnmatch
import os
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.config import Config
from pipeline.errors import UserError
from pipeline.store import plain_rows, reader

MARKDOWN_SUFFIXES = (".md", ".markdown")
RACY_NS = 2_000_000_000


@dataclass
class Scan:
    """The Markdown files of the content folder (sorted paths), and the stat of each one to read."""

    paths: list[str]
    unvouched: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> (size, mtime_ns) before reading
    problems: list[tuple[str, int, str]] = field(default_factory=list)  # (path, line, message): cannot stat
    history: int = 0  # the last capture_history row when the store was read (`history_mark`)


def scan_sources(config: Config, db: str | None = None) -> Scan:
    """Walk and stat the content folder; with `db` (a store's path), vouch for the files its file_stats may."""
    stats = _stat_sources(config)
    history, known = _vouching(reader(db)) if db is not None else (0, {})
    scan = Scan(sorted(stats), history=history)
    for rel in scan.paths:
        stat = stats[rel]
        if isinstance(stat, OSError):  # vanished or unreadable mid-walk: report it, keep going
            scan.problems.append((rel, 1, f"cannot read: {stat.strerror}"))
            continue
        size, mtime, checked = known.get(rel, (None, None, 0))
        if (size, mtime) != (stat.st_size, stat.st_mtime_ns) or mtime >= checked - RACY_NS:
            scan.unvouched[rel] = (stat.st_size, stat.st_mtime_ns)
    return scan


def _vouching(conn: sqlite3.Connection) -> tuple[int, dict[str, tuple[int, int, int]]]:
    """(history mark, path -> (size, mtime_ns, checked_ns) of each file last hashed into its current capture),
    read in one transaction (the join, in SQLite, saves making a dict of every path's sha256 here)."""
    conn.execute("BEGIN")
    try:
        rows = plain_rows(conn).execute(
            """SELECT f.path, f.size, f.mtime_ns, f.checked_ns FROM file_stats f
               JOIN current_captures c ON c.path = f.path AND c.sha256 = f.sha256 AND c.kind = 'file'"""
        )  # fmt: skip
        return history_mark(conn), {path: (size, mtime, checked) for path, size, mtime, checked in rows}
    finally:
        conn.execute("COMMIT")


def history_mark(conn: sqlite3.Connection) -> int:
    """The id of the last capture_history row (0: none): it changes with every capture recorded."""
    return conn.execute("SELECT COALESCE(MAX(id), 0) FROM capture_history").fetchone()[0]


def _stat_sources(config: Config) -> dict[str, os.stat_result | OSError]:
    """Relative path ('/'-separated) -> stat (or the error of taking it) of each Markdown file to capture.

    Hidden files and folders (a name starting with '.') are skipped, as MkDocs and Hugo do, and so
    is anything matching an `exclude` pattern; a symlinked folder is not followed, a symlinked file is.
    Each folder is listed and its files stat'ed through its file descriptor: no path is resolved again
    from the root for each of 13,000 files (a fifth of the scan's time at 10k).
    """
    root = Path(config.content_dir)
    if not root.is_dir():
        raise UserError(f"{root}: content folder not found")
    found: dict[str, os.stat_result | OSError] = {}
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    try:
        _stat_folder(top, "", config.exclude, found)
    finally:
        os.close(top)
    return found


def _stat_folder(fd: int, prefix: str, exclude: list[str], found: dict) -> None:
    folders = []
    with os.scandir(fd) as entries:
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            if _is_folder(entry):
                if not entry.is_symlink():
                    folders.append(name)
                continue
            rel = prefix + name
            if name.lower().endswith(MARKDOWN_SUFFIXES) and not any(fnmatch.fnmatch(rel, p) for p in exclude):
                try:
                    found[rel] = entry.stat()
                except OSError as exc:
                    found[rel] = exc
    for name in folders:
        try:
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        except OSError:  # unreadable (or gone): skipped, as os.walk skips it
            continue
        try:
            _stat_folder(sub, f"{prefix}{name}/", exclude, found)
        finally:
            os.close(sub)


def _is_folder(entry: os.DirEntry) -> bool:
    try:
        return entry.is_dir()
    except OSError:  # as os.walk takes it: a file (one that cannot be stat'ed is reported as such)
        return False
