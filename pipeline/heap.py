"""Giving freed memory back to the system before a process forks and grows again.

Python frees a build's transient objects (the outputs a plan read, the rows it
wrote) into the C heap, which keeps their pages: a process's resident size stays at
its high-water mark, the processes it forks start from it, and what it allocates
next lands on top of it wherever the freed pages are too fragmented to reuse.
glibc's `malloc_trim` returns the free pages; elsewhere this does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from functools import lru_cache


@lru_cache(maxsize=1)
def _trim():
    name = ctypes.util.find_library("c")
    try:
        return ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):  # no such library, or not glibc
        return None


def give_back() -> bool:
    """Return the heap's free pages to the system; whether this C library can."""
    trim = _trim()
    if trim is None:
        return False
    trim(0)
    return True
