"""The job queue: claim, retry schedule, terminal limit, manual retry, stale recovery, fencing."""

import os
import random
import socket
import types

import pytest

from pipeline.content.capture import capture_content, load_articles
from pipeline.jobs.plan import plan_round
from pipeline.jobs.queue import (
    RELEASED, Backoff, Outcome, PassOutcome, claim, finish, held_leases, job_state, recover_stale, release, retry,
)
from pipeline.passes.base import Wiki
from pipeline.passes.registry import spec_of
from pipeline.storage.store import open_store

NOOP = types.SimpleNamespace(
    NAME="noop", VERSION=1, CONTRACT={"type": "object", "required": ["diagnostics"]}, run=lambda a, i: {"diagnostics": []}
)
BACKOFF = Backoff(base=2.0, cap=60.0)


@pytest.fixture
def queue(make_wiki):
    """A store with `n` pending noop jobs (one per file), max_attempts 3."""

    def make(n=1, max_attempts=3):
        config = make_wiki({f"a{i:03}.md": f"article {i}" for i in range(n)})
        conn = open_store(config.state_db)
        report = capture_content(conn, config)
        articles = load_articles(conn, report.new)
        wiki = Wiki(options={}, articles=articles)
        plan_round(conn, [spec_of(NOOP)], articles, wiki, max_attempts=max_attempts, now=0.0)
        return conn

    return make


def _row(conn, job_id=1):
    return conn.execute("SELECT * FROM processing_jobs WHERE id = ?", (job_id,)).fetchone()


def _done(job, output_json="{}"):
    return Outcome(job, tuple(PassOutcome(job_pass, output_json=output_json) for job_pass in job.passes))


def _failed(job, error, kind="permanent"):
    return Outcome(job, tuple(PassOutcome(job_pass, error=error, error_kind=kind) for job_pass in job.passes))


def _fail(conn, job, now, kind="retryable"):
    return finish(conn, [_failed(job, "boom", kind)], now=now, backoff=BACKOFF)


def test_claim_is_oldest_first_in_batches_with_fresh_tokens(queue):
    conn = queue(5)
    first = claim(conn, worker="w", limit=2, lease_seconds=10, now=1.0)
    second = claim(conn, worker="w", limit=10, lease_seconds=10, now=1.0)
    assert [j.id for j in first] == [1, 2] and [j.id for j in second] == [3, 4, 5]
    assert len({j.claim_token for j in first + second}) == 5
    assert claim(conn, worker="w", limit=10, lease_seconds=10, now=1.0) == []
    row = _row(conn, 1)
    assert row["status"] == "processing" and row["lease_expires_at"] == 11.0 and row["attempts"] == 1


def test_retry_schedule_is_bounded_exponential_with_jitter():
    rng = random.Random(7)
    for attempt in range(1, 12):
        nominal = min(60.0, 2.0 * 2 ** (attempt - 1))
        delays = [BACKOFF.delay(attempt, rng) for _ in range(50)]
        assert all(nominal / 2 <= d <= nominal for d in delays)
        assert max(delays) - min(delays) > 0  # jittered
    assert BACKOFF.delay(30, rng) <= 60.0


def test_failed_waiting_then_ready_then_back_to_processing(queue):
    conn = queue()
    (job,) = claim(conn, worker="w", limit=1, lease_seconds=10, now=100.0)
    _fail(conn, job, now=100.0)
    row = _row(conn)
    assert row["status"] == "failed" and row["error_kind"] == "retryable" and row["last_error"] == "noop: boom"
    assert 101.0 <= row["next_retry_at"] <= 102.0
    assert job_state(row, now=100.5) == "failed-waiting"
    assert claim(conn, worker="w", limit=1, lease_seconds=10, now=100.5) == []
    assert job_state(row, now=102.5) == "failed-ready"
    (again,) = claim(conn, worker="w", limit=1, lease_seconds=10, now=102.5)
    assert again.id == job.id and again.attempt == 2 and _row(conn)["status"] == "processing"


def test_attempts_count_and_terminal_limit(queue):
    conn = queue(max_attempts=3)
    now = 0.0
    for attempt in (1, 2, 3):
        (job,) = claim(conn, worker="w", limit=1, lease_seconds=10, now=now)
        assert job.attempt == attempt == _row(conn)["attempts"]
        _fail(conn, job, now=now)
        now += 1000.0
    row = _row(conn)
    assert job_state(row, now) == "failed-terminal" and row["next_retry_at"] is None
    assert claim(conn, worker="w", limit=1, lease_seconds=10, now=now + 10_000) == []
    outcomes = [r["outcome"] for r in conn.execute("SELECT outcome FROM job_attempts ORDER BY id")]
    assert outcomes == ["failed", "failed", "failed"]


def test_permanent_failure_gets_no_retry_time(queue):
    conn = queue()
    (job,) = claim(conn, worker="w", limit=1, lease_seconds=10, now=0.0)
    _fail(conn, job, now=0.0, kind="permanent")
    row = _row(conn)
    assert row["next_retry_at"] is None and job_state(row, 1e9) == "failed-terminal"
    assert claim(conn, worker="w", limit=1, lease_seconds=10, now=1e9) == []


def test_manual_retry_keeps_history_and_extends_budget(queue):
    conn = queue(max_attempts=1)
    (job,) = claim(conn, worker="w", limit=1, lease_seconds=10, now=0.0)
    _fail(conn, job, now=0.0)
    assert job_state(_row(conn), 0.0) == "failed-terminal"
    assert retry(conn, [job.id]) == [job.id]
    row = _row(conn)
    assert row["status"] == "pending" and row["attempts"] == 1 and row["max_attempts"] == 2
    assert row["last_error"] == "noop: boom"
    (again,) = claim(conn, worker="w", limit=1, lease_seconds=10, now=1.0)
    assert again.attempt == 2
    assert conn.execute("SELECT COUNT(*) FROM job_attempts WHERE job_id = ?", (job.id,)).fetchone()[0] == 2
    assert retry(conn, [job.id]) == []  # only failed jobs go back


def test_retry_all_failed(queue):
    conn = queue(3)
    jobs = claim(conn, worker="w", limit=3, lease_seconds=10, now=0.0)
    finish(conn, [_done(jobs[0]), _failed(jobs[1], "x"), _failed(jobs[2], "y")],
           now=0.0, backoff=BACKOFF)  # fmt: skip
    assert retry(conn) == [jobs[1].id, jobs[2].id]


def test_stale_recovery(queue):
    conn = queue()
    (job,) = claim(conn, worker="w", limit=1, lease_seconds=10, now=0.0)
    assert recover_stale(conn, now=5.0) == []
    assert recover_stale(conn, now=11.0) == [job.id]
    row = _row(conn)
    assert row["status"] == "pending" and row["started_at"] is None
    assert row["last_error"] == "recovered stale processing job"
    attempt = conn.execute("SELECT outcome FROM job_attempts").fetchone()
    assert attempt["outcome"] == "recovered"


NO_SUCH_PID = 2**22 + 1  # above any pid_max Linux allows: never a running process


def test_a_job_whose_worker_was_a_process_of_this_host_that_ended_is_recovered_before_its_lease_runs_out(queue):
    host = socket.gethostname()
    conn = queue(3)
    (ended,) = claim(conn, worker=f"{host}:{NO_SUCH_PID}", limit=1, lease_seconds=1000, now=0.0)
    claim(conn, worker=f"{host}:{os.getpid()}", limit=1, lease_seconds=1000, now=0.0)  # this process: running
    claim(conn, worker=f"elsewhere:{NO_SUCH_PID}", limit=1, lease_seconds=1000, now=0.0)  # another host's: unknown
    assert recover_stale(conn, now=1.0) == [ended.id]
    assert recover_stale(conn, now=1.0, stale_after=10) == []  # told how old is stale: only that counts


def test_a_stopping_worker_releases_the_jobs_it_has_not_finished(queue):
    conn = queue(3)
    jobs = claim(conn, worker="w", limit=3, lease_seconds=1000, now=0.0)
    finish(conn, [_done(jobs[0])], now=1.0, backoff=BACKOFF)
    assert release(conn, jobs, now=2.0) == [jobs[1].id, jobs[2].id]
    assert [_row(conn, job.id)["status"] for job in jobs] == ["done", "pending", "pending"]
    assert _row(conn, jobs[1].id)["last_error"] == RELEASED
    outcomes = [r["outcome"] for r in conn.execute("SELECT outcome FROM job_attempts ORDER BY id")]
    assert outcomes == ["done", "recovered", "recovered"]
    (again, *_) = claim(conn, worker="w", limit=3, lease_seconds=10, now=3.0)
    assert again.id == jobs[1].id and again.attempt == 2


def test_stale_after_overrides_the_lease(queue):
    conn = queue()
    claim(conn, worker="w", limit=1, lease_seconds=1000, now=0.0)
    assert recover_stale(conn, now=20.0, stale_after=30) == []
    assert recover_stale(conn, now=20.0, stale_after=10) == [1]


def test_fencing_rejects_a_stale_completion(queue):
    conn = queue()
    (old,) = claim(conn, worker="a", limit=1, lease_seconds=1, now=0.0)
    recover_stale(conn, now=2.0)
    (new,) = claim(conn, worker="b", limit=1, lease_seconds=10, now=2.0)
    assert finish(conn, [_done(old, '{"who": "a"}')], now=3.0, backoff=BACKOFF) == ([], [old.id])
    assert finish(conn, [_done(new, '{"who": "b"}')], now=3.0, backoff=BACKOFF) == ([new.id], [])
    results = conn.execute("SELECT output FROM processing_results").fetchall()
    assert [r["output"] for r in results] == ['{"who": "b"}']
    outcomes = [r["outcome"] for r in conn.execute("SELECT outcome FROM job_attempts ORDER BY id")]
    assert outcomes == ["recovered", "done"]
    assert _fail(conn, old, now=4.0) == ([], [old.id])  # a stale failure is fenced too
    assert _row(conn)["status"] == "done"
    rejected = conn.execute("SELECT job_id, attempted FROM rejected_completions ORDER BY id").fetchall()
    assert [tuple(r) for r in rejected] == [(old.id, "done"), (old.id, "failed")]


def test_jobs_survive_a_reopened_database(queue, make_wiki):
    conn = queue(2)
    claim(conn, worker="w", limit=1, lease_seconds=10, now=0.0)
    path = conn.execute("PRAGMA database_list").fetchone()["file"]
    conn.close()
    again = open_store(path)
    statuses = [r["status"] for r in again.execute("SELECT status FROM processing_jobs ORDER BY id")]
    assert statuses == ["processing", "pending"]
    assert [j.id for j in claim(again, worker="w", limit=5, lease_seconds=10, now=1.0)] == [2]


def test_a_due_retry_is_claimed_before_newer_pending_jobs(queue):
    conn = queue(4)
    (first,) = claim(conn, worker="w", limit=1, lease_seconds=10, now=0.0)
    _fail(conn, first, now=0.0)
    jobs = claim(conn, worker="w", limit=2, lease_seconds=10, now=1000.0)
    assert [job.id for job in jobs] == [first.id, 2]


OTHER = types.SimpleNamespace(
    NAME="other", VERSION=2, CONTRACT={"type": "object", "required": ["diagnostics"]}, run=lambda a, i: {"diagnostics": []}
)


def test_a_capture_s_passes_of_a_round_are_one_job_and_a_failed_pass_fails_only_its_own_result(make_wiki):
    config = make_wiki({"a.md": "article a", "b.md": "article b"})
    conn = open_store(config.state_db)
    articles = load_articles(conn, capture_content(conn, config).new)
    plan = plan_round(conn, [spec_of(NOOP), spec_of(OTHER)], articles, Wiki(options={}, articles=articles),
                      max_attempts=3, now=0.0)  # fmt: skip
    assert plan.new_jobs == 2 and len(plan.created) == 4
    first, second = claim(conn, worker="w", limit=5, lease_seconds=10, now=1.0)
    assert [p.pass_name for p in first.passes] == ["noop", "other"] and first.capture_id != second.capture_id
    attempts = conn.execute("SELECT COUNT(*) FROM job_attempts").fetchone()[0]
    assert attempts == 2  # one claim of each job, not of each pass
    noop, other = first.passes
    mixed = Outcome(first, (PassOutcome(noop, output_json='{"kept": 1}'),
                            PassOutcome(other, error="ValueError: bad", error_kind="retryable")))  # fmt: skip
    assert finish(conn, [mixed, _done(second)], now=2.0, backoff=BACKOFF) == ([first.id, second.id], [])
    row = _row(conn, first.id)
    assert (row["status"], row["error_kind"], row["last_error"]) == ("failed", "retryable", "other: ValueError: bad")
    kept = conn.execute("SELECT job_id, output FROM processing_results WHERE pass_name = 'noop' AND job_id = ?",
                        (noop.id,)).fetchone()  # fmt: skip
    assert tuple(kept) == (noop.id, '{"kept": 1}')
    failures = [tuple(r) for r in conn.execute("SELECT job_pass_id, error, error_kind FROM pass_failures")]
    assert failures == [(other.id, "ValueError: bad", "retryable")]
    # The retry runs the failed pass alone: the other's result stays the one it made, and a build that needs
    # only that result does not wait for the job's lease.
    (again,) = claim(conn, worker="w", limit=5, lease_seconds=10, now=1000.0)
    assert again.id == first.id and [p.id for p in again.passes] == [other.id]
    assert held_leases(conn, {noop.id}) == [] and held_leases(conn, {noop.id, other.id}) == [1010.0]
    assert finish(conn, [_done(again)], now=1001.0, backoff=BACKOFF) == ([first.id], [])
    assert _row(conn, first.id)["status"] == "done"
    assert conn.execute("SELECT COUNT(*) FROM processing_results").fetchone()[0] == 4


def test_a_job_that_cannot_run_fails_each_of_its_passes(queue):
    conn = queue(1)
    (job,) = claim(conn, worker="w", limit=1, lease_seconds=10, now=1.0)
    finish(conn, [Outcome(job, job_error="capture 1 not found")], now=2.0, backoff=BACKOFF)
    failures = [tuple(r) for r in conn.execute("SELECT job_pass_id, error, error_kind FROM pass_failures")]
    assert failures == [(job.passes[0].id, "capture 1 not found", "permanent")]
    assert _row(conn, job.id)["status"] == "failed"
