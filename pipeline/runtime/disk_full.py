"""A build stopped by a full disk: one line naming where and why, not a traceback.

Whatever a full disk stops, the next build (once there is room) finishes:
the site's files are named in the writer's journal before they are written,
the state folder's records are replaced whole (`jsonio.save`), and SQLite
rolls back what it could not commit. So the error needs no more than the
path that could not be written, and the cause. A write that names no path (a
file's bytes, not its opening) is told by its folder: the output or state
folder whose disk has no room left. A forked process's error comes back as
the error it raised (`ForkedError.cause`), told the same way.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from pipeline.errors import UserError
from pipeline.runtime.forks import ForkedError

FULL = {errno.ENOSPC, errno.EDQUOT}
SQLITE_FULL = 13  # sqlite3's SQLITE_FULL: "database or disk is full"
HINT = "free some space and build again"
STORE_FULL = f"the state database could not be written (database or disk is full); {HINT}"


@contextmanager
def disk_full_is_an_error(folders: list[Path]) -> Iterator[None]:
    """Run the block; a full disk (or quota) ends it with a UserError naming the path and the cause.
    `folders` are those the block writes in (output, state), for a write that names no path."""
    try:
        yield
    except (OSError, sqlite3.Error, ForkedError) as exc:
        message = full_disk_message(exc, folders)
        if message is None:
            raise
        raise UserError(message) from None


def full_disk_message(exc: BaseException, folders: list[Path]) -> str | None:
    """`path: cause` when `exc` (or, from a forked process, what it raised) is a full disk, else None."""
    while isinstance(exc, ForkedError):
        exc = exc.cause  # what the forked process raised (None when it did not pickle: not told apart)
    if isinstance(exc, OSError) and exc.errno in FULL:
        return f"{exc.filename or _full_folder(folders)}: {exc.strerror or os.strerror(exc.errno)}; {HINT}"
    if isinstance(exc, sqlite3.Error) and _sqlite_full(exc):
        return f"{_full_folder(folders)}: {STORE_FULL}"
    return None


def _sqlite_full(exc: sqlite3.Error) -> bool:
    return getattr(exc, "sqlite_errorcode", None) == SQLITE_FULL or "database or disk is full" in str(exc)


def _full_folder(folders: list[Path]) -> str:
    """The first of `folders` whose disk has no room left (else the first): where a write without a path failed."""
    for folder in folders:
        try:
            if os.statvfs(folder).f_bavail == 0:
                return str(folder)
        except OSError:
            continue
    return str(folders[0]) if folders else "(unknown path)"
