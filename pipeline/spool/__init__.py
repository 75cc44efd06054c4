"""The editorial event spool: durable hand-off of events to a long-term JSONL corpus.

Producers call `enqueue(event)`; `pipeline spool drain` moves events from the
spool's `queue/` into the corpus, at least once, and the corpus reader drops
duplicates by `event_id`. See content/event-spool.md.
"""

from pipeline.spool.enqueue import enqueue, enqueue_all
from pipeline.spool.events import EDIT_APPLIED, EDIT_PROPOSED, SCHEMA, EventError, edit_event, validate

__all__ = ["EDIT_APPLIED", "EDIT_PROPOSED", "SCHEMA", "EventError", "edit_event", "enqueue", "enqueue_all", "validate"]
