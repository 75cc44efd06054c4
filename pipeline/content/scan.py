"""The content folder's files, and which of them must be read: the first step of a capture.

What is captured: every file of the content folder and its subfolders, but hidden ones (a
name starting with '.'), those an `exclude` pattern matches, the data files at the root
(`*.yaml`, read by `read_inside`) and the state folder, should it lie inside. The Markdown files
(`.md`, `.markdown`) are articles; the others are attachments (`attachments.py`). Content is
untrusted, so only regular files are read: a FIFO, a device or a socket is left out, and so is a
symbolic link, unless it resolves to a regular file inside the content folder (then it is
followed). A symbolic link to a folder is never walked. Each file left out is a `skipped-file`
warning naming it (`Notice`); the data files are checked by the same rule. A file name that is not
UTF-8 is captured under an escaped name (`escaped_name`), with a `not-utf8-name` warning.

A file whose size and modification time are those it had when it was last hashed, into
its path's current capture, is vouched for by them and not read. As git does for its
index, a file modified within RACY_NS of being hashed is read every time, so two writes
in one timestamp tick can never hide a change (attachments alike, while their bytes are
kept: `ATTACHMENT_STORE`). The scan only reads the store: a build
runs it in its forked helper process (`forks.ForkedHelper`) while it loads its passes, and a capture
takes it only if no capture was recorded since (`Scan.history`).
"""

from __future__ import annotations

import errno
import fnmatch
import os
import sqlite3
import stat as modes
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, NamedTuple

from pipeline.config import Config
from pipeline.errors import UserError
from pipeline.storage.store import plain_rows, reader

MARKDOWN_SUFFIXES = (".md", ".markdown")
DATA_SUFFIX = ".yaml"  # the data files (redirects.yaml, ...) at the root of the content folder
RACY_NS = 2_000_000_000
SKIPPED_FILE = "skipped-file"
NOT_UTF8_NAME = "not-utf8-name"
# Opening never waits (a FIFO without a writer) and never makes a terminal the controlling one.
OPEN_FLAGS = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
OPEN_FILES = "/proc/self/fd"  # Linux: where an open file's real path is read back
HAS_OPEN_FILES = os.path.isdir(OPEN_FILES)
READ_CHUNK = 1 << 20
ATTACHMENT_STORE = "attachments"  # in the state folder: the attachments' bytes, by hash (`attachments.py`)


class Notice(NamedTuple):
    """A file the capture left out (`skipped-file`) or renamed (`not-utf8-name`): a warning naming it."""

    path: str
    code: str
    message: str


class Skipped(OSError):
    """A file that may not be read, and why (its `strerror`)."""

    def __init__(self, reason: str):
        super().__init__(0, reason)


@dataclass
class Listing:
    """The files of the content folder to capture, as `list_sources` found them."""

    paths: list[str]  # the Markdown files: sorted, '/'-separated, as the store records them (`escaped_name`)
    on_disk: dict[str, str] = field(default_factory=dict)  # escaped path -> its name on disk (not UTF-8)
    notices: list[Notice] = field(default_factory=list)
    attachments: list[str] = field(default_factory=list)  # the other files, as `paths`


@dataclass
class AttachmentScan:
    """The attachments of the content folder (sorted paths), and the stat of each one to read (as `Scan`'s)."""

    paths: list[str] = field(default_factory=list)
    unvouched: dict[str, tuple[int, int]] = field(default_factory=dict)
    unread: list[str] = field(default_factory=list)


@dataclass
class Scan:
    """The Markdown files of the content folder (sorted paths), and the stat of each one to read."""

    paths: list[str]
    unvouched: dict[str, tuple[int, int]] = field(default_factory=dict)  # path -> (size, mtime_ns) before reading
    unread: list[str] = field(default_factory=list)  # of `paths`, those the stat failed on: left at their capture
    notices: list[Notice] = field(default_factory=list)
    on_disk: dict[str, str] = field(default_factory=dict)  # escaped path -> its name on disk (`Listing.on_disk`)
    history: int = 0  # the captures recorded when the store was read (`history_mark`)
    attachments: AttachmentScan = field(default_factory=AttachmentScan)

    def mark_unread(self, rel: str, error: OSError) -> None:
        self.unread.append(rel)
        self.notices.append(skip_notice(rel, error))

    def mark_attachment_unread(self, rel: str, error: OSError) -> None:
        self.attachments.unread.append(rel)
        self.notices.append(skip_notice(rel, error))


def scan_sources(config: Config, db: str | None = None) -> Scan:
    """Walk and stat the content folder; with `db` (a store's path), vouch for the files its file_stats may."""
    listing = list_sources(config)
    kept = os.path.isdir(os.path.join(config.state_dir, ATTACHMENT_STORE))  # else each attachment is read again
    history, known = _vouching(reader(db), kept) if db is not None else (0, {})
    folder = os.path.join(config.content_dir, "")  # with its separator: no join per file
    scan = Scan(listing.paths, notices=listing.notices, on_disk=listing.on_disk, history=history)
    scan.attachments.paths = listing.attachments
    _stat_each(folder, listing.paths, listing.on_disk, known, scan.unvouched, scan.mark_unread)
    _stat_each(folder, listing.attachments, listing.on_disk, known, scan.attachments.unvouched,
               scan.mark_attachment_unread)  # fmt: skip
    return scan


def _stat_each(folder: str, paths: list[str], on_disk: dict[str, str], known: dict, unvouched: dict,
               unread: Callable[[str, OSError], None]) -> None:  # fmt: skip
    """Stat each of `paths`: those the stats `known` (`_vouching`) do not vouch for go into `unvouched`, with their
    stat before reading; those the stat fails on, to `unread`."""
    # A file replaced since the walk by what may not be read is refused when read (`open_regular`).
    for rel in paths:
        try:
            stat = os.stat(folder + (on_disk.get(rel, rel) if on_disk else rel))
        except OSError as exc:  # vanished or unreadable mid-walk: report it, keep going
            unread(rel, exc)
            continue
        size, mtime, checked = known.get(rel, (None, None, 0))
        if (size, mtime) != (stat.st_size, stat.st_mtime_ns) or mtime >= checked - RACY_NS:
            unvouched[rel] = (stat.st_size, stat.st_mtime_ns)


# The attachments' stats (few) are joined from their side: file_stats holds a row per Markdown file too.
VOUCHED_ATTACHMENTS = """
    UNION ALL SELECT f.path, f.size, f.mtime_ns, f.checked_ns FROM current_attachments a
    CROSS JOIN file_stats f ON f.path = a.path AND f.sha256 = a.sha256 AND a.kind = 'file'"""


def _vouching(conn: sqlite3.Connection, attachments: bool) -> tuple[int, dict[str, tuple[int, int, int]]]:
    """(history mark, path -> (size, mtime_ns, checked_ns) of each file last hashed into its current capture, of
    the attachments too with `attachments`), read in one transaction (the join, in SQLite, saves making a dict
    of every path's sha256 here)."""
    conn.execute("BEGIN")
    try:
        rows = plain_rows(conn).execute(
            """SELECT f.path, f.size, f.mtime_ns, f.checked_ns FROM file_stats f
               JOIN current_captures c ON c.path = f.path AND c.sha256 = f.sha256 AND c.kind = 'file'"""
            + (VOUCHED_ATTACHMENTS if attachments else "")
        )  # fmt: skip
        return history_mark(conn), {path: (size, mtime, checked) for path, size, mtime, checked in rows}
    finally:
        conn.execute("COMMIT")


def history_mark(conn: sqlite3.Connection) -> int:
    """The sum of the ids of the last capture_history and attachment_captures rows (0: none): it grows with
    every capture recorded (rows are never deleted)."""
    return conn.execute(
        """SELECT (SELECT COALESCE(MAX(id), 0) FROM capture_history)
                  + (SELECT COALESCE(MAX(id), 0) FROM attachment_captures)"""
    ).fetchone()[0]


def require_content_folder(folder: Path) -> Path:
    """`folder`, when it is a folder; else a UserError, raised before any state is made (a command that
    fails creates nothing)."""
    if not Path(folder).is_dir():
        raise UserError(f"{folder}: content folder not found")
    return Path(folder)


def list_sources(config: Config) -> Listing:
    """The files to capture (see the module's docstring), with a notice of each one left out or renamed."""
    root = os.path.join(require_content_folder(config.content_dir), "")
    walk = _Walk(os.path.realpath(root), config.exclude, _folder_inside(root, config.state_dir))
    while walk.folders:
        folder = walk.folders.pop()
        try:
            with os.scandir(root + folder) as entries:
                for entry in entries:
                    if not entry.name.startswith("."):
                        walk.take(entry, folder)
        except OSError as exc:  # an unreadable folder: report it, keep going
            walk.notices.append(skip_notice(escaped_name(folder.rstrip("/") or "."), exc))
    listing, others = _escaped(walk.found), _escaped(walk.attachments)
    listing.attachments = others.paths
    listing.on_disk.update(others.on_disk)
    listing.notices = sorted(listing.notices + others.notices + walk.notices)
    return listing


def _folder_inside(root: str, folder: Path) -> str | None:
    """`folder` as the walk names it ('/'-ended), when it lies inside the content folder `root`: a state folder
    there holds what a capture writes (the attachments' bytes), never content."""
    real_root, real = os.path.realpath(root), os.path.realpath(folder)
    return os.path.relpath(real, real_root) + "/" if _inside(real_root, real) else None


@dataclass
class _Walk:
    """What a walk of the content folder found so far (`list_sources`)."""

    real_root: str  # the content folder, resolved
    exclude: list[str]
    state: str | None = None  # the state folder, when it lies inside the content folder (`_folder_inside`)
    folders: list[str] = field(default_factory=lambda: [""])  # to walk, each ending in '/' (but the root)
    found: list[str] = field(default_factory=list)  # the Markdown files to capture, by their names on disk
    attachments: list[str] = field(default_factory=list)  # the other files to capture, likewise
    notices: list[Notice] = field(default_factory=list)

    def take(self, entry: os.DirEntry, folder: str) -> None:
        """Walk the entry of `folder` later (a folder), take it (a file to capture), or report it left out."""
        rel = folder + entry.name
        if entry.is_dir(follow_symlinks=False):
            if rel + "/" != self.state:
                self.folders.append(rel + "/")
            return
        markdown = entry.name.lower().endswith(MARKDOWN_SUFFIXES)
        if markdown and entry.is_file(follow_symlinks=False):  # nearly every file a walk meets (not a link)
            if not self.excluded(rel):
                self.found.append(rel)
            return
        if self.excluded(rel):
            return
        data = not folder and entry.name.endswith(DATA_SUFFIX)
        link = entry.is_symlink()
        try:
            if link:
                check_link(entry.path, self.real_root)
            elif not entry.is_file(follow_symlinks=False):
                raise Skipped(_not_regular(entry.stat(follow_symlinks=False).st_mode))
            if data and not os.access(entry.path, os.R_OK):  # read as absent by `read_inside`: say so here
                raise PermissionError(errno.EACCES, os.strerror(errno.EACCES))
        except OSError as exc:
            self.notices.append(skip_notice(escaped_name(rel), exc))
            return
        if markdown:
            self.found.append(rel)
        elif not data:
            self.attachments.append(rel)

    def excluded(self, rel: str) -> bool:
        return any(fnmatch.fnmatch(rel, pattern) for pattern in self.exclude)


def check_link(path: str, real_root: str) -> None:
    """Raise Skipped unless the symbolic link `path` resolves to a regular file inside `real_root` (resolved)."""
    target = os.path.realpath(path)
    if target != real_root and not _inside(real_root, target):  # the content folder itself is a folder inside
        raise Skipped(f"a symbolic link to outside the content folder (to {os.readlink(path)})")  # as written: stable
    mode = os.stat(target).st_mode
    if modes.S_ISDIR(mode):
        raise Skipped("a symbolic link to a folder (not walked)")
    if not modes.S_ISREG(mode):
        raise Skipped(f"a symbolic link to {_not_regular(mode)}")


def _inside(real_root: str, real_path: str) -> bool:
    return real_path.startswith(os.path.join(real_root, ""))


def _not_regular(mode: int) -> str:
    kinds = ((modes.S_ISDIR, "a folder"), (modes.S_ISFIFO, "a FIFO"), (modes.S_ISCHR, "a character device"),
             (modes.S_ISBLK, "a block device"), (modes.S_ISSOCK, "a socket"))  # fmt: skip
    kind = next((name for test, name in kinds if test(mode)), "a special file")
    return f"{kind}, not a regular file"


def skip_notice(rel: str, error: OSError) -> Notice:
    """The `skipped-file` warning of a file not read for `error`."""
    reason = error.strerror if isinstance(error, Skipped) else f"cannot read: {error.strerror or error}"
    return Notice(rel, SKIPPED_FILE, reason)


def escaped_name(rel: str) -> str:
    """`rel` as the store records it: itself when it is UTF-8 (nearly always); else with each byte that is not
    UTF-8 as `%XX` and each `%` as `%25`, so that `urllib.parse.unquote_to_bytes` gives the name's bytes back
    and two names never share one."""
    try:
        rel.encode()
        return rel
    except UnicodeEncodeError:
        text = os.fsencode(rel).decode("utf-8", "surrogateescape")  # the bytes that are not UTF-8 as U+DC80-DCFF
        return "".join(f"%{ord(c) - 0xDC00:02X}" if "\udc80" <= c <= "\udcff" else "%25" if c == "%" else c
                       for c in text)  # fmt: skip


def _escaped(found: list[str]) -> Listing:
    """The listing of the files `found` (names on disk), those whose name is not UTF-8 escaped, but one whose
    escaped name another file has, which is left out."""
    renamed = {rel: name for rel in found if not rel.isascii() and (name := escaped_name(rel)) != rel}
    listing = Listing([rel for rel in found if rel not in renamed] if renamed else found)
    taken = set(listing.paths) if renamed else set()
    for rel, name in sorted(renamed.items()):
        if name in taken:
            listing.notices.append(Notice(name, SKIPPED_FILE, "a file name that is not UTF-8, whose escaped name "
                                                              "another file has"))  # fmt: skip
            continue
        listing.paths.append(name)
        listing.on_disk[name] = rel
        listing.notices.append(Notice(name, NOT_UTF8_NAME, f"the file name is not UTF-8: captured as {name} "
                                                           "(each byte that is not UTF-8 as %XX)"))  # fmt: skip
    listing.paths.sort()
    return listing


def open_regular(path: str, real_root: str) -> tuple[int, os.stat_result]:
    """A descriptor of the regular file at `path`, inside the content folder (`real_root`, resolved), and its stat.

    The file is checked once open, by its descriptor: a path swapped since it was scanned, for a FIFO, a
    device or a link out of the folder, is refused (Skipped), and opening never waits for a FIFO's writer.
    """
    fd = os.open(path, OPEN_FLAGS)
    try:
        stat = os.fstat(fd)
        if not modes.S_ISREG(stat.st_mode):
            raise Skipped(_not_regular(stat.st_mode))
        if HAS_OPEN_FILES and not _inside(real_root, os.readlink(f"{OPEN_FILES}/{fd}")):
            raise Skipped("a symbolic link to outside the content folder")
    except BaseException:
        os.close(fd)
        raise
    return fd, stat


def read_regular(path: str, real_root: str) -> bytes:
    """The bytes of the regular file at `path`, inside the content folder (`open_regular`). Read with the os
    module's calls: a file object's buffers and checks cost more than these checks."""
    fd, stat = open_regular(path, real_root)
    try:
        parts = [os.read(fd, stat.st_size + 1)]
        while parts[-1]:  # to an empty read: it may have grown since the fstat
            parts.append(os.read(fd, READ_CHUNK))
        return parts[0] if len(parts) == 2 else b"".join(parts)
    finally:
        os.close(fd)


def read_inside(folder: Path, name: str) -> bytes | None:
    """The bytes of the file `name` of the content folder `folder`, or None: when there is none, or it may not
    be read (not a regular file, or a link out of the folder: the scan warns of it, `list_sources`)."""
    path = os.path.join(folder, name)
    real_root = os.path.realpath(folder)
    try:
        mode = os.lstat(path).st_mode
        if modes.S_ISLNK(mode):
            check_link(path, real_root)
        elif not modes.S_ISREG(mode):
            return None
        return read_regular(path, real_root)
    except OSError:
        return None
