"""Handing an event to the spool: validate, then write-fsync-rename-fsync into `queue/`.

The event is written to a temporary file in the spool folder, fsynced, renamed
into `queue/` under a unique name and the directory fsynced. Another process
sees either the whole event in `queue/` or nothing, whatever happens to this one.
"""

from __future__ import annotations

import os
from pathlib import Path

from pipeline.config import load_config
from pipeline.spool.events import encode, prepare
from pipeline.spool.fsio import write_all_durably
from pipeline.spool.layout import Spool, SpoolName


def default_spool_dir() -> Path:
    return load_config().spool_dir


def enqueue(event: dict, spool_dir: str | os.PathLike | None = None) -> str:
    """Validate event (filling `event_id` and `created_at` when absent), spool it durably.

    Returns the event_id. Raises EventError (a UserError) for an invalid event.
    """
    return enqueue_all([event], spool_dir)[0]


def enqueue_all(events: list[dict], spool_dir: str | os.PathLike | None = None) -> list[str]:
    """`enqueue` for many events, syncing `queue/` once for all of them (after every one is
    renamed into it); none is written when one is invalid. Returns their event_ids."""
    events = [prepare(event) for event in events]
    spool = Spool(Path(spool_dir) if spool_dir is not None else default_spool_dir()).ensure()
    files = [(spool.queue / SpoolName.new().filename, encode(event)) for event in events]
    write_all_durably(files, spool.root, "enqueue")
    return [event["event_id"] for event in events]
