"""Helpers shared by the spool tests: events, CLI runs and the delivery invariants."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from pipeline.spool.corpus import read_events
from pipeline.spool.events import parse_loose
from pipeline.spool.layout import Spool

REPO = Path(__file__).resolve().parents[2]


def ping(n: int) -> dict:
    return {"type": "test.ping", "payload": {"n": n}}


def pipeline_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "pipeline", *args]


def child_env(crash: str | None = None) -> dict[str, str]:
    """The environment for a child `pipeline`: this checkout importable, the crash hook set or not."""
    env = {k: v for k, v in os.environ.items() if k != "PIPELINE_SPOOL_CRASH"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    if crash:
        env["PIPELINE_SPOOL_CRASH"] = crash
    return env


def run_pipeline(*args: str, cwd: Path, crash: str | None = None, stdin: str | None = None):
    return subprocess.run(
        pipeline_cmd(*args), cwd=cwd, env=child_env(crash), input=stdin,
        capture_output=True, text=True, timeout=60,
    )


def backdate_in_flight(spool_dir: Path, seconds: float = 3600.0) -> None:
    """Make every lease look expired, as if the lease period had passed since the crash."""
    spool = Spool(spool_dir)
    for name in spool.names(spool.in_flight):
        old = time.time() - seconds
        os.utime(spool.in_flight / name, (old, old))


def ids_in(directory: Path) -> Counter:
    """event_id -> number of event files in directory holding it (unparsable files under None)."""
    found = Counter()
    for path in directory.iterdir():
        if path.name.endswith(".error") or path.name.startswith("."):
            continue
        event = parse_loose(path.read_bytes())
        found[event["event_id"] if event else None] += 1
    return found


def corpus_ids(corpus: Path) -> list[str]:
    """Every event_id in the corpus, duplicates included; fails on a line that does not parse."""
    data = corpus.read_bytes() if corpus.exists() else b""
    assert not data or data.endswith(b"\n"), "the corpus ends in a torn line"
    return [json.loads(line)["event_id"] for line in data.splitlines()]


def check_delivered(spool_dir: Path, corpus: Path, expected: set[str], unparsable: int = 0) -> None:
    """The invariants after recovery: each event settled once, corpus == done, no duplicate read."""
    spool = Spool(spool_dir)
    assert spool.names(spool.in_flight) == []
    assert spool.names(spool.queue) == []
    done, poison = ids_in(spool.done), ids_in(spool.poison)
    settled = done + poison
    assert settled.pop(None, 0) == unparsable
    assert set(settled) == expected
    assert all(count == 1 for count in settled.values()), {k: v for k, v in settled.items() if v > 1}
    in_corpus = corpus_ids(corpus)
    assert set(in_corpus) == set(done) - {None}
    deduplicated = [event["event_id"] for event in read_events(corpus)]
    assert len(deduplicated) == len(set(deduplicated)) == len(set(in_corpus))


def wait_for(condition, timeout: float, what: str) -> None:
    """Poll an observable condition until it holds; fail after timeout seconds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)
