"""The build lock: one build of a wiki at a time, across processes.

A build writes the output folder, the search index and the state folder's
records; two at once broke each other (a manifest's temporary file taken
from under the other, a search index covering part of the site). So a build
that writes the site holds an exclusive `flock` on `build.lock` in the state
folder: a second one waits for it (saying so, once), or with `--no-wait`
stops at once with exit status 75 (EX_TEMPFAIL: try again later).

The lock belongs to an open file, so it ends with the process however the
process ends (a SIGKILL too): no stale lock is ever left to clear. A process
holding it may hold it again (its hold is shared, not waited for), and may
hand a share of it to a thread that outlives the build (`share`: the
preview's search index, built in the background). The processes a build forks
close their copy at once, so none outliving its parent keeps the lock.
"""

from __future__ import annotations

import fcntl
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator

from pipeline.errors import UserError

LOCK_FILE = "build.lock"  # in the state folder
WAITING = "waiting for another build of this wiki…"
BUSY_STATUS = 75  # EX_TEMPFAIL

_held: dict[str, list[int]] = {}  # real path of a lock file -> this process's descriptors holding it


class BuildBusy(UserError):
    """Another process is building this wiki, and this build was told not to wait (`--no-wait`)."""

    status = BUSY_STATUS


def lock_file(state_dir: Path) -> Path:
    return Path(state_dir) / LOCK_FILE


@contextmanager
def build_lock(state_dir: Path, wait: bool = True, waiting: Callable[[], None] | None = None) -> Iterator[None]:
    """Hold the build lock of the wiki whose state folder is `state_dir` for the block (made if missing).

    Held by another process: with `wait`, `waiting` is called once (by default it prints WAITING on
    stderr) and the lock waited for; without, BuildBusy is raised.
    """
    fd = take(state_dir, wait, waiting or _say_waiting)
    try:
        yield
    finally:
        release(fd)


def take(state_dir: Path, wait: bool = True, waiting: Callable[[], None] = lambda: None) -> int:
    """Take the lock (see `build_lock`); return the descriptor that holds it, for `release`."""
    held = share(state_dir)  # held here already: share this process's hold
    if held is not None:
        return held
    path = lock_file(state_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    key = os.path.realpath(path)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if not wait:
                raise BuildBusy(f"{path}: another build of this wiki is running; try again when it ends") from None
            waiting()
            fcntl.flock(fd, fcntl.LOCK_EX)
    except BaseException:  # refused, or interrupted while waiting (Ctrl-C)
        os.close(fd)
        raise
    return _keep(key, fd)


def share(state_dir: Path) -> int | None:
    """A share of the lock this process holds on `state_dir` (a descriptor for `release`), or None when
    it holds none: a thread handed it keeps the wiki locked until it releases it."""
    key = os.path.realpath(lock_file(state_dir))
    return _keep(key, os.dup(_held[key][0])) if _held.get(key) else None


def release(fd: int | None) -> None:
    """Let go of one hold (`take`'s or `share`'s); the lock ends with this process's last one."""
    if fd is None:
        return
    for key, fds in list(_held.items()):
        if fd in fds:
            fds.remove(fd)
            if not fds:
                del _held[key]
            os.close(fd)
            return


def _keep(key: str, fd: int) -> int:
    _held.setdefault(key, []).append(fd)
    return fd


def _say_waiting() -> None:
    print(f"pipeline: {WAITING}", file=sys.stderr, flush=True)


def _forget_in_child() -> None:
    """A forked process closes its copies: the lock must end with the process that took it."""
    for fds in _held.values():
        for fd in fds:
            try:
                os.close(fd)
            except OSError:
                pass
    _held.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
