"""Chaos: 1,000 jobs, 4 worker processes, one SIGKILLed every ~200 ms, 2% outrunning their lease."""

import hashlib
import random
import signal
import subprocess
import sys
import time
import types

from pipeline.capture import capture_content, load_articles
from pipeline.config import load_config
from pipeline.passes.base import Wiki
from pipeline.passes.registry import spec_of
from pipeline.plan import plan_round
from pipeline.store import open_store

JOBS = 1000
WORKERS = 4
DEADLINE = 90.0

# Slow on its first run only (a marker file remembers), so a slow job outruns its lease once and is
# then recovered and finished by another worker, and the slow worker's late completion is fenced off.
CHAOS_PASS = '''
import hashlib, pathlib, time

NAME = "chaos"
VERSION = 1
CONTRACT = {"type": "object", "required": ["n", "diagnostics"]}
MARKS = pathlib.Path(__file__).parent / "marks"


def run(article, inputs):
    if int(article.sha256[:8], 16) % 50 == 0:
        mark = MARKS / article.sha256
        if not mark.exists():
            mark.touch()
            time.sleep(0.8)
    return {"n": len(article.body), "diagnostics": []}
'''


def _setup(tmp_path):
    content = tmp_path / "content"
    content.mkdir()
    for i in range(JOBS):
        (content / f"a{i:04}.md").write_text(f"article {i}\n")
    (tmp_path / "marks").mkdir()
    (tmp_path / "chaos_pass.py").write_text(CHAOS_PASS)
    (tmp_path / "wiki.yaml").write_text(
        "content_dir: content\nstate_dir: state\npasses: [chaos_pass.py]\n"
        "jobs: {lease_seconds: 0.5, batch_size: 4, max_attempts: 50}\n"
    )
    config = load_config(tmp_path / "wiki.yaml")
    conn = open_store(config.state_db)
    report = capture_content(conn, config)
    module = types.SimpleNamespace(**{k: v for k, v in _load(tmp_path).items() if k.isupper() or k == "run"})
    articles = load_articles(conn, report.new)
    plan_round(conn, [spec_of(module)], articles, Wiki(options={}, articles=articles), max_attempts=50, now=time.time())
    return conn


def _load(tmp_path):
    namespace = {"__file__": str(tmp_path / "chaos_pass.py")}
    exec(CHAOS_PASS, namespace)
    return namespace


def _captures_digest(conn):
    rows = conn.execute("SELECT id, path, sha256, raw FROM captures ORDER BY id").fetchall()
    return hashlib.sha256(repr([tuple(r) for r in rows]).encode()).hexdigest()


def _start(tmp_path):
    return subprocess.Popen(
        [sys.executable, "-m", "pipeline", "work", "--workers", "1", "--config", str(tmp_path / "wiki.yaml")],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip


def _done(conn):
    return conn.execute("SELECT COUNT(*) FROM processing_jobs WHERE status = 'done'").fetchone()[0]


def test_chaos_workers(tmp_path):
    conn = _setup(tmp_path)
    digest = _captures_digest(conn)
    rng = random.Random(1234)
    workers = [_start(tmp_path) for _ in range(WORKERS)]
    kills, started = 0, time.monotonic()
    try:
        while _done(conn) < JOBS and time.monotonic() - started < DEADLINE:
            time.sleep(0.2)  # the chaos cadence, not a wait for state
            victim = rng.randrange(WORKERS)
            if workers[victim].poll() is None:
                workers[victim].send_signal(signal.SIGKILL)
                kills += 1
            workers[victim].wait()
            workers[victim] = _start(tmp_path)
            for i, proc in enumerate(workers):  # a worker that found nothing to claim exits; keep 4 running
                if proc.poll() is not None:
                    workers[i] = _start(tmp_path)
    finally:
        for proc in workers:
            proc.kill()
            proc.wait()

    assert _done(conn) == JOBS, f"only {_done(conn)} jobs done after {DEADLINE}s"
    assert kills > 10
    per_job = conn.execute(
        "SELECT job_id, COUNT(*) AS n FROM job_attempts WHERE outcome = 'done' GROUP BY job_id"
    ).fetchall()
    assert len(per_job) == JOBS and {row["n"] for row in per_job} == {1}
    assert conn.execute("SELECT COUNT(*), COUNT(DISTINCT job_id) FROM processing_results").fetchone()[:] == (JOBS, JOBS)
    assert conn.execute("SELECT COUNT(*) FROM rejected_completions").fetchone()[0] >= 1
    assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert _captures_digest(conn) == digest
