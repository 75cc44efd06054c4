"""Run shares of one job in forked processes: `fork_map`'s first share here, `Later`'s all there, while
this process does other work.

Forked children inherit everything already loaded (passes and their
compiled contracts, the wiki index, the templates) without pickling it; only
their results travel back, pickled, each through its own pipe. Without
`fork` (not on Linux), every share runs here, one after another.

A plain `os.fork` and a pipe, not `multiprocessing`: its import, queue and
feeder thread cost an edit build of 10,000 articles about 20 ms for the
one fork it makes (the site check beside capture), and nothing here needs them.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys
import traceback
from typing import Callable, TypeVar

Share = TypeVar("Share")
Result = TypeVar("Result")


class ForkedError(RuntimeError):
    """A forked share raised, or its process died before sending a result."""


def fork_map(function: Callable[[Share], Result], shares: list[Share]) -> list[Result]:
    """`[function(share) for share in shares]`, the shares after the first in forked processes."""
    if len(shares) <= 1 or not hasattr(os, "fork"):
        return [function(share) for share in shares]
    _flush()  # or a child would print again what this process had not yet
    children = [_start(function, share) for share in shares[1:]]
    results = []
    try:
        results.append(function(shares[0]))
        while children:
            results.append(_result(children.pop(0)))
        return results
    finally:
        _stop_all(children)  # those not read: this process raised (or was interrupted) first


def side_by_side(*steps: Callable[[], Result]) -> list[Result]:
    """`[step() for step in steps]`, the first here and each other in a forked process meanwhile."""
    return fork_map(lambda step: step(), list(steps))


class Later:
    """`[function(item) for item in items]`, started now in `shares` forked processes (the items dealt
    round-robin), its results when asked for (`result`): for work this process overlaps with its own
    (capture inserts one chunk of files while the next is parsed). With one share, or without `fork`,
    the items are done here when the results are asked for. `stop` ends the processes not yet asked."""

    def __init__(self, function: Callable[[Share], Result], items: list[Share], shares: int) -> None:
        self._run_here = lambda: [function(item) for item in items]
        self._size, self._children = len(items), []
        if shares <= 1 or not hasattr(os, "fork"):
            return
        self._run_here = None
        _flush()
        try:
            for share in range(shares):
                self._children.append(_start(lambda share: [function(item) for item in items[share::shares]], share))
        except BaseException:
            self.stop()
            raise

    def result(self) -> list[Result]:
        if self._run_here is not None:
            return self._run_here()
        results: list = [None] * self._size
        shares = len(self._children)
        try:
            for share in range(shares):
                results[share::shares] = _result(self._children.pop(0))
        finally:
            self.stop()
        return results

    def stop(self) -> None:
        _stop_all(self._children)


def _start(function, share) -> tuple[int, int]:
    """Fork a child that runs `function(share)` and writes (ok, result or traceback) to a pipe; (pid, read end)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read
    os.close(read)  # the child: never returns, and leaves the parent's buffers and connections alone
    try:
        payload = pickle.dumps((True, function(share)), protocol=pickle.HIGHEST_PROTOCOL)
    except BaseException:  # the parent raises it; a child must never exit silently
        payload = pickle.dumps((False, traceback.format_exc()))
    try:
        with os.fdopen(write, "wb") as pipe:
            pipe.write(payload)
        _flush()
    finally:
        os._exit(0)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # closed or replaced: nothing to flush
            pass


def _result(child: tuple[int, int]):
    pid, read = child
    with os.fdopen(read, "rb") as pipe:
        data = pipe.read()
    os.waitpid(pid, 0)
    if not data:
        raise ForkedError("a forked process died before sending its result")
    ok, value = pickle.loads(data)
    if not ok:
        raise ForkedError(value)
    return value


def _stop_all(children: list[tuple[int, int]]) -> None:
    """Stop and reap the children `_start` made whose results were not read (emptying the list)."""
    while children:
        pid, read = children.pop()
        os.close(read)
        _stop(pid)


def _stop(pid: int) -> None:
    try:
        if os.waitpid(pid, os.WNOHANG) == (0, 0):  # still running
            os.kill(pid, signal.SIGKILL)  # not SIGTERM: it may have a handler (`spool drain` sets one)
            os.waitpid(pid, 0)
    except ChildProcessError:  # reaped already
        pass
