"""Looking into the spool and fixing it by hand: status counts, poison entries, requeueing."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from pipeline.errors import UserError
from pipeline.spool.events import parse_loose
from pipeline.spool.fsio import rename
from pipeline.spool.layout import DIRS, ERROR_SUFFIX, Spool, SpoolName


@dataclass(frozen=True)
class DirStatus:
    name: str
    count: int
    oldest_age: float | None  # seconds since the oldest file was enqueued; None when empty


@dataclass(frozen=True)
class PoisonEntry:
    name: str
    base: str  # the name without attempts counter and extension: what requeue-poison takes
    event_id: str | None  # None when the file is not a JSON object with an event_id
    reason: str


def _enqueued_at(path: Path) -> float:
    """The time in the file's name; a foreign name falls back to the file's mtime."""
    stamp = SpoolName.parse(path.name).enqueued_at()
    if stamp is not None:
        return stamp
    try:
        return path.stat().st_mtime
    except FileNotFoundError:
        return time.time()


def status(spool_dir: Path, now: float | None = None) -> list[DirStatus]:
    """The count of event files and the age of the oldest, for each of the four directories."""
    spool = Spool(spool_dir)
    now = time.time() if now is None else now
    result = []
    for name in DIRS:
        names = spool.names(spool.root / name)
        oldest = min((_enqueued_at(spool.root / name / n) for n in names), default=None)
        result.append(DirStatus(name, len(names), None if oldest is None else max(now - oldest, 0.0)))
    return result


def _event_id_of(path: Path) -> str | None:
    try:
        event = parse_loose(path.read_bytes())
    except OSError:
        return None
    return event["event_id"] if event is not None else None


def _reason(note: Path) -> str:
    try:
        first = note.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return "(no note)"
    return first.removeprefix("reason: ")


def poison_entries(spool_dir: Path) -> list[PoisonEntry]:
    spool = Spool(spool_dir)
    entries = []
    for name in spool.names(spool.poison):
        base = SpoolName.parse(name).base
        note = spool.poison / (base + ERROR_SUFFIX)
        entries.append(PoisonEntry(name, base, _event_id_of(spool.poison / name), _reason(note)))
    return entries


def requeue_poison(spool_dir: Path, ident: str) -> list[str]:
    """Move the poison entries named by ident (file name, base or event_id) back into queue/.

    The attempts counter starts again from zero and the `.error` note is removed.
    Returns the new names in queue/.
    """
    spool = Spool(spool_dir).ensure()
    matches = [e for e in poison_entries(spool_dir) if ident in (e.name, e.base, e.event_id)]
    if not matches:
        raise UserError(f"no poison entry {ident!r} in {spool.poison} (see `pipeline spool status`)")
    moved = []
    for entry in matches:
        target = spool.queue / SpoolName(entry.base).filename
        try:
            rename(spool.poison / entry.name, target, "requeue")
        except FileNotFoundError:  # requeued by someone else meanwhile
            continue
        (spool.poison / (entry.base + ERROR_SUFFIX)).unlink(missing_ok=True)
        moved.append(target.name)
    return moved
