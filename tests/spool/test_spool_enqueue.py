"""Enqueue: the four durable steps, producers in parallel, and producers that die mid-write."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest
from spool_helpers import child_env, ping, pipeline_cmd, run_pipeline, wait_for

from pipeline.spool import enqueue, enqueue_all, faults, fsio
from pipeline.spool.drain import TEMP_MAX_AGE, Drainer, DrainOptions
from pipeline.spool.events import EventError, decode
from pipeline.spool.layout import Spool


def queued(spool_dir: Path) -> list[dict]:
    spool = Spool(spool_dir)
    return [decode((spool.queue / name).read_bytes()) for name in spool.names(spool.queue)]


def test_enqueue_writes_one_complete_event_and_returns_its_id(tmp_path):
    event_id = enqueue(ping(1), tmp_path / "spool")
    (event,) = queued(tmp_path / "spool")
    assert event["event_id"] == event_id and event["payload"] == {"n": 1}
    assert [p.name for p in (tmp_path / "spool").iterdir() if p.is_file()] == []  # no temp file left


def test_enqueue_defaults_to_the_configured_spool(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    enqueue(ping(1))
    assert len(queued(tmp_path / ".pipeline" / "spool")) == 1


def test_an_invalid_event_raises_and_writes_nothing(tmp_path):
    with pytest.raises(EventError):
        enqueue({"type": "test.ping"}, tmp_path / "spool")
    assert not (tmp_path / "spool").exists()


def _spy_on_file_steps(monkeypatch) -> list[tuple[str, Path]]:
    calls, paths = [], {}
    real_open, real_write, real_fsync, real_rename = os.open, os.write, os.fsync, os.rename

    def spy_open(path, flags, *rest):
        fd = real_open(path, flags, *rest)
        paths[fd] = Path(path)
        return fd

    monkeypatch.setattr(os, "open", spy_open)
    monkeypatch.setattr(os, "write", lambda fd, data: calls.append(("write", paths[fd])) or real_write(fd, data))
    monkeypatch.setattr(os, "fsync", lambda fd: calls.append(("fsync", paths[fd])) or real_fsync(fd))
    monkeypatch.setattr(os, "rename", lambda a, b: calls.append(("rename", Path(b))) or real_rename(a, b))
    return calls


def test_steps_are_write_fsync_rename_then_fsync_the_directory(tmp_path, monkeypatch):
    spool = Spool(tmp_path / "spool").ensure()
    calls = _spy_on_file_steps(monkeypatch)
    enqueue(ping(1), spool.root)
    (final,) = [spool.queue / n for n in spool.names(spool.queue)]
    (tmp,) = {path for op, path in calls if op == "write"}
    assert tmp.parent == spool.root and tmp.name.startswith(".tmp-")
    assert calls == [("write", tmp), ("fsync", tmp), ("rename", final), ("fsync", spool.queue)]


@pytest.mark.parametrize("syncfs", [True, False], ids=["syncfs", "without syncfs"])
def test_many_events_are_written_then_synced_then_renamed_and_the_folder_synced_once(tmp_path, monkeypatch, syncfs):
    spool = Spool(tmp_path / "spool").ensure()
    calls = _spy_on_file_steps(monkeypatch)
    sync = fsio.sync_filesystem
    monkeypatch.setattr(fsio, "sync_filesystem", lambda folder: calls.append(("syncfs", Path(folder))) or (
        syncfs and sync(folder)))  # fmt: skip
    ids = enqueue_all([ping(n) for n in range(3)], spool.root)
    assert sorted(e["event_id"] for e in queued(spool.root)) == sorted(ids) and len(set(ids)) == 3
    tmps = [path for op, path in calls if op == "write"]
    finals = [path for op, path in calls if op == "rename"]
    synced = [] if syncfs else [("fsync", tmp) for tmp in tmps]  # one syncfs, or (without it) each file's fsync
    assert calls == [("write", tmp) for tmp in tmps] + [("syncfs", spool.root)] + synced + [
        ("rename", final) for final in finals] + [("fsync", spool.queue)]  # fmt: skip
    with pytest.raises(EventError):  # one invalid event: none is written
        enqueue_all([ping(4), {"type": "Not A Type"}], spool.root)
    assert len(queued(spool.root)) == 3 and not list(spool.root.glob(".tmp-*"))


def test_concurrent_producers_each_event_lands_once(tmp_path):
    lines = {p: "".join(f'{{"type":"test.ping","payload":{{"p":{p},"n":{n}}}}}\n' for n in range(100)) for p in range(4)}
    procs = [
        subprocess.Popen(pipeline_cmd("spool", "push", "--state", str(tmp_path)), env=child_env(), cwd=tmp_path,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for _ in lines
    ]
    printed = [proc.communicate(lines[p], timeout=60)[0].split() for p, proc in zip(lines, procs)]
    assert [proc.returncode for proc in procs] == [0, 0, 0, 0]
    events = queued(tmp_path / "spool")
    assert sorted(e["event_id"] for e in events) == sorted(i for ids in printed for i in ids)
    assert sorted((e["payload"]["p"], e["payload"]["n"]) for e in events) == [(p, n) for p in range(4) for n in range(100)]


def crash_cases():
    for point in faults.ENQUEUE_POINTS:
        for phase in ("before", "mid", "after") if point.endswith(".write") else ("before", "after"):
            yield f"{phase}:{point}"


@pytest.mark.parametrize("crash", list(crash_cases()))
def test_a_producer_dying_at_any_step_leaves_all_or_nothing(tmp_path, crash):
    result = run_pipeline("spool", "push", "--state", str(tmp_path), cwd=tmp_path, crash=crash,
                          stdin='{"type":"test.ping","payload":{"n":1}}\n')
    assert result.returncode == faults.CRASH_EXIT, result.stderr
    renamed = crash in ("after:enqueue.rename", "before:enqueue.dirsync", "after:enqueue.dirsync")
    assert [e["payload"] for e in queued(tmp_path / "spool")] == ([{"n": 1}] if renamed else [])
    leftovers = list((tmp_path / "spool").glob(".tmp-*"))
    assert len(leftovers) == (0 if renamed or crash == "before:enqueue.open" else 1)
    for path in leftovers:  # an abandoned temp file is swept once it is old enough
        os.utime(path, (time.time() - TEMP_MAX_AGE - 1,) * 2)
    with Drainer(DrainOptions(tmp_path / "spool", tmp_path / "corpus.jsonl")) as drainer:
        drainer.recover()
    assert list((tmp_path / "spool").glob(".tmp-*")) == []


def test_a_producer_killed_while_writing_large_events_leaves_only_whole_events(tmp_path):
    script = (
        "import sys; from pipeline.spool import enqueue\n"
        "for n in range(10**6):\n"
        "    enqueue({'type': 'test.big', 'payload': {'n': n, 'blob': 'x' * 4_000_000}}, sys.argv[1])\n"
    )
    spool_dir = tmp_path / "spool"
    proc = subprocess.Popen([pipeline_cmd()[0], "-c", script, str(spool_dir)], env=child_env(), cwd=tmp_path)
    try:
        wait_for(lambda: spool_dir.exists() and len(Spool(spool_dir).names(Spool(spool_dir).queue)) >= 3,
                 30, "three events")
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    events = queued(spool_dir)  # decode() raises on any partial file
    assert [e["payload"]["n"] for e in events] == list(range(len(events)))
    assert all(len(e["payload"]["blob"]) == 4_000_000 for e in events)
