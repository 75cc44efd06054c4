"""Crash safety end to end: drains killed or outrunning their lease at set points; a crash at every file operation.

Both tests end with the same checks (`check_delivered`): nothing in flight or
queued, each event_id exactly once in queue-done/ + queue-poison/, every corpus
line parses, corpus ids == done ids, and the deduplicating reader yields each
event once.

The chaos test provokes its faults with the stop hook (`PIPELINE_SPOOL_STOP`):
a drain freezes at a named point and says so on its stderr pipe, naming the
file it holds. The test then SIGKILLs it mid-write, or lets its lease run out
(backdated) and resumes it only once another drain has settled the event.
"""

from __future__ import annotations

import os
import re
import selectors
import signal
import subprocess
import time

import pytest
from spool_helpers import backdate_in_flight, check_delivered, child_env, corpus_ids, ping, pipeline_cmd, run_pipeline

from pipeline.errors import UserError
from pipeline.spool import enqueue, faults
from pipeline.spool.corpus import quarantine_files
from pipeline.spool.drain import Drainer, DrainOptions
from pipeline.spool.events import encode, prepare
from pipeline.spool.layout import Spool, SpoolName

EVENTS, DRAINS, DEADLINE = 1000, 4, 90.0  # the deadline bounds a broken run only
KILL = "mid:corpus.write#5"  # SIGKILLed with half its 5th corpus line written
OVERRUN = "before:done.rename#5"  # frozen past its lease between its 5th append and its settle
# Every drain is armed until the plan is used up, so the queue cannot run dry before it is; the overruns
# come last and are fewer than DRAINS, so a live drain is always there to take their events over.
PLAN = [KILL] * 12 + [OVERRUN] * 3
STOPPED = re.compile(r"stopped at (\S+) delivering (\S+)")


class Chaos:
    """The test's side: DRAINS drains (a killed one is replaced), the first len(PLAN) started with a stop point each."""

    def __init__(self, root, command):
        self.spool, self.command, self.plan = Spool(root / "spool"), command, list(PLAN)
        self.selector, self.kills, self.overruns, self.summaries = selectors.DefaultSelector(), 0, 0, []
        self.frozen: dict[str, subprocess.Popen] = {}  # the base name of the event held -> its overrunning drain
        for _ in range(DRAINS):
            self.start()

    def start(self) -> None:
        env = child_env()
        if self.plan:
            env[faults.STOP_ENV] = self.plan.pop(0)
        proc = subprocess.Popen(self.command, cwd=self.spool.root.parent, env=env,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)  # fmt: skip
        self.selector.register(proc.stderr, selectors.EVENT_READ, proc)

    def handle(self, proc: subprocess.Popen, line: str) -> None:
        found = STOPPED.search(line)
        assert found, f"a drain said: {line}"
        point, name = found.groups()
        os.waitid(os.P_PID, proc.pid, os.WSTOPPED)  # frozen for sure: its heartbeat too
        os.utime(self.spool.in_flight / name, (0, 0))  # as if its lease had run out
        if point == KILL.partition("#")[0]:
            self.selector.unregister(proc.stderr)
            proc.kill()
            proc.communicate()
            self.kills += 1
            self.start()  # which recovers the dead drain's lease first
        else:
            self.overruns += 1
            self.frozen[SpoolName.parse(name).base] = proc

    def step(self) -> None:
        """Handle what the drains said (waiting a moment for it); resume an overrun once it was settled."""
        for key, _ in self.selector.select(timeout=0.05):
            line = key.fileobj.readline().decode()
            assert line, f"a drain exited: {key.data.wait()}"
            self.handle(key.data, line)
        settled = {SpoolName.parse(name).base for name in self.spool.names(self.spool.done)} if self.frozen else set()
        for base in settled & self.frozen.keys():  # another drain took the event over and settled it
            self.frozen.pop(base).send_signal(signal.SIGCONT)  # now its late settle

    def busy(self) -> bool:
        return bool(self.frozen or self.spool.names(self.spool.queue) or self.spool.names(self.spool.in_flight))

    def close(self) -> None:
        for key in list(self.selector.get_map().values()):
            key.data.send_signal(signal.SIGCONT)
            key.data.terminate()
            out, _ = key.data.communicate(timeout=20)
            self.summaries.append(out.decode())
        self.selector.close()

    def total(self, stat: str) -> int:
        return sum(int(n) for s in self.summaries for n in re.findall(rf"\b{stat} (\d+)", s))


@pytest.mark.slow
def test_chaos_four_drains_killed_and_overrunning_at_set_points(tmp_path):
    spool, corpus = Spool(tmp_path / "spool"), tmp_path / "corpus" / "editorial-events.jsonl"
    ids = {enqueue(ping(n), spool.root) for n in range(EVENTS)}
    command = pipeline_cmd("spool", "drain", "--state", str(tmp_path), "--lease", "2", "--interval", "0.05")
    began = time.monotonic()
    chaos = Chaos(tmp_path, command)
    try:
        while chaos.busy():
            assert time.monotonic() - began < DEADLINE, "the drains made too little progress"
            chaos.step()
    finally:
        chaos.close()
    recovery = run_pipeline("spool", "drain", "--once", "--state", str(tmp_path), cwd=tmp_path)
    assert recovery.returncode == 0, recovery.stderr
    assert "requeued 0" in recovery.stdout and "appended 0" in recovery.stdout
    check_delivered(spool.root, corpus, ids)
    assert sorted(corpus_ids(corpus)) == sorted(ids)  # each event once: every takeover found its append there
    assert (chaos.kills, chaos.overruns) == (PLAN.count(KILL), PLAN.count(OVERRUN)), "a stop point was not reached"
    assert len(quarantine_files(corpus)) == chaos.kills  # each kill left one torn line, cut off once
    redeliveries = sum(SpoolName.parse(n).attempts for n in spool.names(spool.done))
    assert redeliveries == chaos.kills + chaos.overruns
    # each overrunning drain found its late settle refused (its lease taken back), and survived to say so
    assert chaos.total("lost") == chaos.overruns
    print(f"chaos: {EVENTS} events, {chaos.kills} kills, {chaos.overruns} overruns, "
          f"{redeliveries} redeliveries, {time.monotonic() - began:.1f}s")


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


def test_a_malformed_stop_hook_is_an_error_naming_it(monkeypatch):
    monkeypatch.setenv(faults.STOP_ENV, "before:done.renam#5")
    with pytest.raises(UserError, match=faults.STOP_ENV):
        faults.check_env()
