"""Writing a round's plan into the store: the inputs of its new job passes, the job passes, and a job for each
capture that has some (`plan.py` decides which; this module only writes and looks up by identity)."""

from __future__ import annotations

import hashlib
import sqlite3

from pipeline.runtime import jsonio

MAX_ROWID = 2**63 - 1


def store_inputs(conn: sqlite3.Connection, rows: list, blobs: dict) -> dict[tuple, int]:
    """Store the inputs (`blobs`: sha -> JSON, UTF-8) of the job passes of `rows` (one share's) that do not exist;
    return those that do: (capture id, pass, version, fingerprint) -> job pass id. Called as each share's rows
    arrive, so a round's inputs are never all held at once."""
    existing = existing_passes(conn, rows)
    # Jobs that exist already have their inputs stored: only new jobs' inputs need writing. Every
    # blob is some row's input, so when every job is new (a cold build) all are.
    needed = blobs.keys() if not existing else {
        sha for row in rows if row[:4] not in existing for sha in jsonio.loads(row[4]).values()}  # fmt: skip
    conn.executemany("INSERT OR IGNORE INTO job_inputs (sha256, json) VALUES (?, ?)",
                     ((sha, blobs[sha].decode()) for sha in needed))  # as text: one at a time
    return existing


def insert_jobs(conn: sqlite3.Connection, rows: list, existing: dict, max_attempts: int, now: float) -> list:
    """Create the job passes of `rows` not `existing` (their inputs stored: `store_inputs`), and a job for each
    capture to run its new ones; add them to `existing` (identity -> job pass id) and return their rows."""
    missing = [row for row in rows if row[:4] not in existing]
    by_capture: dict[int, list] = {}
    for row in missing:  # a capture's rows, in the order planned: a job runs its passes in that order
        by_capture.setdefault(row[0], []).append(row)
    jobs = _new_ids(conn, "processing_jobs",
        """INSERT INTO processing_jobs (capture_id, pass_name, pass_version, input_fingerprint, inputs,
               max_attempts, created_at) VALUES (?, ?, 0, ?, '{}', ?, ?)""",
        [(capture_id, ",".join(row[1] for row in job_rows), _job_fingerprint(job_rows), max_attempts, now)
         for capture_id, job_rows in by_capture.items()])  # fmt: skip
    job_of = dict(zip(by_capture, jobs))
    passes = _new_ids(conn, "job_passes",
        """INSERT INTO job_passes (job_id, capture_id, pass_name, pass_version, input_fingerprint, inputs)
               VALUES (?, ?, ?, ?, ?, ?)""",
        [(job_of[row[0]], *row) for row in missing])  # fmt: skip
    existing.update(zip((row[:4] for row in missing), passes))
    return missing


def _new_ids(conn: sqlite3.Connection, table: str, insert: str, values: list[tuple]) -> list[int]:
    """Insert `values` into `table` (in the caller's write transaction); return the new rows' ids, in order."""
    (before,) = conn.execute(f"SELECT ifnull(max(id), 0) FROM {table}").fetchone()
    if before + len(values) <= MAX_ROWID:  # SQLite gives each row the largest id so far plus one
        conn.executemany(insert, values)
        return list(range(before + 1, before + 1 + len(values)))
    return [conn.execute(insert, value).lastrowid for value in values]  # it picks ids at random past the largest


def _job_fingerprint(rows: list[tuple]) -> str:
    """A job's identity beyond its capture: its passes' (name, version, fingerprint)."""
    identities = "|".join(f"{name}:{version}:{digest}" for _, name, version, digest, _ in rows)
    return hashlib.sha256(identities.encode()).hexdigest()


def existing_passes(conn: sqlite3.Connection, rows: list[tuple]) -> dict[tuple, int]:
    """(capture id, pass, version, fingerprint) -> job pass id of the job passes of `rows` that exist.

    The identities go to a temporary table joined with the job passes' unique index, so only those
    asked for are read: reading every job pass of each pass (one per article, more with each
    change) cost a title change far more than looking up the identities it asks for.
    """
    conn.execute(
        """CREATE TEMP TABLE IF NOT EXISTS wanted_passes
               (capture_id INTEGER, pass_name TEXT, pass_version INTEGER, input_fingerprint TEXT)"""
    )
    conn.execute("DELETE FROM wanted_passes")
    conn.executemany("INSERT INTO wanted_passes VALUES (?, ?, ?, ?)", [row[:4] for row in rows])
    found = conn.execute(
        """SELECT w.capture_id, w.pass_name, w.pass_version, w.input_fingerprint, p.id FROM wanted_passes w
           JOIN job_passes p USING (capture_id, pass_name, pass_version, input_fingerprint)"""
    )
    return {tuple(row[:4]): row[4] for row in found}
