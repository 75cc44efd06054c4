"""Durable file operations: the fsync-then-rename steps that every spool write uses.

A file becomes visible under its final name only once its bytes are on disk, and
a rename is made durable by syncing the directory that received the entry. Each
step passes through the crash hook in `faults`, under a point named STAGE.OP.
"""

from __future__ import annotations

import os
import secrets
from pathlib import Path

from pipeline.runtime.libc import sync_filesystem
from pipeline.spool import faults

TMP_PREFIX = ".tmp-"


def fsync_dir(path: Path, point: str | None = None) -> None:
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if point is None:
            os.fsync(fd)
        else:
            with faults.around(point):
                os.fsync(fd)
    finally:
        os.close(fd)


def rename(src: Path, dst: Path, stage: str) -> None:
    """Move src to dst durably; FileNotFoundError means another process moved src first."""
    with faults.around(f"{stage}.rename"):
        os.rename(src, dst)
    fsync_dir(dst.parent, f"{stage}.dirsync")


def write_durably(final: Path, data: bytes, tmp_dir: Path, stage: str) -> None:
    """Write to a temporary file in tmp_dir, fsync it, rename it to final, fsync final's folder.

    tmp_dir must be on the same filesystem as final. A crash at any step leaves
    either nothing under `final` or the complete bytes, never a part of them.
    """
    write_all_durably([(final, data)], tmp_dir, stage)


def write_all_durably(files: list[tuple[Path, bytes]], tmp_dir: Path, stage: str) -> None:
    """`write_durably` for many files: each written under a temporary name, all synced, then
    each renamed, then each folder they went to fsynced once (a folder's fsync costs what a
    file's does). Two or more files are synced by one `syncfs` of their filesystem where there
    is one (`libc.sync_filesystem`), else each by its fsync. A crash before the folder syncs may
    lose a rename, never leave part of a file; the caller returns only after them."""
    written: list[tuple[Path, Path]] = []
    batch = len(files) > 1
    try:
        for final, data in files:
            tmp = tmp_dir / f"{TMP_PREFIX}{final.name}.{secrets.token_hex(4)}"
            written.append((tmp, final))  # before the write: a failed one leaves its temporary file too
            _write(tmp, data, stage, synced=not batch)
        if batch:
            _sync_all([tmp for tmp, _ in written], tmp_dir, stage)
        for tmp, final in written:
            with faults.around(f"{stage}.rename"):
                os.rename(tmp, final)
        for folder in dict.fromkeys(final.parent for _, final in written):
            fsync_dir(folder, f"{stage}.dirsync")
    except BaseException:
        for tmp, _ in written:  # a failed write (disk full...) must not leave litter
            tmp.unlink(missing_ok=True)
        raise


def _write(path: Path, data: bytes, stage: str, synced: bool) -> None:
    with faults.around(f"{stage}.open"):
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        faults.write_all(fd, data, f"{stage}.write")
        if synced:
            with faults.around(f"{stage}.fsync"):
                os.fsync(fd)
    finally:
        os.close(fd)


def _sync_all(paths: list[Path], folder: Path, stage: str) -> None:
    with faults.around(f"{stage}.fsync"):
        if sync_filesystem(folder):
            return
        for path in paths:
            fd = os.open(path, os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
