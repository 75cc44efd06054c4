"""The SQLite state database: connections, their settings, migrating (the schema is `schema.py`).

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
- The schema's triggers make `captures`, `capture_history`,
  `attachment_captures`, `job_inputs`, `rejected_completions`,
  `processing_results`, `result_fields`, `result_digests` and finished
  `job_attempts` append-only.
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
from pipeline.storage.schema import MIGRATIONS, SCHEMA_VERSION

BUSY_TIMEOUT_MS = 30_000


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
    try:
        _set_up(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        # Exactly DatabaseError: a file that is not an SQLite database, or a damaged one (a busy one is
        # an OperationalError, a subclass, and goes on as one).
        if type(exc) is not sqlite3.DatabaseError:
            raise
        raise UserError(f"{path}: not a state database pipeline can read ({exc}); move the state folder aside "
                        "and build again to make a new one") from exc  # fmt: skip
    # A long-lived process (`serve`) may hold a reader of a database since deleted and made anew.
    _drop_readers(db_path(conn))
    return conn


def _set_up(conn: sqlite3.Connection) -> None:
    """The connection's settings, the digest function, and the schema migrated to this code's."""
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA cache_size = -16384")  # 16 MB: the indexes every build reads stay cached
    conn.create_function("pipeline_sha256", 1, output_digest, deterministic=True)
    migrate(conn)


def output_digest(output: str) -> str:
    """A result's digest: the sha256 of its output JSON."""
    return hashlib.sha256(output.encode()).hexdigest()


def migrate(conn: sqlite3.Connection) -> int:
    """Apply every forward migration the database has not seen; return the new version.

    Foreign keys are off while migrating, as SQLite's way of making a table again asks (v17 does), and
    checked before the migration commits: a reference it broke rolls it back whole (one broken before,
    by an older version or a hand, is left as it was)."""
    if conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION:
        return SCHEMA_VERSION  # every open but the first after an upgrade: no write lock, no pragma turned
    conn.execute("PRAGMA foreign_keys = OFF")  # outside the transaction: SQLite ignores it inside one
    try:
        with write(conn):
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # again: another process may have migrated
            if version > SCHEMA_VERSION:
                raise UserError(
                    f"state database schema v{version} is newer than this pipeline (v{SCHEMA_VERSION}); upgrade pipeline"
                )
            if version == SCHEMA_VERSION:
                return SCHEMA_VERSION
            before = _broken_references(conn) if version else set()
            for number in range(version, SCHEMA_VERSION):
                for statement in _statements(MIGRATIONS[number]):
                    conn.execute(statement)
            broken = sorted(_broken_references(conn) - before, key=repr)  # a table without row ids gives None
            if broken:
                raise UserError(f"state database: migrating to v{SCHEMA_VERSION} would break a reference of "
                                f"{broken[0][0]} (row {broken[0][1]}); nothing was changed")  # fmt: skip
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
    finally:
        conn.execute("PRAGMA foreign_keys = ON")
    return SCHEMA_VERSION


def _broken_references(conn: sqlite3.Connection) -> set[tuple]:
    """(table, row id, table referred to) of each row whose foreign key names no row."""
    return {tuple(row[:3]) for row in conn.execute("PRAGMA foreign_key_check")}


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
