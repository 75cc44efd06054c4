"""The content folder's attachments: every file that is neither Markdown nor a data file at its root (images,
PDFs, audio, video, ...), captured immutably by content hash as articles are (`capture.py`).

An attachment's bytes are kept in the state folder by their sha256 (`attachment_file`: written under a
temporary name, then renamed, both made durable before the rows naming them are committed); a row of
`attachment_captures` (schema v16) records each change of a path: its new bytes, or its removal. Bytes
are streamed a chunk at a time, never held whole: a file of any size captures in flat memory. The scan
(`scan.py`) vouches for an attachment by its stat as for an article, so an unchanged one is not read;
one whose size is its current capture's is hashed before it is copied, so a file only touched is read
once and written nowhere. Deleting the store folder costs one read of every attachment (the scan vouches
for none while it is missing); a file deleted from it is not noticed. Nothing here writes to the content folder.
"""

from __future__ import annotations

import hashlib
import itertools
import os
import shutil
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterator

from pipeline.config import Config
from pipeline.content.scan import ATTACHMENT_STORE, READ_CHUNK, Notice, Scan, open_regular, skip_notice
from pipeline.runtime.libc import sync_filesystem
from pipeline.storage.store import plain_rows, rows_for_ids

TEMPORARY = "tmp"  # in the attachment store: bytes being copied, renamed to their hash once whole


@dataclass(frozen=True)
class Attachment:
    """An attachment of the wiki now: its path (as the store records paths), and its bytes' hash and size."""

    path: str
    sha256: str
    size: int


@dataclass
class AttachmentReport:
    """What one capture run saw of the attachments (`CaptureReport.attachments`)."""

    files: int = 0  # the attachments of the content folder (those that could not be read left out)
    new: list[str] = field(default_factory=list)  # paths captured with other bytes than their current ones
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)


def attachment_file(state_dir: Path, sha256: str) -> Path:
    """Where the bytes whose hash is `sha256` are kept (a file there once a capture recorded them)."""
    return Path(state_dir) / ATTACHMENT_STORE / sha256[:2] / sha256


def current_attachments(conn: sqlite3.Connection) -> dict[str, Attachment]:
    """path -> the current attachment of each path the wiki holds one at now (removals left out), by path."""
    rows = plain_rows(conn).execute(
        "SELECT path, sha256, size FROM current_attachments WHERE kind = 'file' ORDER BY path"
    )  # fmt: skip
    return {path: Attachment(path, sha, size) for path, sha, size in rows}


def attachment_hashes(conn: sqlite3.Connection) -> dict[str, str]:
    """path -> sha256 of each current attachment, by path: what passes see (`Wiki.attachments`)."""
    sql = "SELECT path, sha256 FROM current_attachments WHERE kind = 'file' ORDER BY path"
    return dict(plain_rows(conn).execute(sql))


def capture_attachments(
    conn: sqlite3.Connection, config: Config, scan: Scan, now: str, commit: str | None, notices: list[Notice]
) -> AttachmentReport:
    """Capture the attachments `scan` found, in the caller's write transaction: each one its stat does not
    vouch for is read, and captured when its bytes are not its current ones; each current one gone is recorded
    as removed. A file that cannot be read is a notice (added to `notices`) and keeps its current capture."""
    found = scan.attachments
    report = AttachmentReport(files=len(found.paths) - len(found.unread))
    report.unchanged = report.files - len(found.unvouched)
    held = {path for (path,) in plain_rows(conn).execute("SELECT path FROM current_attachments WHERE kind = 'file'")}
    for rel, sha, size in _changed(conn, config, scan, report, notices):
        _record(conn, rel, sha, size, "file", now, commit)
        report.new.append(rel)
    gone = sorted(held - set(found.paths))
    gone_from = _current_of(conn, gone)
    for rel in gone:
        _record(conn, rel, gone_from[rel].sha256, 0, "removal", now, commit)
        report.removed.append(rel)
    return report


def _changed(conn: sqlite3.Connection, config: Config, scan: Scan, report: AttachmentReport, notices: list[Notice]):
    """(path, sha256, size) of each attachment the scan did not vouch for whose bytes are not its current ones,
    those bytes in the store once this returns; the others are counted unchanged. The stat of each one read is kept."""
    unvouched = scan.attachments.unvouched
    current = _current_of(conn, list(unvouched)) if unvouched else {}
    store = _Store(Path(config.state_dir) / ATTACHMENT_STORE)
    folder = os.path.join(config.content_dir, "")
    real_root = os.path.realpath(folder)
    changed: list[tuple[str, str, int]] = []
    try:
        for rel, (_, mtime) in unvouched.items():
            try:
                sha, size = _stored(folder + scan.on_disk.get(rel, rel), real_root, store, current.get(rel))
            except Unreadable as exc:  # vanished, unreadable or swapped since the scan: keep its last capture
                notices.append(skip_notice(rel, exc.error))
                report.files -= 1
                continue
            # The stat taken before the read: a write since leaves a newer mtime, which the next scan reads again.
            conn.execute("INSERT OR REPLACE INTO file_stats VALUES (?, ?, ?, ?, ?)", (rel, size, mtime, sha, time.time_ns()))
            if rel in current and current[rel].sha256 == sha:
                report.unchanged += 1
            else:
                changed.append((rel, sha, size))
        store.settle()
    finally:
        store.discard()
    return changed


def _current_of(conn: sqlite3.Connection, paths: list[str]) -> dict[str, Attachment]:
    """path -> the current attachment of each of `paths` that has one (removals left out)."""
    sql = "SELECT path, sha256, size FROM current_attachments WHERE kind = 'file' AND path IN ({ids})"
    return {path: Attachment(path, sha, size) for path, sha, size in rows_for_ids(conn, sql, paths)}


def _record(conn: sqlite3.Connection, rel: str, sha: str, size: int, kind: str, now: str, commit: str | None) -> None:
    conn.execute(
        "INSERT INTO attachment_captures (path, sha256, size, kind, captured_at, git_commit) VALUES (?, ?, ?, ?, ?, ?)",
        (rel, sha, size, kind, now, commit),
    )


class Unreadable(Exception):
    """The content file could not be opened or read (`error`); a failure to write the state folder is not this."""

    def __init__(self, error: OSError):
        super().__init__(str(error))
        self.error = error


def _stored(path: str, real_root: str, store: _Store, current: Attachment | None) -> tuple[str, int]:
    """(sha256, size) of the file at `path` (checked as `scan.open_regular` does), its bytes in `store`. A file
    of its current capture's size is hashed first: when it is that capture's bytes, kept, it is not copied."""
    try:
        fd, stat = open_regular(path, real_root)
    except OSError as exc:
        raise Unreadable(exc) from exc
    try:
        if current is not None and stat.st_size == current.size and store.holds(current.sha256):
            sha, size = _hashed(_chunks(fd))
            if sha == current.sha256:
                return sha, size
            os.lseek(fd, 0, os.SEEK_SET)
        return store.add(_chunks(fd))
    finally:
        os.close(fd)


def _hashed(chunks: Iterator[memoryview], fd: int | None = None) -> tuple[str, int]:
    """(sha256, size) of the bytes `chunks` give, each written to the file `fd` too when given."""
    digest, size = hashlib.sha256(), 0
    for chunk in chunks:
        digest.update(chunk)
        size += len(chunk)
        while fd is not None and chunk:
            chunk = chunk[os.write(fd, chunk) :]
    return digest.hexdigest(), size


def _chunks(fd: int) -> Iterator[memoryview]:
    """The bytes of the open file `fd`, READ_CHUNK at a time, each a view of one buffer (valid until the next)."""
    buffer = bytearray(READ_CHUNK)
    view = memoryview(buffer)
    while True:
        try:
            count = os.readv(fd, [buffer])
        except OSError as exc:
            raise Unreadable(exc) from exc
        if not count:
            return
        yield view[:count]


class _Store:
    """The attachment store of one capture run: bytes copied under temporary names, put under their hash by
    `settle`. Only a capture writes here, in its write transaction: one run at a time."""

    def __init__(self, folder: Path):
        self.folder = folder
        self.pending: list[tuple[Path, Path]] = []  # (temporary file, final file)
        self.names = itertools.count()
        self.started = False

    def holds(self, sha: str) -> bool:
        return os.path.exists(self.folder / sha[:2] / sha)

    def add(self, chunks: Iterator[memoryview]) -> tuple[str, int]:
        """Copy `chunks` to a temporary file while hashing them; (sha256, size). Bytes the store holds already
        are not kept twice."""
        temporary = self._temporary()
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            sha, size = _hashed(chunks, fd)
        except BaseException:
            os.close(fd)
            temporary.unlink()
            raise
        os.close(fd)
        if self.holds(sha):
            temporary.unlink()
        else:
            self.pending.append((temporary, self.folder / sha[:2] / sha))
        return sha, size

    def _temporary(self) -> Path:
        """A new temporary file name; the first one clears what a run stopped midway left."""
        temporaries = self.folder / TEMPORARY
        if not self.started:
            shutil.rmtree(temporaries, ignore_errors=True)
            temporaries.mkdir(parents=True)
            self.started = True
        return temporaries / f"{os.getpid()}-{next(self.names)}"

    def settle(self) -> None:
        """Put each copied file under its hash, durably: its bytes on disk before its name, and every name
        on disk before the caller commits the rows naming them. Two or more files are synced by one `syncfs`
        each time, where there is one (`libc.sync_filesystem`), else each by its fsync (the spool's rule)."""
        if not self.pending:
            return
        batch = len(self.pending) > 1
        if not (batch and sync_filesystem(self.folder)):
            for temporary, _ in self.pending:
                _fsync(temporary)
        for temporary, final in self.pending:
            final.parent.mkdir(exist_ok=True)
            os.replace(temporary, final)
        if not (batch and sync_filesystem(self.folder)):
            for folder in {self.folder, *(final.parent for _, final in self.pending)}:  # a new folder's name too
                _fsync(folder)
        self.pending.clear()

    def discard(self) -> None:
        """Remove the temporary files not settled (a run that failed)."""
        for temporary, _ in self.pending:
            temporary.unlink(missing_ok=True)
        self.pending.clear()


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
