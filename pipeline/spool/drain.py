"""The drain: leases event files from `queue/`, appends them to the corpus, finishes them.

One file's way: rename `queue/x` to `queue-in-flight/x` (the lease: only one
drain can win that rename) -> read and validate -> append to the corpus unless
its event_id is already there -> rename to `queue-done/x`. A file that cannot be
parsed or validated, or whose name says it has used up its deliveries, goes to
`queue-poison/` with a `<base>.error` note. While a file is in flight a
heartbeat thread touches it; a file not touched for a lease period belonged to a
drain that died, and any drain renames it back into `queue/` with its attempts
counter raised. Delivery is therefore at least once; the corpus dedups.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from pipeline.config import Config
from pipeline.errors import UserError
from pipeline.spool import faults
from pipeline.spool.corpus import CorpusWriter
from pipeline.spool.events import EventError, decode, now_iso
from pipeline.spool.fsio import rename, write_durably
from pipeline.spool.layout import ERROR_SUFFIX, Spool, SpoolName

TEMP_MAX_AGE = 3600.0  # a producer's temporary file older than this was abandoned


class DrainError(UserError):
    """The corpus could not be written (disk full, permissions...); the event was put back."""


@dataclass(frozen=True)
class DrainOptions:
    spool_dir: Path
    corpus_path: Path
    lease_seconds: float = 30.0
    max_attempts: int = 5
    interval: float = 1.0  # seconds between polls of an empty queue

    @classmethod
    def from_config(cls, config: Config, *, lease: float | None = None, interval: float | None = None):
        return cls(
            config.spool_dir,
            config.corpus_path,
            config.spool.lease_seconds if lease is None else lease,
            config.spool.max_attempts,
            1.0 if interval is None else interval,
        )


@dataclass
class DrainStats:
    appended: int = 0
    duplicates: int = 0  # delivered again after a crash; already in the corpus, not appended
    poisoned: int = 0
    requeued: int = 0  # expired leases put back into queue/
    lost: int = 0  # leases another drain took back while this one worked
    repaired: int = 0  # torn corpus tails cut off and quarantined

    def summary(self) -> str:
        return ", ".join(f"{name} {value}" for name, value in vars(self).items())


class Heartbeat:
    """A thread that touches the in-flight file being worked on, to keep its lease alive."""

    def __init__(self, every: float):
        self._every = every
        self._path: Path | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="spool-heartbeat", daemon=True)
        self._thread.start()

    def watch(self, path: Path | None) -> None:
        self._path = path

    def stop(self) -> None:
        self._stop.set()
        self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self._every):
            path = self._path
            if path is not None:
                try:
                    os.utime(path)
                except FileNotFoundError:  # finished (or taken back) meanwhile
                    pass


class Drainer:
    """One drain process's worker: recovery, leasing, appending and settling."""

    def __init__(self, options: DrainOptions, log: Callable[[str], None] | None = None):
        faults.check_env()
        self.options = options
        self.log = log or (lambda line: print(line, file=sys.stderr))
        self.spool = Spool(options.spool_dir).ensure()
        self.corpus = CorpusWriter(options.corpus_path)
        self.stats = DrainStats(repaired=len(self.corpus.repairs))
        self._heartbeat = Heartbeat(max(options.lease_seconds / 4, 0.01))
        self._next_recovery = 0.0

    def close(self) -> None:
        self._heartbeat.stop()
        self.corpus.close()

    def __enter__(self) -> Drainer:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def run(self, *, once: bool, stop: threading.Event | None = None) -> DrainStats:
        """Drain until stop is set; with once, until the queue is empty (errors then raise)."""
        stop = stop or threading.Event()
        self.recover()
        while not stop.is_set():
            try:
                if self.drain_batch(stop):
                    continue
            except DrainError as exc:
                if once:
                    raise
                self.log(f"pipeline spool drain: {exc}")
            if once:
                break
            stop.wait(self.options.interval)
            self._recover_when_due()
        return self.stats

    def drain_batch(self, stop: threading.Event) -> int:
        """Deliver the files now in queue/, oldest first; return how many this drain leased."""
        leased = 0
        for name in self.spool.names(self.spool.queue):
            if stop.is_set():
                break
            self._recover_when_due()
            leased += self._deliver(name)
        return leased

    def _recover_when_due(self) -> None:
        if time.monotonic() >= self._next_recovery:
            self.recover()

    def recover(self) -> int:
        """Put in-flight files whose lease expired back into queue/; delete abandoned temp files."""
        now = time.time()
        requeued = 0
        for name in self.spool.names(self.spool.in_flight):
            try:
                age = now - (self.spool.in_flight / name).stat().st_mtime
            except FileNotFoundError:
                continue
            if age >= self.options.lease_seconds:
                requeued += self._requeue(name)
        for path in self.spool.stale_temp_files(TEMP_MAX_AGE, now):
            path.unlink(missing_ok=True)
        self.stats.requeued += requeued
        self._next_recovery = time.monotonic() + max(self.options.lease_seconds / 2, 0.05)
        return requeued

    def _requeue(self, name: str, *, count_attempt: bool = True) -> bool:
        """Put the file back into queue/, counting one unfinished delivery in its name."""
        spool_name = SpoolName.parse(name)
        target = self.spool.queue / (spool_name.retried() if count_attempt else spool_name).filename
        try:
            rename(self.spool.in_flight / name, target, "requeue")
        except FileNotFoundError:  # finished or requeued by another drain meanwhile
            return False
        return True

    def _deliver(self, name: str) -> bool:
        leased_path = self.spool.in_flight / name
        try:
            os.utime(self.spool.queue / name)  # the rename keeps the mtime, which dates the lease
            with faults.around("lease.rename"):
                os.rename(self.spool.queue / name, leased_path)
        except FileNotFoundError:  # another drain won this file
            return False
        self._heartbeat.watch(leased_path)
        faults.delivering(name)
        try:
            self._finish(name, leased_path)
        finally:
            self._heartbeat.watch(None)
        return True

    def _finish(self, name: str, leased_path: Path) -> None:
        attempts = SpoolName.parse(name).attempts
        if attempts >= self.options.max_attempts:
            self._poison(name, f"used up its retries: {attempts} deliveries did not finish")
            return
        try:
            with faults.around("event.open"):
                handle = open(leased_path, "rb")
            with handle:
                event = decode(handle.read())
        except FileNotFoundError:
            self.stats.lost += 1
            return
        except (IsADirectoryError, PermissionError) as exc:  # no event ever: set aside with why, the rest goes on
            self._poison(name, f"cannot be read: {exc.strerror}")
            return
        except EventError as exc:
            self._poison(name, str(exc))
            return
        try:
            appended = self.corpus.append(event)
        except OSError as exc:  # the corpus's fault, not the event's: no attempt is counted
            self._requeue(name, count_attempt=False)
            raise DrainError(f"cannot append to {self.corpus.path}: {exc}; {name} was put back") from None
        self.stats.appended += appended
        self.stats.duplicates += not appended
        self._move(name, self.spool.done, "done")

    def _poison(self, name: str, reason: str) -> None:
        base = SpoolName.parse(name).base
        note = f"reason: {reason}\nfile: {name}\nat: {now_iso()}\npid: {os.getpid()}\n"
        write_durably(self.spool.poison / (base + ERROR_SUFFIX), note.encode(), self.spool.root, "note")
        if self._move(name, self.spool.poison, "poison"):
            self.stats.poisoned += 1

    def _move(self, name: str, directory: Path, stage: str) -> bool:
        try:
            rename(self.spool.in_flight / name, directory / name, stage)
        except FileNotFoundError:  # our lease expired and another drain took the file back
            self.stats.lost += 1
            return False
        return True
