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
from pipeline.spool.fsio import write_durably
from pipeline.spool.layout import Spool, SpoolName


def default_spool_dir() -> Path:
    return load_config().spool_dir


def enqueue(event: dict, spool_dir: str | os.PathLike | None = None) -> str:
    """Validate event (filling `event_id` and `created_at` when absent), spool it durably.

    Returns the event_id. Raises EventError (a UserError) for an invalid event.
    """
    event = prepare(event)
    spool = Spool(Path(spool_dir) if spool_dir is not None else default_spool_dir()).ensure()
    write_durably(spool.queue / SpoolName.new().filename, encode(event), spool.root, "enqueue")
    return event["event_id"]
