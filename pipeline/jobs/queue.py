"""The durable job table: claim, complete, fail, retry, recover, list.

States: `pending` -> `processing` (claimed, leased) -> `done` or `failed`.
A `failed` job is *waiting* (retryable, its `next_retry_at` still ahead),
*ready* (retryable and due) or *terminal* (permanent, or out of attempts).
Completing and failing are fenced by the claim token: once a lease has
expired and the job was recovered, the old claim can no longer finish it.
Every claim is an attempt row, kept forever with its outcome.

A job runs the passes of one round for one capture (`JobPass`), each writing its
own result. A job whose passes all succeed is done; one where any fails is
failed, its other passes' results kept, and a retry runs only the passes that
have no result. Each pass failure is kept too (`pass_failures`).

Planning (which jobs exist) lives in `pipeline.jobs.plan`; this module only moves
jobs between states. Every function takes `now` so tests control the clock.
"""

from __future__ import annotations

import os
import random
import secrets
import sqlite3
from dataclasses import dataclass
from typing import Container

from pipeline.runtime import jsonio
from pipeline.storage.schema import SOME_DIAGNOSTIC
from pipeline.storage.store import output_digest, write

ELIGIBLE = """(status = 'pending' OR (status = 'failed' AND error_kind = 'retryable'
               AND attempts < max_attempts AND next_retry_at <= :now))"""
# Oldest first is id order (ids grow with creation). Each branch walks the (status, id) index and
# stops after :limit rows; a single `ORDER BY` over the OR would sort every pending job on every claim.
OLDEST_ELIGIBLE = """SELECT id FROM (SELECT id FROM processing_jobs WHERE status = 'pending' ORDER BY id LIMIT :limit)
    UNION ALL SELECT id FROM (SELECT id FROM processing_jobs WHERE status = 'failed' AND error_kind = 'retryable'
        AND attempts < max_attempts AND next_retry_at <= :now ORDER BY id LIMIT :limit)
    ORDER BY id LIMIT :limit"""
# The last error of the job pass `p` of the job `j`: its own last failure's, else (a job made before passes
# failed apart, schema v17) its job's.
PASS_ERROR = """ifnull((SELECT f.error FROM pass_failures f WHERE f.job_pass_id = p.id ORDER BY f.id DESC LIMIT 1),
    j.last_error)"""
RECOVERED = "recovered stale processing job"
RELEASED = "released by its worker, which stopped before finishing it"
_RNG = random.Random()


@dataclass(frozen=True)
class JobPass:
    """One pass a job runs on its capture: the pass's identity and inputs, and the id its result is stored under."""

    id: int
    pass_name: str
    pass_version: int
    input_fingerprint: str
    inputs: dict


@dataclass(frozen=True)
class ClaimedJob:
    """A job this worker holds; only `claim_token` lets it complete or fail it."""

    id: int
    capture_id: int
    passes: tuple[JobPass, ...]  # those without a result yet (a retried job's others have theirs)
    claim_token: str
    attempt: int


@dataclass(frozen=True)
class PassOutcome:
    """What running one pass of a claimed job gave: an output to persist, or an error."""

    job_pass: JobPass
    output_json: str | None = None  # without its lazy fields
    lazy_json: tuple[tuple[str, str], ...] = ()  # (field, JSON) of each lazy field, stored beside the output
    diagnostics_json: str | None = None  # the output's diagnostics, when it has some, stored apart too
    contract_version: int = 1
    error: str | None = None
    error_kind: str = "permanent"  # or "retryable"
    edit: dict | None = None  # an edit the output proposes or makes, sent to the event spool
    event_id: str | None = None  # the event the edit went out as, recorded with the result


@dataclass(frozen=True)
class Outcome:
    """What running a claimed job gave: its passes' outcomes, or an error of the job as a whole."""

    job: ClaimedJob
    passes: tuple[PassOutcome, ...] = ()
    job_error: str | None = None  # the job could not run at all (its capture is missing)

    def failures(self) -> list[tuple[JobPass, str, str]]:
        """(job pass, error, kind) of each pass that failed: all of the job's when it could not run at all."""
        if self.job_error is not None:
            return [(job_pass, self.job_error, "permanent") for job_pass in self.job.passes]
        return [(outcome.job_pass, outcome.error, outcome.error_kind) for outcome in self.passes if outcome.error]

    @property
    def error(self) -> str | None:
        """The job's error: its own, or its failed passes' (each named), or None when it is done."""
        if self.job_error is not None:
            return self.job_error
        return "; ".join(f"{job_pass.pass_name}: {error}" for job_pass, error, _ in self.failures()) or None

    @property
    def error_kind(self) -> str:
        """Retryable when any failed pass may pass another time: a retry re-runs the job's failed passes only."""
        return "retryable" if any(kind == "retryable" for _, _, kind in self.failures()) else "permanent"


@dataclass(frozen=True)
class Backoff:
    """Bounded exponential backoff with jitter: base * 2^(attempt-1), capped, times 0.5-1.0."""

    base: float = 2.0
    cap: float = 300.0

    def delay(self, attempt: int, rng: random.Random = _RNG) -> float:
        return min(self.cap, self.base * 2 ** max(0, attempt - 1)) * (0.5 + rng.random() / 2)


def claim(conn: sqlite3.Connection, *, worker: str, limit: int, lease_seconds: float, now: float) -> list[ClaimedJob]:
    """Atomically claim up to `limit` eligible jobs, oldest first, each with its passes that have no result."""
    batch = secrets.token_hex(8)
    with write(conn):
        rows = conn.execute(
            f"""UPDATE processing_jobs
                SET status = 'processing', attempts = attempts + 1, claim_token = :batch || '-' || id,
                    lease_expires_at = :lease, started_at = :now, finished_at = NULL, worker = :worker
                WHERE id IN ({OLDEST_ELIGIBLE})
                RETURNING id, capture_id, claim_token, attempts""",
            {"batch": batch, "lease": now + lease_seconds, "now": now, "worker": worker, "limit": limit},
        ).fetchall()
        conn.executemany(
            "INSERT INTO job_attempts (job_id, attempt, claim_token, worker, started_at) VALUES (?, ?, ?, ?, ?)",
            [(r["id"], r["attempts"], r["claim_token"], worker, now) for r in rows],
        )
        passes = _passes_to_run(conn, [r["id"] for r in rows])
    jobs = [ClaimedJob(r["id"], r["capture_id"], passes.get(r["id"], ()), r["claim_token"], r["attempts"])
            for r in rows]  # fmt: skip
    return sorted(jobs, key=lambda job: job.id)


def _passes_to_run(conn: sqlite3.Connection, job_ids: list[int]) -> dict[int, tuple[JobPass, ...]]:
    """job id -> its passes without a result, in the order they were planned."""
    found: dict[int, list[JobPass]] = {}
    rows = conn.execute(
        f"""SELECT p.job_id, p.id, p.pass_name, p.pass_version, p.input_fingerprint, p.inputs FROM job_passes p
            WHERE p.job_id IN ({','.join('?' * len(job_ids))})
                AND NOT EXISTS (SELECT 1 FROM processing_results r WHERE r.job_id = p.id) ORDER BY p.id""",
        job_ids,
    )
    for job_id, pass_id, name, version, fingerprint, inputs in rows:
        found.setdefault(job_id, []).append(JobPass(pass_id, name, version, fingerprint, jsonio.loads(inputs)))
    return {job_id: tuple(passes) for job_id, passes in found.items()}


def finish(conn: sqlite3.Connection, outcomes: list[Outcome], *, now: float, backoff: Backoff) -> tuple[list, list]:
    """Persist results and failures of claimed jobs; return (accepted ids, rejected ids).

    A job whose claim token no longer matches (its lease expired and it was
    recovered) is rejected: nothing of it is written except the attempt. An accepted
    job's passes that did not fail keep their results, failed or not.
    """
    with write(conn):
        fenced = _fence_done(conn, [o for o in outcomes if o.error is None], now)
        fenced |= {o.job.id for o in outcomes if o.error is not None and _fence_failed(conn, o, now, backoff)}
        accepted = [o for o in outcomes if o.job.id in fenced]
        rejected = [o for o in outcomes if o.job.id not in fenced]
        _persist(conn, [(o.job, p) for o in accepted for p in o.passes if p.error is None], now)
        conn.executemany(
            "INSERT INTO pass_failures (job_pass_id, claim_token, error, error_kind) VALUES (?, ?, ?, ?)",
            [(job_pass.id, o.job.claim_token, error, kind) for o in accepted for job_pass, error, kind in o.failures()],
        )
        conn.executemany(
            "UPDATE job_attempts SET finished_at = ?, outcome = ?, error = ?, error_kind = ? WHERE claim_token = ?",
            [(now, _attempted(o), o.error, o.error_kind if o.error else None, o.job.claim_token) for o in accepted],
        )
        conn.executemany(
            "INSERT INTO rejected_completions (job_id, claim_token, attempted, error, at) VALUES (?, ?, ?, ?, ?)",
            [(o.job.id, o.job.claim_token, _attempted(o), o.error, now) for o in rejected],
        )
    return [o.job.id for o in accepted], [o.job.id for o in rejected]


def _persist(conn: sqlite3.Connection, done: list[tuple[ClaimedJob, PassOutcome]], now: float) -> None:
    """Write each pass's result (job, pass outcome): its output, digest, diagnostics, lazy fields and sent edit."""
    conn.executemany(
        """INSERT INTO processing_results (job_id, capture_id, pass_name, pass_version, contract_version,
               input_fingerprint, output, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)""",
        [(p.job_pass.id, job.capture_id, p.job_pass.pass_name, p.job_pass.pass_version, p.contract_version,
          p.job_pass.input_fingerprint, p.output_json, now) for job, p in done],
    )  # fmt: skip
    conn.executemany(
        "INSERT INTO result_digests (job_id, sha256, reports) VALUES (?, ?, ?)",
        [(p.job_pass.id, output_digest(p.output_json), SOME_DIAGNOSTIC in p.output_json) for _, p in done],
    )
    conn.executemany(
        "INSERT INTO result_diagnostics (job_id, diagnostics) VALUES (?, ?)",
        [(p.job_pass.id, p.diagnostics_json) for _, p in done if p.diagnostics_json],
    )
    conn.executemany(
        "INSERT INTO result_fields (job_id, field, value) VALUES (?, ?, ?)",
        [(p.job_pass.id, name, value) for _, p in done for name, value in p.lazy_json],
    )
    conn.executemany("INSERT OR IGNORE INTO sent_edits (event_id) VALUES (?)",
                     [(p.event_id,) for _, p in done if p.event_id])  # fmt: skip


def _attempted(outcome: Outcome) -> str:
    return "done" if outcome.error is None else "failed"


def _fence_done(conn: sqlite3.Connection, outcomes: list[Outcome], now: float) -> set[int]:
    """Mark done, in one statement, the jobs whose claim token still matches; return their ids."""
    if not outcomes:
        return set()
    tokens = [o.job.claim_token for o in outcomes]
    rows = conn.execute(
        f"""UPDATE processing_jobs SET status = 'done', finished_at = ?, claim_token = NULL,
                lease_expires_at = NULL, last_error = NULL, error_kind = NULL, next_retry_at = NULL
            WHERE status = 'processing' AND claim_token IN ({','.join('?' * len(tokens))}) RETURNING id""",
        [now, *tokens],
    )
    return {row[0] for row in rows}


def _fence_failed(conn: sqlite3.Connection, outcome: Outcome, now: float, backoff: Backoff) -> bool:
    cursor = conn.execute(
        """UPDATE processing_jobs SET status = 'failed', finished_at = :now, claim_token = NULL,
               lease_expires_at = NULL, last_error = :error, error_kind = :kind,
               next_retry_at = CASE WHEN :kind = 'retryable' AND attempts < max_attempts THEN :now + :delay END
           WHERE id = :id AND claim_token = :token AND status = 'processing'""",
        {"id": outcome.job.id, "token": outcome.job.claim_token, "now": now, "error": outcome.error,
         "kind": outcome.error_kind, "delay": backoff.delay(outcome.job.attempt)},
    )  # fmt: skip
    return cursor.rowcount == 1


def recover_stale(conn: sqlite3.Connection, *, now: float, stale_after: float | None = None) -> list[int]:
    """Return to `pending` the `processing` jobs whose lease expired, or whose worker was a process of
    this machine that has ended (a build stopped with Ctrl-C: its jobs need not wait out their lease).
    With `stale_after`: those claimed longer ago than that, whatever their lease."""
    with write(conn):
        rows = conn.execute(
            """SELECT id, claim_token, worker, started_at, lease_expires_at FROM processing_jobs
               WHERE status = 'processing'"""
        ).fetchall()
        if stale_after is None:
            stale = [row for row in rows if row["lease_expires_at"] < now or _ended(row["worker"])]
        else:
            stale = [row for row in rows if row["started_at"] < now - stale_after]
        _back_to_pending(conn, [(row["id"], row["claim_token"]) for row in stale], RECOVERED, now)
    return [row["id"] for row in stale]


def release(conn: sqlite3.Connection, jobs: list[ClaimedJob], *, now: float) -> list[int]:
    """Return to `pending` the jobs of `jobs` this claim still holds (its worker is stopping); return their ids.

    Best effort: when the store fails too, the jobs wait for their lease to run out or for a process
    to see that their worker has ended (`recover_stale`)."""
    tokens = [job.claim_token for job in jobs]
    try:
        with write(conn):
            held = conn.execute(
                f"""SELECT id, claim_token FROM processing_jobs
                    WHERE status = 'processing' AND claim_token IN ({','.join('?' * len(tokens))}) ORDER BY id""",
                tokens,
            ).fetchall()
            _back_to_pending(conn, [tuple(row) for row in held], RELEASED, now)
    except sqlite3.Error:
        return []
    return [row[0] for row in held]


def _back_to_pending(conn: sqlite3.Connection, claims: list[tuple[int, str]], reason: str, now: float) -> None:
    """Put the claimed jobs (id, claim token) back to `pending`, each attempt ended `recovered` for `reason`."""
    conn.executemany(
        """UPDATE processing_jobs SET status = 'pending', started_at = NULL, claim_token = NULL,
               lease_expires_at = NULL, worker = NULL, last_error = ? WHERE id = ?""",
        [(reason, job_id) for job_id, _ in claims],
    )
    conn.executemany(
        "UPDATE job_attempts SET finished_at = ?, outcome = 'recovered', error = ? WHERE claim_token = ?",
        [(now, reason, token) for _, token in claims],
    )


def worker_name() -> str:
    """This process as a worker: `host:pid`, so that another process of the host can tell when it ended."""
    return f"{_host()}:{os.getpid()}"


def _host() -> str:
    # The host name as `socket.gethostname` gives it on POSIX, without importing socket in every build.
    return os.uname().nodename


def _ended(worker: str | None) -> bool:
    """Whether `worker` names a process of this host that no longer runs (not one of elsewhere, or unnamed)."""
    host, _, pid = (worker or "").rpartition(":")
    if host != _host() or not pid.isdigit() or int(pid) <= 0:
        return False
    try:
        os.kill(int(pid), 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except OSError:  # it runs, as another user
        return False
    return False


def held_leases(conn: sqlite3.Connection, pass_ids: Container[int]) -> list[float]:
    """When the lease on each job still `processing` that runs a job pass of `pass_ids` with no result yet runs out
    (once a job): a job retried for one pass holds none of its others, whose results are there."""
    rows = conn.execute(
        """SELECT j.id, j.lease_expires_at, p.id FROM processing_jobs j JOIN job_passes p ON p.job_id = j.id
           WHERE j.status = 'processing' AND NOT EXISTS (SELECT 1 FROM processing_results r WHERE r.job_id = p.id)"""
    )
    return list({job_id: lease for job_id, lease, pass_id in rows if pass_id in pass_ids}.values())


def retry(conn: sqlite3.Connection, ids: list[int] | None = None) -> list[int]:
    """Put failed jobs (all of them when `ids` is None) back to `pending`.

    History stays: attempts, the attempt rows and last_error are kept. A job
    that had used up its attempts gets one more.
    """
    where = "status = 'failed'" + ("" if ids is None else f" AND id IN ({','.join('?' * len(ids))})")
    with write(conn):
        rows = conn.execute(
            f"""UPDATE processing_jobs SET status = 'pending', next_retry_at = NULL,
                    max_attempts = MAX(max_attempts, attempts + 1) WHERE {where} RETURNING id""",
            ids or [],
        ).fetchall()
    return sorted(row["id"] for row in rows)


def job_state(row: sqlite3.Row | dict, now: float) -> str:
    """pending, processing, done, failed-waiting, failed-ready or failed-terminal."""
    if row["status"] != "failed":
        return row["status"]
    if row["error_kind"] != "retryable" or row["attempts"] >= row["max_attempts"]:
        return "failed-terminal"
    return "failed-waiting" if row["next_retry_at"] > now else "failed-ready"


def has_work(conn: sqlite3.Connection, now: float) -> bool:
    """Whether any job is eligible to claim now."""
    return conn.execute(f"SELECT 1 FROM processing_jobs WHERE {ELIGIBLE} LIMIT 1", {"now": now}).fetchone() is not None
