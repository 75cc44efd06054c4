"""The corpus: torn-tail repair, dedup on append and on read, stats and export."""

from __future__ import annotations

import io
import json
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from spool_helpers import corpus_ids, ping

from pipeline.spool.corpus import CorpusWriter, export, quarantine_files, read_events, stats
from pipeline.spool.events import encode, prepare


def events(n: int) -> list[dict]:
    return [prepare(ping(i)) for i in range(n)]


def test_append_writes_one_line_per_event_and_skips_known_ids(tmp_path):
    path = tmp_path / "corpus" / "events.jsonl"
    first, second = events(2)
    writer = CorpusWriter(path)
    assert writer.append(first) and writer.append(second)
    assert not writer.append(first)
    writer.close()
    assert corpus_ids(path) == [first["event_id"], second["event_id"]]


def test_a_new_writer_knows_the_ids_already_in_the_corpus(tmp_path):
    path = tmp_path / "events.jsonl"
    first, second = events(2)
    path.write_bytes(encode(first))
    writer = CorpusWriter(path)
    assert first["event_id"] in writer and second["event_id"] not in writer
    assert not writer.append(first)
    writer.close()


def test_a_writer_sees_what_another_writer_appended_since_it_opened(tmp_path):
    path = tmp_path / "events.jsonl"
    (event,) = events(1)
    one, two = CorpusWriter(path), CorpusWriter(path)
    assert one.append(event)
    assert not two.append(event)  # no full re-read: two reads only the new bytes
    one.close(), two.close()
    assert corpus_ids(path) == [event["event_id"]]


def test_a_torn_tail_is_quarantined_and_cut_before_appending(tmp_path):
    path = tmp_path / "events.jsonl"
    kept, torn, new = events(3)
    torn_bytes = encode(torn)[:25]
    path.write_bytes(encode(kept) + torn_bytes)
    writer = CorpusWriter(path)
    (quarantine,) = quarantine_files(path)
    assert writer.repairs == [quarantine] and quarantine.parent == path.parent
    assert quarantine.read_bytes() == torn_bytes
    assert writer.append(new)
    writer.close()
    assert corpus_ids(path) == [kept["event_id"], new["event_id"]]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.data())
def test_repair_keeps_exactly_the_complete_lines_and_quarantines_the_rest(count, data):
    full = b"".join(encode(e) for e in events(count))
    cut = data.draw(st.integers(0, len(full)), label="cut")
    boundary = full.rfind(b"\n", 0, cut) + 1
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "events.jsonl"
        path.write_bytes(full[:cut])
        CorpusWriter(path).close()
        assert path.read_bytes() == full[:boundary]
        assert [q.read_bytes() for q in quarantine_files(path)] == ([full[boundary:cut]] if cut > boundary else [])


def test_a_torn_tail_written_after_opening_is_repaired_at_the_next_append(tmp_path):
    path = tmp_path / "events.jsonl"
    writer = CorpusWriter(path)
    a, b = events(2)
    with open(path, "ab") as handle:  # what a drain killed mid-write leaves
        handle.write(encode(a)[:-10])
    assert writer.append(b)
    writer.close()
    assert corpus_ids(path) == [b["event_id"]]
    assert [q.read_bytes() for q in quarantine_files(path)] == [encode(a)[:-10]]


def test_the_reader_drops_duplicates_bad_lines_and_a_torn_tail(tmp_path):
    path = tmp_path / "events.jsonl"
    a, b = events(2)
    path.write_bytes(encode(a) + b"not json\n" + encode(b) + encode(a) + b"[1]\n" + b'{"event_id": "x"')
    found = [e["event_id"] for e in read_events(path)]
    assert found == [a["event_id"], b["event_id"]]
    scan = stats(path)
    assert (scan.lines, scan.events, scan.duplicates, scan.bad_lines, scan.torn_bytes) == (5, 2, 1, 2, 16)
    assert path.read_bytes().endswith(b'"x"')  # the reader never modifies the corpus


def test_stats_count_events_per_type_and_pass(tmp_path):
    path = tmp_path / "events.jsonl"
    edit = {"path": "a.md", "pass_version": "1", "source_sha256": "0" * 64, "edited_sha256": "1" * 64, "diff": "d"}
    rows = [
        prepare({"type": "edit.proposed", "payload": {**edit, "pass_name": "autolink", "applied": False}}),
        prepare({"type": "edit.proposed", "payload": {**edit, "pass_name": "autolink", "applied": False}}),
        prepare({"type": "edit.applied", "payload": {**edit, "pass_name": "wikilinks", "applied": True}}),
        prepare(ping(1)),
    ]
    path.write_bytes(b"".join(map(encode, rows + rows[:1])))
    assert dict(stats(path).by_type_and_pass) == {
        ("edit.proposed", "autolink"): 2, ("edit.applied", "wikilinks"): 1, ("test.ping", "-"): 1,
    }


def test_export_writes_each_event_once(tmp_path):
    path = tmp_path / "events.jsonl"
    a, b = events(2)
    path.write_bytes(encode(a) + encode(a) + encode(b))
    out = io.BytesIO()
    scan = export(path, out)
    assert [json.loads(line) for line in out.getvalue().splitlines()] == [a, b]
    assert (scan.events, scan.duplicates) == (2, 1)


def test_a_missing_corpus_reads_as_empty(tmp_path):
    assert list(read_events(tmp_path / "none.jsonl")) == []
    assert stats(tmp_path / "none.jsonl").events == 0
