"""The drain, in process: append, poison, lease recovery, heartbeat, dedup and errors."""

from __future__ import annotations

import errno
import os
import threading

import pytest
from spool_helpers import backdate_in_flight, check_delivered, corpus_ids, ping, wait_for

from pipeline.spool import enqueue
from pipeline.spool.drain import DrainError, Drainer, DrainOptions
from pipeline.spool.events import encode, new_event_id, now_iso, prepare
from pipeline.spool.layout import Spool, SpoolName


@pytest.fixture
def spool(tmp_path) -> Spool:
    return Spool(tmp_path / "spool").ensure()


def drainer(spool: Spool, **options) -> Drainer:
    return Drainer(DrainOptions(spool.root, spool.root.parent / "corpus" / "events.jsonl", **options))


def corpus_of(spool: Spool):
    return spool.root.parent / "corpus" / "events.jsonl"


def put(directory, event: dict, attempts: int = 0) -> str:
    """Place an event file as a crashed drain or an old producer would have left it."""
    name = SpoolName(SpoolName.new().base, attempts).filename
    if isinstance(event, dict):  # filled in but not validated: the drain must validate
        event = encode({"event_id": new_event_id(), "created_at": now_iso(), **event})
    (directory / name).write_bytes(event)
    return name


def test_drain_once_appends_every_event_and_settles_it(spool):
    ids = [enqueue(ping(n), spool.root) for n in range(20)]
    with drainer(spool) as d:
        stats = d.run(once=True)
    assert (stats.appended, stats.duplicates, stats.poisoned) == (20, 0, 0)
    check_delivered(spool.root, corpus_of(spool), set(ids))
    assert corpus_ids(corpus_of(spool)) == ids  # one drain delivers oldest first


def test_unparsable_and_invalid_files_go_to_poison_with_a_note(spool):
    garbage = put(spool.queue, b"{not json")
    invalid = put(spool.queue, {"event_id": "e1", "type": "edit.proposed", "created_at": "2026-01-01T00:00:00.000Z",
                                "payload": {}})  # an edit without its fields
    good = enqueue(ping(1), spool.root)
    with drainer(spool) as d:
        assert d.run(once=True).poisoned == 2
    assert sorted(spool.names(spool.poison)) == sorted([garbage, invalid])
    note = lambda name: (spool.poison / (SpoolName.parse(name).base + ".error")).read_text()
    assert note(garbage).startswith("reason: not JSON")
    assert note(invalid).startswith('reason: invalid event: data.payload: "path" is a required property')
    assert corpus_ids(corpus_of(spool)) == [good]


def test_an_entry_that_cannot_be_read_goes_to_poison_and_the_drain_goes_on(spool):
    folder = SpoolName.new().filename
    (spool.queue / folder).mkdir()  # named as an event, but a folder
    good = enqueue(ping(1), spool.root)
    with drainer(spool) as d:
        stats = d.run(once=True)
    assert (stats.appended, stats.poisoned) == (1, 1) and corpus_ids(corpus_of(spool)) == [good]
    assert spool.names(spool.poison) == [folder] and (spool.poison / folder).is_dir()  # kept as it was
    note = (spool.poison / (SpoolName.parse(folder).base + ".error")).read_text()
    assert note.startswith("reason: cannot be read: Is a directory")


def test_a_file_that_used_up_its_attempts_is_poisoned_and_one_below_is_delivered(spool):
    spent = put(spool.queue, ping(1), attempts=3)
    last_chance = put(spool.queue, ping(2), attempts=2)
    with drainer(spool, max_attempts=3) as d:
        stats = d.run(once=True)
    assert (stats.poisoned, stats.appended) == (1, 1)
    assert spool.names(spool.poison) == [spent] and spool.names(spool.done) == [last_chance]
    assert "used up its retries: 3" in (spool.poison / (SpoolName.parse(spent).base + ".error")).read_text()


def test_expired_leases_are_requeued_with_one_more_attempt_and_live_ones_are_left(spool):
    expired = put(spool.in_flight, ping(1))
    live = put(spool.in_flight, ping(2))
    backdate_in_flight(spool.root)
    os.utime(spool.in_flight / live)  # its drain is still heartbeating
    with drainer(spool, lease_seconds=60) as d:
        stats = d.run(once=True)
    assert (stats.requeued, stats.appended) == (1, 1)
    assert spool.names(spool.done) == [SpoolName.parse(expired).retried().filename]
    assert spool.names(spool.in_flight) == [live]


def test_an_event_appended_before_a_crash_is_not_appended_again(spool):
    event = prepare(ping(1))
    corpus_of(spool).parent.mkdir()
    corpus_of(spool).write_bytes(encode(event))  # the drain died after its fsync, before the rename
    (spool.in_flight / "00000000000000000001-aa.json").write_bytes(encode(event))
    backdate_in_flight(spool.root)
    with drainer(spool) as d:
        stats = d.run(once=True)
    assert (stats.requeued, stats.duplicates, stats.appended) == (1, 1, 0)
    check_delivered(spool.root, corpus_of(spool), {event["event_id"]})


def test_a_lease_taken_back_mid_delivery_is_counted_lost_and_redelivered_once(spool):
    event_id = enqueue(ping(1), spool.root)
    with drainer(spool) as d, drainer(spool) as other:
        real_append, stolen = d.corpus.append, []

        def slow_append(event):  # the first time, the lease expires and another drain takes it back
            if not stolen:
                backdate_in_flight(spool.root)
                stolen.append(other.recover())
            return real_append(event)

        d.corpus.append = slow_append
        stats = d.run(once=True)
    assert stolen == [1]
    assert (stats.appended, stats.lost, stats.duplicates) == (1, 1, 1)
    assert SpoolName.parse(spool.names(spool.done)[0]).attempts == 1
    check_delivered(spool.root, corpus_of(spool), {event_id})


def test_the_heartbeat_keeps_a_slow_delivery_leased(spool):
    enqueue(ping(1), spool.root)
    with drainer(spool, lease_seconds=0.2) as d, drainer(spool, lease_seconds=0.2) as other:
        real_append = d.corpus.append

        def slow_append(event):
            (held,) = [spool.in_flight / n for n in spool.names(spool.in_flight)]
            start = held.stat().st_mtime
            wait_for(lambda: held.stat().st_mtime > start + 0.3, 5, "two lease periods of heartbeats")
            assert other.recover() == 0
            return real_append(event)

        d.corpus.append = slow_append
        stats = d.run(once=True)
    assert (stats.appended, stats.lost, len(spool.names(spool.done))) == (1, 0, 1)


def test_a_corpus_write_error_puts_the_event_back_uncounted_and_fails_the_once_run(spool):
    enqueue(ping(1), spool.root)
    with drainer(spool) as d:
        d.corpus.append = lambda event: (_ for _ in ()).throw(OSError(errno.ENOSPC, "No space left"))
        with pytest.raises(DrainError, match="No space left"):
            d.run(once=True)
    (name,) = spool.names(spool.queue)  # back in the queue, and a full disk is not held against it
    assert SpoolName.parse(name).attempts == 0 and spool.names(spool.in_flight) == []


def test_the_loop_picks_up_events_as_they_arrive_until_stopped(spool):
    stop = threading.Event()
    with drainer(spool, interval=0.01) as d:
        worker = threading.Thread(target=d.run, kwargs={"once": False, "stop": stop})
        worker.start()
        try:
            ids = {enqueue(ping(n), spool.root) for n in range(5)}
            wait_for(lambda: len(spool.names(spool.done)) == 5, 10, "five events drained")
        finally:
            stop.set()
            worker.join(10)
        assert not worker.is_alive()
    check_delivered(spool.root, corpus_of(spool), ids)


def test_the_loop_logs_a_corpus_error_and_delivers_once_the_corpus_works_again(spool):
    event_id = enqueue(ping(1), spool.root)
    logged, stop = [], threading.Event()
    with Drainer(DrainOptions(spool.root, corpus_of(spool), interval=0.01), log=logged.append) as d:
        real_append, failures = d.corpus.append, [OSError(errno.ENOSPC, "No space left")]

        def flaky_append(event):
            if failures:
                raise failures.pop()
            return real_append(event)

        d.corpus.append = flaky_append
        worker = threading.Thread(target=d.run, kwargs={"once": False, "stop": stop})
        worker.start()
        try:
            wait_for(lambda: spool.names(spool.done), 10, "delivery after the error")
        finally:
            stop.set()
            worker.join(10)
    assert len(logged) == 1 and "No space left" in logged[0]
    check_delivered(spool.root, corpus_of(spool), {event_id})
