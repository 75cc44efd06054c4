"""The long-term JSONL corpus: locked appends with dedup, torn-tail repair, and the reader.

Every drain process appends through a `CorpusWriter`, which holds an exclusive
flock on `<corpus>.lock` while it repairs or appends. So a last line without its
newline can only be what a writer that died left behind: it is cut off and
kept in a quarantine file beside the corpus. The reader (`read_events`) never
modifies the file; it skips a torn tail and unparsable lines and drops every
event whose `event_id` it has already seen.
"""

from __future__ import annotations

import fcntl
import os
import secrets
import time
from collections import Counter
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO, Iterator

from pipeline.spool import faults
from pipeline.spool.events import encode, parse_loose
from pipeline.spool.fsio import fsync_dir, write_durably

CHUNK = 1 << 20


def lock_path(corpus: Path) -> Path:
    return corpus.with_name(corpus.name + ".lock")


def quarantine_files(corpus: Path) -> list[Path]:
    return sorted(corpus.parent.glob(corpus.name + ".torn-*"))


def _event_id(line: bytes) -> str | None:
    event = parse_loose(line)
    return event["event_id"] if event is not None else None


class CorpusWriter:
    """Appends events for one drain process; knows every event_id already in the corpus.

    The set of ids is read once when the writer opens and then kept current by
    reading only the bytes other drains appended since (from a remembered offset).
    """

    def __init__(self, path: Path):
        self.path = path
        self.repairs: list[Path] = []  # quarantine files this writer created
        self._ids: set[str] = set()
        self._offset = 0  # the corpus is indexed up to here; always at a line boundary
        path.parent.mkdir(parents=True, exist_ok=True)
        self._lock_fd = os.open(lock_path(path), os.O_RDWR | os.O_CREAT, 0o644)
        created = not path.exists()
        with faults.around("corpus.open"):
            self._fd = os.open(path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        if created:
            fsync_dir(path.parent)
        with self._locked():
            self._catch_up()

    def close(self) -> None:
        os.close(self._fd)
        os.close(self._lock_fd)

    def __contains__(self, event_id: str) -> bool:
        return event_id in self._ids

    def append(self, event: dict) -> bool:
        """Append event as one line and fsync; False (and no write) if its id is already there."""
        with self._locked():
            self._catch_up()
            if event["event_id"] in self._ids:
                return False
            line = encode(event)
            faults.write_all(self._fd, line, "corpus.write")
            with faults.around("corpus.fsync"):
                os.fsync(self._fd)
            self._offset += len(line)
            self._ids.add(event["event_id"])
        return True

    @contextmanager
    def _locked(self) -> Iterator[None]:
        fcntl.flock(self._lock_fd, fcntl.LOCK_EX)  # released by the kernel if we are killed
        try:
            yield
        finally:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)

    def _catch_up(self) -> None:
        """Index the complete lines appended since the last call; repair a torn tail."""
        size = os.fstat(self._fd).st_size
        if size < self._offset:  # truncated or replaced behind our back: start over
            self._offset, self._ids = 0, set()
        pending = b""
        position = self._offset
        while position < size:
            chunk = os.pread(self._fd, min(CHUNK, size - position), position)
            if not chunk:
                break
            position += len(chunk)
            data = pending + chunk
            cut = data.rfind(b"\n") + 1
            self._ids.update(i for i in map(_event_id, data[:cut].splitlines()) if i is not None)
            self._offset += cut
            pending = data[cut:]
        if pending:
            self._repair(pending)

    def _repair(self, torn: bytes) -> None:
        """Keep the torn bytes in a quarantine file, then cut the corpus at its last newline.

        A crash between the two steps only means the same bytes are quarantined twice.
        """
        quarantine = self.path.with_name(f"{self.path.name}.torn-{time.time_ns():020d}-{secrets.token_hex(3)}")
        write_durably(quarantine, torn, self.path.parent, "quarantine")
        with faults.around("repair.truncate"):
            os.ftruncate(self._fd, self._offset)
        with faults.around("repair.fsync"):
            os.fsync(self._fd)
        self.repairs.append(quarantine)


@dataclass
class CorpusScan:
    """What a read of the corpus found."""

    lines: int = 0
    events: int = 0  # distinct event_ids
    duplicates: int = 0
    bad_lines: int = 0  # complete lines that are not a JSON object with an event_id
    torn_bytes: int = 0  # a last line without its newline (a drain will repair it)
    by_type_and_pass: Counter = field(default_factory=Counter)


def read_events(path: Path, scan: CorpusScan | None = None) -> Iterator[dict]:
    """Each event in the corpus once, in append order; the first copy of a duplicate wins."""
    scan = scan if scan is not None else CorpusScan()
    seen: set[str] = set()
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return
    with handle:
        for line in handle:
            if not line.endswith(b"\n"):
                scan.torn_bytes += len(line)
                continue
            scan.lines += 1
            event = parse_loose(line)
            if event is None:
                scan.bad_lines += 1
            elif event["event_id"] in seen:
                scan.duplicates += 1
            else:
                seen.add(event["event_id"])
                scan.events += 1
                yield event


def stats(path: Path) -> CorpusScan:
    """Count the distinct events per (type, pass name); events without a pass count under '-'."""
    scan = CorpusScan()
    for event in read_events(path, scan):
        payload = event.get("payload")
        pass_name = payload.get("pass_name") if isinstance(payload, dict) else None
        scan.by_type_and_pass[(str(event.get("type", "-")), str(pass_name or "-"))] += 1
    return scan


def export(path: Path, out: BinaryIO) -> CorpusScan:
    """Write the deduplicated corpus to out as JSONL, one event per line."""
    scan = CorpusScan()
    for event in read_events(path, scan):
        out.write(encode(event))
    return scan
