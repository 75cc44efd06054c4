"""Editorial events: the JSON schema, validation, `event_id` generation and builders.

An event is a JSON object `{event_id, type, created_at, payload}`. Any producer
may choose its own `type` and payload; the two edit types that the passes emit
(`edit.proposed`, `edit.applied`) also have their payload checked field by
field. The schema is the contract: `pipeline spool schema` prints it.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import uuid
from typing import Any

from pipeline.errors import UserError
from pipeline.runtime.contracts import ContractError, compiled

EDIT_PROPOSED = "edit.proposed"
EDIT_APPLIED = "edit.applied"
_SHA256 = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
_TEXT = {"type": "string", "minLength": 1, "maxLength": 200}

EDIT_PAYLOAD = {
    "type": "object",
    "required": ["path", "pass_name", "pass_version", "source_sha256", "edited_sha256", "diff", "applied"],
    "additionalProperties": False,
    "properties": {
        "path": {"type": "string", "minLength": 1, "maxLength": 1000},
        "pass_name": _TEXT,
        "pass_version": _TEXT,
        "source_sha256": _SHA256,
        "edited_sha256": _SHA256,
        "diff": {"type": "string", "minLength": 1},
        "applied": {"type": "boolean"},
    },
}


def _edit_rule(event_type: str, applied: bool) -> dict:
    """For one edit type, the payload must be an edit payload whose `applied` matches."""
    return {
        "if": {"required": ["type"], "properties": {"type": {"const": event_type}}},
        "then": {"properties": {"payload": {**EDIT_PAYLOAD, "properties": {
            **EDIT_PAYLOAD["properties"], "applied": {"const": applied}}}}},
    }


SCHEMA: dict[str, Any] = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "pipeline editorial event",
    "type": "object",
    "required": ["event_id", "type", "created_at", "payload"],
    "additionalProperties": False,
    "properties": {
        "event_id": {"type": "string", "pattern": "^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$"},
        "type": {"type": "string", "maxLength": 100, "pattern": "^[a-z][a-z0-9_]*(\\.[a-z][a-z0-9_]*)*$"},
        "created_at": {"type": "string", "format": "date-time"},
        "payload": {"type": "object"},
    },
    "allOf": [_edit_rule(EDIT_PROPOSED, False), _edit_rule(EDIT_APPLIED, True)],
}



@functools.cache  # `compiled` digests the schema at each call: a cold build validates many events
def _validator():
    """The compiled schema, made on first use (compiling costs more than a build that has nothing to do)."""
    return compiled(SCHEMA)


class EventError(UserError):
    """An event that is not JSON or does not match the schema."""


def new_event_id() -> str:
    return uuid.uuid4().hex


def now_iso() -> str:
    return dt.datetime.now(dt.timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def validate(event: Any) -> dict:
    """Return the event if it matches the schema; raise EventError naming the problem."""
    try:
        _validator()(event)
    except (ContractError, TypeError) as exc:
        raise EventError(f"invalid event: {exc}") from None
    return event


def prepare(event: Any) -> dict:
    """A validated copy of event, with `event_id` and `created_at` filled in when absent."""
    if not isinstance(event, dict):
        raise EventError(f"invalid event: expected a JSON object, got {type(event).__name__}")
    filled = {"event_id": new_event_id(), "created_at": now_iso(), **event}
    return validate(filled)


def encode(event: dict) -> bytes:
    """One line of JSON; json.dumps escapes newlines in strings, so the line stays one line."""
    return (json.dumps(event, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n").encode()


def decode(data: bytes) -> dict:
    """Parse and validate an event file's bytes; raise EventError otherwise."""
    try:
        event = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise EventError(f"not JSON: {exc}") from None
    return validate(event)


def parse_loose(data: bytes) -> dict | None:
    """The bytes as a JSON object with a string event_id, unvalidated; None otherwise."""
    try:
        event = json.loads(data)
    except (UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(event, dict) or not isinstance(event.get("event_id"), str):
        return None
    return event


def edit_event(
    path: str,
    pass_name: str,
    pass_version: str,
    source_sha256: str,
    edited_sha256: str,
    diff: str,
    *,
    applied: bool,
    event_id: str | None = None,
) -> dict:
    """The event for one pass that proposed (applied=False) or made (applied=True) an edit.

    Pass event_id to make a re-run of the same job send the same event (deduplicated).
    """
    return prepare({
        **({"event_id": event_id} if event_id is not None else {}),
        "type": EDIT_APPLIED if applied else EDIT_PROPOSED,
        "payload": {
            "path": str(path),
            "pass_name": pass_name,
            "pass_version": str(pass_version),
            "source_sha256": source_sha256,
            "edited_sha256": edited_sha256,
            "diff": diff,
            "applied": applied,
        },
    })
