"""Run shares of one job in forked processes: `fork_map`'s first share here (or there too), `Later`'s all
there, while this process does other work; `ForkedHelper`'s calls, given after the fork.

Forked children inherit everything already loaded (passes and their
compiled contracts, the wiki index, the templates) without pickling it; only
their results travel back, pickled, each through its own pipe. Without
`fork` (not on Linux), every share runs here, one after another.

A plain `os.fork` and a pipe, not `multiprocessing`: its import, queue and
feeder thread cost an edit build noticeable time for the
first fork it makes, and nothing here needs them.
"""

from __future__ import annotations

import os
import pickle
import select
import signal
import sys
import traceback
from typing import Any, Callable, NamedTuple, TypeVar

Share = TypeVar("Share")
Result = TypeVar("Result")


class ForkedError(RuntimeError):
    """A forked share raised, or its process died before sending a result. The message is the share's
    traceback; `cause` is what it raised, as data (an OSError's errno and filename...), when that survives
    pickling, else None."""

    def __init__(self, message: str, cause: BaseException | None = None) -> None:
        super().__init__(message)
        self.cause = cause

    def raised(self) -> str:
        """What the share raised, in one line: its traceback's last (the whole message, when it has one line)."""
        lines = str(self).strip().splitlines()
        return lines[-1] if lines else "it stopped"


class Afterwards(NamedTuple):
    """What a `ForkedHelper` call returns when it has more to do once its result is sent: `value` goes back at
    once, then the helper process runs `then()` before its next call (loading what a later call may need, while
    the parent goes on). A call made in the parent's process returns `value` alone: what `then` loads, a later
    call there loads when it needs it."""

    value: Any
    then: Callable[[], None]


def fork_map(
    function: Callable[[Share], Result], shares: list[Share], each: Callable[[Result], Any] | None = None,
    here: bool = True,
) -> list:
    """`[function(share) for share in shares]`, the shares after the first in forked processes (the first too,
    unless `here`: this process then grows by the results alone, not by what making them took). With `each`,
    `[each(function(share)) for share in shares]`: each result is handed on as soon as it is made or read, in
    order, so a big one need not be held while the next is read."""
    each = each or (lambda result: result)
    if len(shares) <= 1 or not hasattr(os, "fork"):
        return [each(function(share)) for share in shares]
    _flush()  # or a child would print again what this process had not yet
    children = [_start(function, share) for share in shares[1 if here else 0:]]
    results = []
    try:
        if here:
            results.append(each(function(shares[0])))
        while children:
            results.append(each(_result(children.pop(0))))
        return results
    finally:
        _stop_all(children)  # those not read: this process raised (or was interrupted) first


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


class ForkedHelper:
    """A process forked now, while this one is still small, to make calls given later (`start`), one at a
    time: each call's result when asked for (`result`), while this process does other work.

    A process forked once a build has loaded its wiki shares hundreds of MB with it, and each
    page either of them then writes to is copied: listing an edit build's diagnostics in a
    process forked beside the render saved nothing in a big wiki. Forked before the wiki
    is loaded, it shares little. Calls are pickled to it (module-level functions, plain data),
    each with its length, as is each result: the processes this one forks later hold the
    pipes' ends too, so the end of a pipe is no sign that a message is all there. Without
    `fork`, or once stopped, a call is made here when its result is asked for. Used as a
    context, it is stopped at the end.
    """

    def __init__(self, forked: bool = True, nice: int = 0) -> None:
        """Fork the process (not without `forked`: then every call is made here), `nice` more than this one:
        a process whose work is needed later than the others' gives way to them."""
        self._call: tuple | None = None
        self._pid: int | None = None
        self.forked = forked and hasattr(os, "fork")
        if not self.forked:
            return
        _flush()
        orders, order_end = os.pipe()
        result_end, results = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns, and leaves the parent's buffers and connections alone
            try:
                os.close(order_end)
                os.close(result_end)
                os.nice(nice)
                _serve(orders, results)
            finally:
                os._exit(0)
        os.close(orders)
        os.close(results)
        self._pid, self._orders, self._results = pid, os.fdopen(order_end, "wb"), os.fdopen(result_end, "rb")

    def __enter__(self) -> ForkedHelper:
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def start(self, function: Callable[..., Result], *args) -> None:
        """Hand a call to the process (without one, it is made here when its result is asked for)."""
        if self._call is not None:  # its result may fill the pipe back while this one waits to send the next
            raise RuntimeError("a standby makes one call at a time: ask for the last one's result first")
        self._call = (function, args)
        if self._pid is not None:
            try:
                _send(self._orders, pickle.dumps(self._call, protocol=pickle.HIGHEST_PROTOCOL))
            except BrokenPipeError:  # the process died: `result` says so
                pass

    def result(self) -> Result:
        """The call's result. A call that failed there, or whose process died, is made again here,
        where what it raises is raised as itself (a missing folder is an error message, not another
        process's traceback): a forked helper's calls are reads, and writes made whole again."""
        (function, args), self._call = self._call, None
        if self._pid is not None:
            payload = _received(self._results)
            if payload is None:  # the process died
                self.stop()
            else:
                ok, value = pickle.loads(payload)
                if ok:
                    return value
        made = function(*args)
        return made.value if isinstance(made, Afterwards) else made

    def ready(self) -> bool:
        """Whether asking for the call's result now would not wait for the process (it has sent it, or died).
        Without a process, or a call, True: nothing runs in the meantime."""
        if self._pid is None or self._call is None:
            return True
        # poll, not select: select refuses a descriptor numbered past 1023, which a long-lived process may hold.
        waiting = select.poll()
        waiting.register(self._results, select.POLLIN)
        return bool(waiting.poll(0))

    def stop(self) -> None:
        """End the process (a call given and not asked for is dropped)."""
        if self._pid is None:
            return
        for pipe in (self._orders, self._results):
            try:
                pipe.close()  # the process reads the end of its orders, and exits
            except BrokenPipeError:
                pass
        _stop(self._pid)
        self._pid = None


def _serve(orders: int, results: int) -> None:
    """The forked helper process: make each call its parent sends, and send back its outcome, until the orders end."""
    with os.fdopen(orders, "rb") as calls, os.fdopen(results, "wb") as outcomes:
        while (call := _received(calls)) is not None:
            later: list[Callable[[], None]] = []
            _send(outcomes, _outcome(lambda: _made(call, later)))
            for then in later:
                _outcome(then)  # what it failed to load, the call that needs it loads again, and reports
    _flush()


def _made(call: bytes, later: list):
    function, args = pickle.loads(call)
    made = function(*args)
    if isinstance(made, Afterwards):
        later.append(made.then)
        return made.value
    return made


def _send(pipe, payload: bytes) -> None:
    pipe.write(len(payload).to_bytes(8, "little") + payload)
    pipe.flush()


def _received(pipe) -> bytes | None:
    """The next message `_send` wrote, or None when the pipe ended first."""
    size = pipe.read(8)
    if len(size) < 8:
        return None
    payload = pipe.read(int.from_bytes(size, "little"))
    return payload if len(payload) == int.from_bytes(size, "little") else None


def _called(call: Callable[[], Result]) -> tuple[bool, Any]:
    """(True, what `call` returns) or (False, the ForkedError of what it raised): a forked call must never fail
    silently."""
    try:
        return True, call()
    except BaseException as exc:  # the parent raises it
        return False, _forked_error(exc)


def _forked_error(exc: BaseException) -> ForkedError:
    return ForkedError(traceback.format_exc(), _as_data(exc))


def _outcome(call: Callable[[], Result]) -> bytes:
    """`_called(call)`, pickled (or what pickling it raised)."""
    try:
        return pickle.dumps(_called(call), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # the result does not pickle
        return pickle.dumps((False, _forked_error(exc)))


def _as_data(exc: BaseException) -> BaseException | None:
    """`exc` when it comes out of pickling as it went in (OSError, sqlite3's errors, most others), else None."""
    try:
        same = type(pickle.loads(pickle.dumps(exc))) is type(exc)
    except Exception:  # its class cannot be made again from its arguments, or it holds what does not pickle
        return None
    return exc if same else None


def _start(function, share) -> tuple[int, int]:
    """Fork a child that runs `function(share)` and writes (ok, result or traceback) to a pipe; (pid, read end).

    The outcome is pickled into the pipe as it is made, not into bytes first: a big result (a round's planned
    inputs) is then never held twice, here or there."""
    read, write = os.pipe()
    pid = os.fork()
    if pid:
        os.close(write)
        return pid, read
    os.close(read)  # the child: never returns, and leaves the parent's buffers and connections alone
    try:
        with os.fdopen(write, "wb") as pipe:
            _pickle_outcome(lambda: function(share), pipe)
        _flush()
    finally:
        os._exit(0)


def _pickle_outcome(call: Callable[[], Result], pipe) -> None:
    """`_called(call)`, pickled into `pipe`. A result that fails to pickle part way is reported on stderr: the
    reader gets a pickle cut short, and says the process died before sending its result."""
    try:
        pickle.dump(_called(call), pipe, protocol=pickle.HIGHEST_PROTOCOL)
    except (pickle.PicklingError, TypeError, AttributeError):  # what does not pickle (not a pipe whose reader left)
        traceback.print_exc()


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):  # closed or replaced: nothing to flush
            pass


def _result(child: tuple[int, int]):
    pid, read = child
    with os.fdopen(read, "rb") as pipe:
        try:
            ok, value = pickle.load(pipe)
        except Exception:  # nothing came, or a pickle cut short: the process died (or its result did not pickle)
            ok, value = False, ForkedError("a forked process died before sending its result")
    os.waitpid(pid, 0)
    if not ok:
        raise value
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
