"""The spool folder: its four directories and the names of the event files in them.

An event file is named `<enqueue time in ns>-<random>.json`. Each time a lease on
it expires, the name gains or bumps an attempts counter, `....a<N>.json`, so the
count of unfinished deliveries survives crashes without a sidecar file. The
base (time and random part) never changes, which keeps names unique across all
four directories.
"""

from __future__ import annotations

import os
import re
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from pipeline.spool.fsio import TMP_PREFIX, fsync_dir

QUEUE, IN_FLIGHT, DONE, POISON = "queue", "queue-in-flight", "queue-done", "queue-poison"
DIRS = (QUEUE, IN_FLIGHT, DONE, POISON)
ERROR_SUFFIX = ".error"
_NAME = re.compile(r"^(?P<base>.+?)(?:\.a(?P<attempts>\d+))?\.json$")


@dataclass(frozen=True)
class SpoolName:
    """An event file's name split into its fixed base and its attempts counter."""

    base: str
    attempts: int = 0

    @classmethod
    def parse(cls, name: str) -> SpoolName:
        match = _NAME.match(name)
        if match is None:  # a file handed in under another name: keep it whole
            return cls(name)
        return cls(match["base"], int(match["attempts"] or 0))

    @classmethod
    def new(cls) -> SpoolName:
        return cls(f"{time.time_ns():020d}-{secrets.token_hex(6)}")

    @property
    def filename(self) -> str:
        return f"{self.base}.a{self.attempts}.json" if self.attempts else f"{self.base}.json"

    def retried(self) -> SpoolName:
        return SpoolName(self.base, self.attempts + 1)

    def enqueued_at(self) -> float | None:
        """Seconds since the epoch from the name, or None for a foreign name."""
        stamp = self.base.partition("-")[0]
        return int(stamp) / 1e9 if stamp.isdigit() and len(stamp) == 20 else None


@dataclass(frozen=True)
class Spool:
    """The spool folder and its four directories."""

    root: Path

    @property
    def queue(self) -> Path:
        return self.root / QUEUE

    @property
    def in_flight(self) -> Path:
        return self.root / IN_FLIGHT

    @property
    def done(self) -> Path:
        return self.root / DONE

    @property
    def poison(self) -> Path:
        return self.root / POISON

    def ensure(self) -> Spool:
        """Create the four directories; sync the folder so they outlive a power cut."""
        if all((self.root / name).is_dir() for name in DIRS):
            return self
        for name in DIRS:
            (self.root / name).mkdir(parents=True, exist_ok=True)
        fsync_dir(self.root)
        fsync_dir(self.root.parent)
        return self

    def names(self, directory: Path) -> list[str]:
        """Event file names in a directory, oldest first (names start with the time)."""
        try:
            entries = os.listdir(directory)
        except FileNotFoundError:
            return []
        return sorted(n for n in entries if is_event_name(n))

    def stale_temp_files(self, max_age: float, now: float) -> list[Path]:
        """Temporary files left by producers that died before their rename."""
        stale = []
        for entry in os.scandir(self.root):
            if entry.name.startswith(TMP_PREFIX) and _age(entry, now) > max_age:
                stale.append(Path(entry.path))
        return stale


def is_event_name(name: str) -> bool:
    return not name.startswith(".") and not name.endswith(ERROR_SUFFIX)


def _age(entry: os.DirEntry, now: float) -> float:
    try:
        return now - entry.stat().st_mtime
    except FileNotFoundError:
        return 0.0
