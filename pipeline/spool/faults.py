"""The crash-point hook: makes a process exit at a named point of a file operation.

Set `PIPELINE_SPOOL_CRASH=PHASE:POINT[#N]` and the process calls `os._exit(86)`
the Nth time (default: the first) it reaches POINT in PHASE. PHASE is `before`
or `after` the operation, or `mid` for a write (half the bytes are written,
then the process exits, which leaves a torn write behind). The tests use it to
prove that a crash at any point loses nothing; it is inert when the variable is
unset. The spool's own modules call `around`, `write_all` and `delivering`.

`PIPELINE_SPOOL_STOP=PHASE:POINT[#N]` (same syntax) freezes the process there
instead: it writes `stopped at PHASE:POINT delivering NAME` to stderr, then
sends itself SIGSTOP, heartbeat thread included. A test then kills it, or lets
its lease run out and resumes it with SIGCONT, at a point of its choosing.
"""

from __future__ import annotations

import os
import signal
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

from pipeline.errors import UserError

ENV = "PIPELINE_SPOOL_CRASH"
STOP_ENV = "PIPELINE_SPOOL_STOP"
CRASH_EXIT = 86
PHASES = ("before", "mid", "after")

# Every point, in the order the enqueue and the drain reach them. `*.write` points
# also take the phase `mid`.
ENQUEUE_POINTS = ("enqueue.open", "enqueue.write", "enqueue.fsync", "enqueue.rename", "enqueue.dirsync")
DRAIN_POINTS = (
    "corpus.open",
    "quarantine.open", "quarantine.write", "quarantine.fsync", "quarantine.rename", "quarantine.dirsync",
    "repair.truncate", "repair.fsync",
    "requeue.rename", "requeue.dirsync",
    "lease.rename",
    "event.open",
    "note.open", "note.write", "note.fsync", "note.rename", "note.dirsync",
    "poison.rename", "poison.dirsync",
    "corpus.write", "corpus.fsync",
    "done.rename", "done.dirsync",
)
POINTS = ENQUEUE_POINTS + DRAIN_POINTS


@dataclass(frozen=True)
class CrashSpec:
    phase: str
    point: str
    nth: int = 1


_hits: dict[tuple[str, str, str], int] = {}
_delivering = ""  # the spool file this process holds in flight, named when it stops


def parse(text: str, env: str = ENV) -> CrashSpec:
    """Read `PHASE:POINT[#N]`; a typo is an error, so a sweep can never pass vacuously."""
    phase, _, rest = text.partition(":")
    point, _, nth = rest.partition("#")
    if phase not in PHASES or point not in POINTS:
        raise UserError(f"{env}={text!r}: expected PHASE:POINT[#N] with PHASE in {PHASES} and a known POINT")
    if phase == "mid" and not point.endswith(".write"):
        raise UserError(f"{env}={text!r}: the phase 'mid' applies only to *.write points")
    if nth and (not nth.isdigit() or int(nth) < 1):
        raise UserError(f"{env}={text!r}: N must be a positive integer")
    return CrashSpec(phase, point, int(nth) if nth else 1)


def _spec(env: str = ENV) -> CrashSpec | None:
    text = os.environ.get(env)
    return parse(text, env) if text else None


def _nth_hit(env: str, phase: str, point: str) -> bool:
    spec = _spec(env)
    if spec is None or (spec.phase, spec.point) != (phase, point):
        return False
    key = (env, phase, point)
    _hits[key] = _hits.get(key, 0) + 1
    return _hits[key] == spec.nth


def delivering(name: str) -> None:
    """Name the spool file now in flight, for the stop hook's message."""
    global _delivering
    _delivering = name


def hit(phase: str, point: str) -> None:
    """Exit (or stop) now if a hook names this phase and point and this is its Nth hit."""
    if _nth_hit(ENV, phase, point):
        os._exit(CRASH_EXIT)
    if _nth_hit(STOP_ENV, phase, point):
        os.write(2, f"{STOP_ENV}: stopped at {phase}:{point} delivering {_delivering}\n".encode())
        os.kill(os.getpid(), signal.SIGSTOP)


@contextmanager
def around(point: str) -> Iterator[None]:
    hit("before", point)
    yield
    hit("after", point)


def write_all(fd: int, data: bytes, point: str) -> None:
    """Write every byte (os.write may write fewer), with the hook's three phases."""
    hit("before", point)
    view = memoryview(data)
    if any(spec is not None and (spec.phase, spec.point) == ("mid", point) for spec in (_spec(), _spec(STOP_ENV))):
        written = os.write(fd, view[: len(view) // 2])
        view = view[written:]
        hit("mid", point)
    while view:
        view = view[os.write(fd, view):]
    hit("after", point)


def check_env() -> None:
    """Fail early on a malformed hook rather than at the first file operation."""
    _spec()
    _spec(STOP_ENV)
