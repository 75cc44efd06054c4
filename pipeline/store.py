"""The SQLite state database: connection settings, schema, migrations, immutability.

Owns `.pipeline/state.db`. Every other module talks SQL through a connection
from `open_store`; this module decides how that connection behaves:

- WAL journal, so readers (the preview server, `status`) never block workers.
- `synchronous=NORMAL`: in WAL mode a commit survives a crash or SIGKILL of
  any process; only a power loss can roll back the last few commits, never
  corrupt the file. Everything in the store is re-derivable from the content
  folder by the next `capture` and `plan`, so paying an fsync per commit
  (FULL) on thousands of small claim/complete transactions buys nothing.
- Foreign keys on, a 30 s busy timeout, and autocommit mode so that every
  write transaction is opened explicitly with `BEGIN IMMEDIATE` (`write()`).
- Triggers make `captures`, `capture_history`, `job_inputs`,
  `rejected_completions`, `processing_results`, `result_fields`,
  `result_digests` and finished `job_attempts` append-only.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import weakref
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from pipeline.errors import UserError
from pipeline.passes.base import SOME_DIAGNOSTIC

BUSY_TIMEOUT_MS = 30_000


def _immutable(table: str) -> str:
    return f"""
    CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
    BEGIN SELECT RAISE(ABORT, '{table} is immutable: rows cannot be updated'); END;
    CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
    BEGIN SELECT RAISE(ABORT, '{table} is immutable: rows cannot be deleted'); END;
    """


SCHEMA_V1 = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    -- One row per distinct (path, bytes) ever seen, plus one per removal.
    CREATE TABLE captures (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,               -- relative to the content folder, '/' separated
        sha256 TEXT NOT NULL,             -- of the raw bytes (of the removed bytes, for a removal)
        kind TEXT NOT NULL CHECK (kind IN ('file', 'removal')),
        size INTEGER NOT NULL,
        raw BLOB,
        text TEXT,                        -- no longer written: read as raw decoded (older rows may hold it)
        decode_error TEXT,
        frontmatter TEXT,                 -- JSON object, or NULL
        frontmatter_error TEXT,
        frontmatter_error_line INTEGER,
        body TEXT,                        -- unused (NULL): the body is derived from text and body_line
        body_line INTEGER,                -- line of the file where the body starts (1-based)
        lang TEXT,
        slug TEXT,
        git_commit TEXT,
        captured_at TEXT NOT NULL,
        UNIQUE (path, sha256, kind)
    );

    -- Which capture a path pointed to, and since when; the newest row per path is current.
    CREATE TABLE capture_history (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        capture_id INTEGER NOT NULL REFERENCES captures(id),
        observed_at TEXT NOT NULL,
        git_commit TEXT
    );
    CREATE INDEX capture_history_path ON capture_history (path, id);

    -- Content-addressed slices of the wiki that jobs read (shared between jobs).
    CREATE TABLE job_inputs (sha256 TEXT PRIMARY KEY, json TEXT NOT NULL);

    CREATE TABLE processing_jobs (
        id INTEGER PRIMARY KEY,
        capture_id INTEGER NOT NULL REFERENCES captures(id),
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        input_fingerprint TEXT NOT NULL,
        inputs TEXT NOT NULL DEFAULT '{}',  -- JSON: input name -> job_inputs.sha256
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'processing', 'done', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        last_error TEXT,
        error_kind TEXT CHECK (error_kind IN ('retryable', 'permanent')),
        next_retry_at REAL,
        created_at REAL NOT NULL,
        started_at REAL,
        finished_at REAL,
        claim_token TEXT,
        lease_expires_at REAL,
        worker TEXT,
        UNIQUE (capture_id, pass_name, pass_version, input_fingerprint)
    );
    CREATE INDEX processing_jobs_status ON processing_jobs (status, id);

    -- Every claim of a job, kept forever: start, end, outcome, error.
    CREATE TABLE job_attempts (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL REFERENCES processing_jobs(id),
        attempt INTEGER NOT NULL,
        claim_token TEXT NOT NULL,
        worker TEXT,
        started_at REAL NOT NULL,
        finished_at REAL,
        outcome TEXT CHECK (outcome IN ('done', 'failed', 'recovered')),
        error TEXT,
        error_kind TEXT
    );
    CREATE INDEX job_attempts_job ON job_attempts (job_id);
    CREATE UNIQUE INDEX job_attempts_token ON job_attempts (claim_token);

    -- A worker tried to finish a job after its claim was recovered; the fence refused it.
    CREATE TABLE rejected_completions (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL REFERENCES processing_jobs(id),
        claim_token TEXT NOT NULL,
        attempted TEXT NOT NULL CHECK (attempted IN ('done', 'failed')),
        error TEXT,
        at REAL NOT NULL
    );

    CREATE TABLE processing_results (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL UNIQUE REFERENCES processing_jobs(id),
        capture_id INTEGER NOT NULL REFERENCES captures(id),
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        contract_version INTEGER NOT NULL,
        input_fingerprint TEXT NOT NULL,
        output TEXT NOT NULL,             -- JSON, valid against the pass's contract
        created_at REAL NOT NULL
    );
    CREATE INDEX processing_results_capture ON processing_results (capture_id, pass_name);
    """
    + _immutable("captures")
    + _immutable("capture_history")
    + _immutable("job_inputs")
    + _immutable("processing_results")
    + _immutable("rejected_completions")
    + """
    CREATE TRIGGER job_attempts_no_delete BEFORE DELETE ON job_attempts
    BEGIN SELECT RAISE(ABORT, 'job_attempts is append-only: rows cannot be deleted'); END;
    CREATE TRIGGER job_attempts_closed BEFORE UPDATE ON job_attempts WHEN OLD.outcome IS NOT NULL
    BEGIN SELECT RAISE(ABORT, 'job_attempts is append-only: a finished attempt cannot change'); END;
    """
)

# v2: a cache of (size, mtime) -> sha256 per source file, so an unchanged file is not read again.
# It is not a lifecycle table: rows are replaced freely, and deleting them all only costs one full read.
SCHEMA_V2 = """
    CREATE TABLE file_stats (
        path TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        checked_ns INTEGER NOT NULL       -- when the file was hashed (see capture.py: racy timestamps)
    );
"""

# v3: the identity of every capture in a small covering index, so the capture log and the current
# state (read by every build, even one with nothing to do) never touch the rows holding the bytes.
SCHEMA_V3 = """
    CREATE INDEX captures_identity ON captures (id, sha256, kind);
"""

# v4: the last plan of each pass version, for the planner to lend to the next (plan_memo.py). A cache,
# like file_stats: rows are replaced freely, and losing them only costs one full plan.
SCHEMA_V4 = """
    CREATE TABLE plan_worlds (
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        world TEXT NOT NULL,              -- digest of what the pass's select reads beyond the article
        PRIMARY KEY (pass_name, pass_version)
    );
    CREATE TABLE plan_memo (
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        capture_id INTEGER NOT NULL,
        own TEXT NOT NULL,                -- digest of the article's own results the select reads
        job_id INTEGER NOT NULL,
        PRIMARY KEY (pass_name, pass_version, capture_id)
    );
"""

# v5: a result's lazy fields (a pass's LAZY_FIELDS: page HTML) beside its output instead of in it, so
# loading a build's results never reads them, nor has SQLite take them out of the JSON. Immutable too.
SCHEMA_V5 = (
    """
    CREATE TABLE result_fields (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL REFERENCES processing_results(job_id),
        field TEXT NOT NULL,
        value TEXT NOT NULL,              -- JSON
        UNIQUE (job_id, field)
    );
    """
    + _immutable("result_fields")
)

# v6: what a pass's selects build from its world alone (its KEEP memos: the link index), kept with
# the world they were built in, so that a build in the same world loads them. A cache, like plan_memo.
SCHEMA_V6 = """
    CREATE TABLE kept_memos (
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        key TEXT NOT NULL,                -- the key the pass memoizes it under (`Wiki.memo`)
        world TEXT NOT NULL,              -- digest of the pass's world and of the code that built it
        value BLOB NOT NULL,              -- pickled
        PRIMARY KEY (pass_name, pass_version, key)
    );
"""

# v7: each result's digest and whether it reports a diagnostic, written with it, so that a build
# reads only the outputs it uses instead of every output to digest it. Immutable too. Results from
# before v7 get theirs here (`pipeline_sha256`: registered on every connection `open_store` makes).
SCHEMA_V7 = (
    f"""
    CREATE TABLE result_digests (
        job_id INTEGER PRIMARY KEY REFERENCES processing_results(job_id),
        sha256 TEXT NOT NULL,             -- of the output JSON (as UTF-8)
        reports INTEGER NOT NULL          -- 1 when the output may report a diagnostic (it holds SOME_DIAGNOSTIC)
    );
    INSERT INTO result_digests (job_id, sha256, reports)
        SELECT job_id, pipeline_sha256(output), instr(output, '{SOME_DIAGNOSTIC}') > 0 FROM processing_results;
    """
    + _immutable("result_digests")
)

# v8: every column of a capture an Article holds but its bytes, in a covering index. A capture's
# bytes (7 KB for a 1,000-word article) overflow its table page and come before its frontmatter,
# so reading the frontmatter of a row walked its overflow pages: loading the 13,000 articles of a
# big wiki read 93 MB through the table, and reads 6 MB through this index (twice as fast).
SCHEMA_V8 = """
    CREATE INDEX captures_fields ON captures (id, path, sha256, size, decode_error, frontmatter,
        frontmatter_error, frontmatter_error_line, body_line, lang, slug);
"""

# v9: whether a result's output holds a text, once a build has searched it for that text
# (`StoredOutputs.mentioning`: the html pass looks for the wikilinks outputs that embed an article).
# Outputs never change, so neither does a row; a missing row only costs one search of that output.
SCHEMA_V9 = """
    CREATE TABLE result_mentions (
        text TEXT NOT NULL,
        job_id INTEGER NOT NULL,
        present INTEGER NOT NULL,         -- 1 when the output's JSON holds the text
        PRIMARY KEY (text, job_id)
    ) WITHOUT ROWID;
"""

# Forward migrations: MIGRATIONS[i] takes the schema from user_version i to i + 1.
MIGRATIONS: tuple[str, ...] = (
    SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5, SCHEMA_V6, SCHEMA_V7, SCHEMA_V8, SCHEMA_V9
)  # fmt: skip
SCHEMA_VERSION = len(MIGRATIONS)


def db_path(conn: sqlite3.Connection) -> str:
    """The file of the database `conn` is open on, as `reader` takes it."""
    return conn.execute("PRAGMA database_list").fetchone()[2]


def store_identity(conn: sqlite3.Connection) -> tuple:
    """What tells this database from another at the same path: its file, and when its first capture
    was made (a state folder deleted and built anew numbers its captures and jobs from 1 again)."""
    path = db_path(conn)
    first = conn.execute("SELECT id, captured_at FROM captures ORDER BY id LIMIT 1").fetchone()
    return (path, os.stat(path).st_ino, tuple(first) if first else None)


def plain_rows(conn: sqlite3.Connection) -> sqlite3.Cursor:
    """A cursor giving tuples: reading every row of a big wiki, sqlite3.Row costs more than the query."""
    cursor = conn.cursor()
    cursor.row_factory = None
    return cursor


IDS_PER_STATEMENT = 500  # well below SQLite's limit on bound parameters


def rows_for_ids(conn: sqlite3.Connection, sql: str, ids: list, params: tuple = ()) -> Iterator[tuple]:
    """The rows (tuples) of `sql` for every id of `ids`, a statement per chunk of them, read as
    iterated; `sql` holds `({ids})` where the chunk's placeholders go, after those of `params`."""
    for start in range(0, len(ids), IDS_PER_STATEMENT):
        chunk = ids[start : start + IDS_PER_STATEMENT]
        yield from plain_rows(conn).execute(sql.format(ids=",".join("?" * len(chunk))), (*params, *chunk))


class _Connection(sqlite3.Connection):
    """A connection this module opened, so that `close_all` can find it (the base class takes no weak reference)."""


_OPEN: weakref.WeakSet[_Connection] = weakref.WeakSet()


def _connect(path, **options) -> sqlite3.Connection:
    conn = sqlite3.connect(
        path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False, factory=_Connection, **options
    )  # fmt: skip
    _OPEN.add(conn)
    return conn


def close_all() -> None:
    """Close every connection of this process still open, as the interpreter would on the way out.

    For a process that ends with `os._exit`: the last connection to close a WAL database
    checkpoints it and removes its `-wal` and `-shm` files; left open, they stay, and the
    next process to open the store must replay the log first.
    """
    for conn in list(_OPEN):
        conn.close()
    _READERS.clear()


_READERS: dict[tuple[int, str], sqlite3.Connection] = {}


def _drop_readers(db: str) -> None:
    reader = _READERS.pop((os.getpid(), db), None)
    if reader is not None:
        reader.close()


def reader(db: str) -> sqlite3.Connection:
    """This process's read connection to the store at `db` (forked processes never share one)."""
    key = (os.getpid(), db)
    if key not in _READERS:
        _READERS[key] = _connect(db)
    return _READERS[key]


def open_store(path: Path, *, create: bool = True) -> sqlite3.Connection:
    """Open (and create or migrate) the state database at `path`."""
    path = Path(path)
    if not path.exists():
        if not create:
            raise UserError(f"{path}: no state database here yet (run `pipeline capture` or `build` first)")
        path.parent.mkdir(parents=True, exist_ok=True)
    conn = _connect(path, isolation_level=None)
    conn.row_factory = sqlite3.Row
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA cache_size = -16384")  # 16 MB: the indexes every build reads stay cached
    conn.create_function("pipeline_sha256", 1, output_digest, deterministic=True)
    migrate(conn)
    # A long-lived process (`serve`) may hold a reader of a database since deleted and made anew.
    _drop_readers(db_path(conn))
    return conn


def output_digest(output: str) -> str:
    """A result's digest: the sha256 of its output JSON."""
    return hashlib.sha256(output.encode()).hexdigest()


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every forward migration the database has not seen; return the new version."""
    with write(conn):
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise UserError(
                f"state database schema v{version} is newer than this pipeline (v{SCHEMA_VERSION}); upgrade pipeline"
            )
        for number in range(version, SCHEMA_VERSION):
            for statement in _statements(MIGRATIONS[number]):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    return SCHEMA_VERSION


def _statements(script: str) -> Iterator[str]:
    """Split a migration script into statements (trigger bodies contain ';')."""
    buffer = ""
    for line in script.splitlines(keepends=True):
        if line.strip().startswith("--"):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            yield buffer.strip()
            buffer = ""


@contextmanager
def write(conn: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
    """A write transaction that takes the write lock up front (`BEGIN IMMEDIATE`).

    Taking the lock at BEGIN, not at the first write, means two workers never
    both read then both try to upgrade, which is where SQLite returns BUSY
    without waiting.
    """
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield conn
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")
