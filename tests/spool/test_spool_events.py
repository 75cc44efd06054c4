"""The event schema, validation, id generation and the edit-event builder."""

from __future__ import annotations

import copy
import hashlib
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pipeline.errors import UserError
from pipeline.spool import events
from pipeline.spool.events import EventError, decode, edit_event, encode, prepare

BEFORE = "See the Jobs page.\n"
AFTER = "See the [[jobs-and-results|Jobs]] page.\n"
DIFF = "--- a/guide.md\n+++ b/guide.md\n@@ -1 +1 @@\n-See the Jobs page.\n+See the [[jobs-and-results|Jobs]] page.\n"


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def an_edit(applied: bool = False) -> dict:
    diff = DIFF
    return edit_event("guide.md", "autolink", "2", sha256_text(BEFORE), sha256_text(AFTER), diff, applied=applied)


def test_edit_event_carries_every_field_and_validates():
    event = an_edit()
    assert event["type"] == "edit.proposed"
    assert event["payload"] == {
        "path": "guide.md", "pass_name": "autolink", "pass_version": "2",
        "source_sha256": sha256_text(BEFORE), "edited_sha256": sha256_text(AFTER),
        "diff": DIFF, "applied": False,
    }
    assert len(event["event_id"]) == 32 and event["created_at"].endswith("Z")
    assert an_edit(applied=True)["type"] == "edit.applied"


def test_edit_event_takes_a_stable_event_id_from_the_caller():
    diff = DIFF
    event = edit_event("guide.md", "autolink", "2", sha256_text(BEFORE), sha256_text(AFTER), diff,
                       applied=True, event_id="edit-" + "a" * 32)
    assert event["event_id"] == "edit-" + "a" * 32
    with pytest.raises(EventError, match="event_id"):
        edit_event("guide.md", "autolink", "2", sha256_text(BEFORE), sha256_text(AFTER), diff,
                   applied=True, event_id="no spaces allowed")


def test_generated_ids_differ_and_given_ones_are_kept():
    assert an_edit()["event_id"] != an_edit()["event_id"]
    given_id = prepare({"event_id": "mine-1", "type": "x", "created_at": "2024-01-02T03:04:05Z", "payload": {}})
    assert given_id["event_id"] == "mine-1" and given_id["created_at"] == "2024-01-02T03:04:05Z"


def test_prepare_does_not_change_the_callers_dict():
    event = {"type": "x", "payload": {}}
    prepare(event)
    assert event == {"type": "x", "payload": {}}


@pytest.mark.parametrize(
    "change, message",
    [
        (lambda e: e.pop("type"), "type"),
        (lambda e: e.pop("payload"), "payload"),
        (lambda e: e.update(created_at="yesterday"), "created_at"),
        (lambda e: e.update(event_id="has space"), "event_id"),
        (lambda e: e.update(type="Edit Proposed"), "type"),
        (lambda e: e.update(extra=1), "extra"),
        (lambda e: e["payload"].update(applied=True), "applied"),
        (lambda e: e["payload"].update(source_sha256="abc"), "source_sha256"),
        (lambda e: e["payload"].pop("diff"), "diff"),
        (lambda e: e["payload"].update(pass_name=""), "pass_name"),
    ],
)
def test_invalid_events_are_rejected_naming_the_field(change, message):
    event = copy.deepcopy(an_edit())
    change(event)
    with pytest.raises(EventError, match=message):
        events.validate(event)


def test_event_error_is_a_user_error_and_non_objects_are_rejected():
    assert issubclass(EventError, UserError)
    with pytest.raises(EventError, match="JSON object"):
        prepare(["not", "an", "object"])
    with pytest.raises(EventError, match="not JSON"):
        decode(b'{"event_id": ')


def test_other_producers_may_use_their_own_types_and_payloads():
    event = prepare({"type": "review.comment", "payload": {"anything": [1, 2, {"x": None}]}})
    assert decode(encode(event)) == event


@given(st.text(), st.dictionaries(st.text(max_size=5), st.text(), max_size=4))
def test_encode_is_one_line_and_round_trips(text, extra):
    event = prepare({"type": "test.text", "payload": {"text": text, **extra}})
    line = encode(event)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert decode(line) == event
    assert json.loads(line.decode()) == event


def test_the_schema_documents_every_top_level_field():
    assert set(events.SCHEMA["properties"]) == {"event_id", "type", "created_at", "payload"}
    assert set(events.SCHEMA["required"]) == set(events.SCHEMA["properties"])


def test_the_schema_is_looked_up_once_a_process_not_at_each_event(monkeypatch):
    calls, compiled = [], events.compiled
    monkeypatch.setattr(events, "compiled", lambda schema, *rest: calls.append(1) or compiled(schema, *rest))
    events._validator.cache_clear()
    try:
        for _ in range(3):
            prepare({"type": "note.added", "payload": {}})
    finally:
        events._validator.cache_clear()  # not left holding what this test's stand-in gave
    assert calls == [1]
