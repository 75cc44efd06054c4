"""Run shares of one job in forked processes: `fork_map`'s first share here, `Later`'s all there, while
this process does other work; `Standby`'s one call, given after the fork.

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


class Standby:
    """One process forked now, while this one is still small, to run one call given later (`start`):
    its result when asked for (`result`), while this process does other work.

    A process forked once a build has loaded its wiki shares hundreds of MB with it, and each
    page either of them then writes to is copied: listing an edit build's diagnostics in a
    process forked beside the render saved nothing at 10,000 articles. Forked before the wiki
    is loaded, it shares little. The call is pickled to it (a module-level function, plain
    data). Without `fork`, or once stopped, the call runs here when its result is asked for.
    Used as a context, it is stopped at the end.
    """

    def __init__(self, forked: bool = True) -> None:
        """Fork the process (not without `forked`: then every call is made here)."""
        self._call: tuple | None = None
        self._child: tuple[int, int] | None = None
        self._order: int | None = None
        self.forked = forked and hasattr(os, "fork")
        if not self.forked:
            return
        _flush()
        read, self._order = os.pipe()
        self._child = _start(lambda _: _ordered(read, self._order), None)
        os.close(read)

    def __enter__(self) -> Standby:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self, function: Callable[..., Result], *args) -> None:
        """Hand the call to the process (without one, it is made here when its result is asked for)."""
        self._call = (function, args)
        if self._order is not None:
            data = pickle.dumps(self._call, protocol=pickle.HIGHEST_PROTOCOL)
            try:
                with os.fdopen(self._order, "wb") as pipe:
                    self._order = None
                    pipe.write(len(data).to_bytes(8, "little") + data)
            except BrokenPipeError:  # the process died: `result` says so
                pass

    def result(self) -> Result:
        function, args = self._call
        if self._child is None:  # never forked, or stopped
            return function(*args)
        child, self._child = self._child, None
        return _result(child)

    def stop(self) -> None:
        """End the process (a call given and not asked for is dropped)."""
        if self._order is not None:
            os.close(self._order)  # the process reads the end of its orders, and exits
            self._order = None
        if self._child is not None:
            _stop_all([self._child])
            self._child = None


def _ordered(read: int, order: int):
    """The standby process: wait for the call its parent sends, and make it (None if none came).

    The call comes with its length: the processes the parent forks after this one hold the
    write end of the pipe too, so its end is no sign that the call is all there.
    """
    os.close(order)
    with os.fdopen(read, "rb") as pipe:
        size = pipe.read(8)
        if len(size) < 8:  # the parent stopped it before sending one
            return None
        function, args = pickle.loads(pipe.read(int.from_bytes(size, "little")))
    return function(*args)


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
