"""Two calls of the C library that Python's os module lacks, where the C library has them (glibc).

- `give_back_memory`: glibc's `malloc_trim`. Python frees a build's transient
  objects (the outputs a plan read, the rows it wrote) into the C heap, which keeps
  their pages: the process stays at its high-water mark, the processes it forks
  start from it, and what it allocates next lands on top wherever the freed pages
  are too fragmented to reuse. The trim returns the free pages.
- `sync_filesystem`: Linux's `syncfs`, every file written on one filesystem on disk
  in one call. Syncing a batch of new files one `fsync` at a time costs a journal
  commit each (with many edit events, most of
  each worker's cold build).
"""

from __future__ import annotations

import ctypes
import os
from functools import lru_cache


@lru_cache(maxsize=None)
def _function(name: str):
    """The C library's function `name`, or None when there is none.

    Looked up among the symbols the process has loaded, the C library's among them (finding the
    library by name would run `ldconfig` at each build).
    """
    try:
        return getattr(ctypes.CDLL(None, use_errno=True), name)
    except (OSError, TypeError, AttributeError):  # TypeError: no such handle (Windows)
        return None


def give_back_memory() -> bool:
    """Return the heap's free pages to the system; whether this C library can."""
    trim = _function("malloc_trim")
    if trim is None:
        return False
    trim(0)
    return True


def sync_filesystem(folder: str | os.PathLike) -> bool:
    """Put on disk everything written to the filesystem holding `folder`; False when this system
    cannot (the caller syncs each file). Raises OSError when the disk reports an error."""
    syncfs = _function("syncfs")
    if syncfs is None:
        return False
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        if syncfs(fd) != 0:
            error = ctypes.get_errno()
            raise OSError(error, f"syncfs: {os.strerror(error)}", str(folder))
    finally:
        os.close(fd)
    return True
