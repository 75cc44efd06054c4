"""Crash safety end to end: drains killed at random, and a crash at every file operation.

Both tests end with the same checks (`check_delivered`): nothing in flight or
queued, each event_id exactly once in queue-done/ + queue-poison/, every corpus
line parses, corpus ids == done ids, and the deduplicating reader yields each
event once.
"""

from __future__ import annotations

import random
import subprocess
import time

import pytest
from spool_helpers import backdate_in_flight, check_delivered, child_env, ping, pipeline_cmd, run_pipeline, wait_for

from pipeline.spool import enqueue, faults
from pipeline.spool.corpus import quarantine_files
from pipeline.spool.drain import Drainer, DrainOptions
from pipeline.spool.events import encode, prepare
from pipeline.spool.layout import Spool, SpoolName

EVENTS, DRAINS, KILL_EVERY = 1000, 4, 0.2


def test_chaos_four_drains_one_killed_every_200ms(tmp_path):
    spool, corpus = Spool(tmp_path / "spool"), tmp_path / "corpus" / "editorial-events.jsonl"
    ids = {enqueue(ping(n), spool.root) for n in range(EVENTS)}
    command = pipeline_cmd("spool", "drain", "--state", str(tmp_path), "--lease", "0.5", "--interval", "0.05")

    def start() -> subprocess.Popen:
        return subprocess.Popen(command, cwd=tmp_path, env=child_env(),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    drains, rng, kills = [start() for _ in range(DRAINS)], random.Random(2024), 0
    began = time.monotonic()
    try:
        while spool.names(spool.queue):
            assert time.monotonic() - began < 40, "the drains made too little progress"
            time.sleep(KILL_EVERY)  # the kill cadence, not a wait for state
            victim = rng.randrange(DRAINS)
            drains[victim].kill()
            drains[victim].wait()
            drains[victim] = start()
            kills += 1
        wait_for(lambda: not spool.names(spool.in_flight), 20, "the killed drains' leases to be recovered")
    finally:
        for drain in drains:
            drain.terminate()
        for drain in drains:
            drain.wait(10)
    recovery = run_pipeline("spool", "drain", "--once", "--state", str(tmp_path), cwd=tmp_path)
    assert recovery.returncode == 0, recovery.stderr
    assert kills >= 3
    check_delivered(spool.root, corpus, ids)
    retried = sum(SpoolName.parse(n).attempts > 0 for n in spool.names(spool.done))
    print(f"chaos: {EVENTS} events, {kills} kills, {retried} redelivered, "
          f"{len(quarantine_files(corpus))} torn tails, {time.monotonic() - began:.1f}s")


def sweep_cases():
    for point in faults.DRAIN_POINTS:
        for phase in ("before", "mid", "after") if point.endswith(".write") else ("before", "after"):
            yield f"{phase}:{point}"


TORN = b'{"created_at":"2024-01-01T00:00:00Z","event_id":"torn'


def spool_with_every_path(tmp_path) -> tuple[Spool, set[str]]:
    """A spool whose one `drain --once` reaches every crash point.

    The corpus ends in a torn line (repair), an expired lease waits in flight
    (requeue), a garbage file waits in the queue (poison) beside valid events.
    """
    spool = Spool(tmp_path / "spool").ensure()
    corpus = tmp_path / "corpus" / "editorial-events.jsonl"
    corpus.parent.mkdir()
    settled = prepare(ping(0))
    corpus.write_bytes(encode(settled) + TORN)
    (spool.done / SpoolName.new().filename).write_bytes(encode(settled))
    leased = prepare(ping(1))
    (spool.in_flight / SpoolName.new().filename).write_bytes(encode(leased))
    backdate_in_flight(spool.root)
    queued = {enqueue(ping(n), spool.root) for n in (2, 3, 4)}
    (spool.queue / SpoolName.new().filename).write_bytes(b"\x00garbage")
    return spool, {settled["event_id"], leased["event_id"], *queued}


@pytest.mark.parametrize("crash", list(sweep_cases()))
def test_crash_point_sweep_then_recovery_loses_nothing(tmp_path, crash):
    spool, ids = spool_with_every_path(tmp_path)
    corpus = tmp_path / "corpus" / "editorial-events.jsonl"
    crashed = run_pipeline("spool", "drain", "--once", "--state", str(tmp_path), cwd=tmp_path, crash=crash)
    assert crashed.returncode == faults.CRASH_EXIT, f"{crash} was not reached: {crashed.stderr}"
    backdate_in_flight(spool.root)  # recovery comes after the lease period
    with Drainer(DrainOptions(spool.root, corpus)) as recovery:
        recovery.run(once=True)
    check_delivered(spool.root, corpus, ids, unparsable=1)
    assert TORN in [q.read_bytes() for q in quarantine_files(corpus)]
