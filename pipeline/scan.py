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
    paths = iter_sources(config)
    history, known = _vouching(reader(db)) if db is not None else (0, {})
    folder = os.path.join(config.content_dir, "")  # with its separator: a join per file costs 13,000 calls
    scan = Scan(paths, history=history)
    for rel in paths:
        try:
            stat = os.stat(folder + rel)
        except OSError as exc:  # vanished or unreadable mid-walk: report it, keep going
            scan.problems.append((rel, 1, f"cannot read: {exc.strerror}"))
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


def iter_sources(config: Config) -> list[str]:
    """Relative paths of the Markdown files to capture, sorted, '/'-separated.

    Hidden files and folders (a name starting with '.') are skipped, as MkDocs
    and Hugo do, and so is anything matching an `exclude` pattern.
    """
    root = Path(config.content_dir)
    if not root.is_dir():
        raise UserError(f"{root}: content folder not found")
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        rel_folder = Path(folder).relative_to(root).as_posix()
        for name in files:
            if name.startswith(".") or not name.lower().endswith(MARKDOWN_SUFFIXES):
                continue
            rel = name if rel_folder == "." else f"{rel_folder}/{name}"
            if not any(fnmatch.fnmatch(rel, pattern) for pattern in config.exclude):
                found.append(rel)
    return sorted(found)
