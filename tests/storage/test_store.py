"""The store: pragmas, migrations, immutability triggers, durability across reopen."""

import json
import re
import sqlite3

import pytest

from pipeline.errors import UserError
from pipeline.storage.store import SCHEMA_VERSION, open_store


def test_pragmas_and_schema_version(tmp_path):
    conn = open_store(tmp_path / "state.db")
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    assert conn.execute("PRAGMA synchronous").fetchone()[0] == 1  # NORMAL
    assert conn.execute("PRAGMA busy_timeout").fetchone()[0] >= 5000
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_fixed_table_and_column_names(tmp_path):
    conn = open_store(tmp_path / "state.db")

    def columns(table):
        return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}

    assert {"id", "path", "sha256"} <= columns("captures")
    assert {"id", "capture_id", "pass_name", "pass_version", "status"} <= columns("processing_jobs")
    assert {"job_id", "capture_id", "pass_name", "pass_version"} <= columns("processing_results")


def _insert_a_job(conn):
    conn.execute(
        "INSERT INTO captures (path, sha256, kind, size, captured_at) VALUES ('a.md', 'x', 'file', 0, 'now')"
    )
    conn.execute(
        """INSERT INTO processing_jobs (capture_id, pass_name, pass_version, input_fingerprint, max_attempts,
           created_at) VALUES (1, 'p', 1, 'x', 3, 0)"""
    )
    conn.execute(
        """INSERT INTO job_passes (job_id, capture_id, pass_name, pass_version, input_fingerprint, inputs)
           VALUES (1, 1, 'p', 1, 'x', '{}')"""
    )
    conn.execute(
        """INSERT INTO processing_results (job_id, capture_id, pass_name, pass_version, contract_version,
           input_fingerprint, output, created_at) VALUES (1, 1, 'p', 1, 1, 'x', '{}', 0)"""
    )
    conn.execute("INSERT INTO result_fields (job_id, field, value) VALUES (1, 'html', '\"<p>\"')")
    conn.execute("INSERT INTO result_digests (job_id, sha256, reports) VALUES (1, 'x', 0)")
    conn.execute("INSERT INTO result_diagnostics (job_id, diagnostics) VALUES (1, '[{}]')")


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE captures SET path = 'b.md'",
        "DELETE FROM captures",
        "UPDATE processing_results SET output = '{\"x\": 1}'",
        "DELETE FROM processing_results",
        "UPDATE result_fields SET value = '\"x\"'",
        "DELETE FROM result_fields",
        "UPDATE result_digests SET reports = 1",
        "DELETE FROM result_digests",
        "UPDATE result_diagnostics SET diagnostics = '[]'",
        "DELETE FROM result_diagnostics",
        # REPLACE deletes the row it displaces without firing its delete trigger: refused all the same.
        "REPLACE INTO captures (id, path, sha256, kind, size, raw, captured_at) VALUES (1, 'a.md', 'x', 'file', 1, x'00', 'n')",
        "INSERT OR REPLACE INTO captures (path, sha256, kind, size, raw, captured_at) VALUES ('a.md', 'x', 'file', 1, x'00', 'n')",
        "INSERT INTO captures (id, path, sha256, kind, size, captured_at) VALUES (1, 'b.md', 'y', 'file', 0, 'n') "
        "ON CONFLICT DO UPDATE SET path = 'b.md'",
        "REPLACE INTO processing_results (id, job_id, capture_id, pass_name, pass_version, contract_version, "
        "input_fingerprint, output, created_at) VALUES (1, 1, 1, 'p', 1, 1, 'x', '{\"forged\": 1}', 0)",
        "INSERT OR REPLACE INTO processing_results (job_id, capture_id, pass_name, pass_version, contract_version, "
        "input_fingerprint, output, created_at) VALUES (1, 1, 'p', 1, 1, 'x', '{\"forged\": 1}', 0)",
        "INSERT INTO processing_results (id, job_id, capture_id, pass_name, pass_version, contract_version, "
        "input_fingerprint, output, created_at) VALUES (1, 1, 1, 'p', 1, 1, 'x', '{}', 0) "
        "ON CONFLICT (job_id) DO UPDATE SET output = '{\"forged\": 1}'",
        "REPLACE INTO result_fields (job_id, field, value) VALUES (1, 'html', '\"forged\"')",
        "REPLACE INTO result_digests (job_id, sha256, reports) VALUES (1, 'forged', 1)",
        "REPLACE INTO result_diagnostics (job_id, diagnostics) VALUES (1, '[]')",
    ],
)
def test_triggers_reject_update_delete_replace_and_upsert(tmp_path, statement):
    conn = open_store(tmp_path / "state.db")
    _insert_a_job(conn)
    tables = "captures", "processing_results", "result_fields", "result_digests", "result_diagnostics"
    before = {table: [tuple(row) for row in conn.execute(f"SELECT * FROM {table}")] for table in tables}
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        conn.execute(statement)
    assert {table: [tuple(row) for row in conn.execute(f"SELECT * FROM {table}")] for table in tables} == before


def test_every_append_only_table_refuses_a_row_that_would_displace_another(tmp_path):
    conn = open_store(tmp_path / "state.db")
    _insert_a_job(conn)
    conn.execute("INSERT INTO capture_history (path, capture_id, observed_at) VALUES ('a.md', 1, 'n')")
    conn.execute("INSERT INTO job_inputs (sha256, json) VALUES ('h', '{}')")
    conn.execute("INSERT INTO job_attempts (job_id, attempt, claim_token, started_at) VALUES (1, 1, 't', 0)")
    conn.execute("INSERT INTO rejected_completions (job_id, claim_token, attempted, at) VALUES (1, 't', 'done', 0)")
    protected = [row[0] for row in conn.execute("SELECT tbl_name FROM sqlite_master WHERE name LIKE '%_no_delete'")]
    for statement in [
        "REPLACE INTO capture_history (id, path, capture_id, observed_at) VALUES (1, 'b.md', 1, 'n')",
        "REPLACE INTO job_inputs (sha256, json) VALUES ('h', '{\"forged\": 1}')",
        "REPLACE INTO job_inputs (rowid, sha256, json) VALUES (1, 'other', '{}')",
        "REPLACE INTO job_attempts (job_id, attempt, claim_token, started_at) VALUES (1, 2, 't', 0)",
        "REPLACE INTO job_attempts (id, job_id, attempt, claim_token, started_at) VALUES (1, 1, 2, 'u', 0)",
        "REPLACE INTO rejected_completions (id, job_id, claim_token, attempted, at) VALUES (1, 1, 'u', 'failed', 0)",
        "REPLACE INTO result_fields (id, job_id, field, value) VALUES (1, 1, 'other', '0')",
        "REPLACE INTO job_passes (id, job_id, capture_id, pass_name, pass_version, input_fingerprint, inputs) "
        "VALUES (1, 1, 1, 'p', 2, 'y', '{}')",
        "REPLACE INTO job_passes (job_id, capture_id, pass_name, pass_version, input_fingerprint, inputs) "
        "VALUES (1, 1, 'p', 1, 'x', '{\"forged\": 1}')",
    ]:
        with pytest.raises(sqlite3.IntegrityError, match="immutable"):
            conn.execute(statement)
    refusing = {row[0] for row in conn.execute("SELECT tbl_name FROM sqlite_master WHERE name LIKE '%_no_replace'")}
    assert set(protected) <= refusing
    conn.execute("INSERT OR IGNORE INTO job_inputs (sha256, json) VALUES ('h', '{}')")  # the planner's: the same text
    assert [tuple(row) for row in conn.execute("SELECT rowid, json FROM job_inputs")] == [(1, "{}")]


def test_state_survives_reopen(tmp_path):
    conn = open_store(tmp_path / "state.db")
    _insert_a_job(conn)
    conn.close()
    again = open_store(tmp_path / "state.db")
    assert again.execute("SELECT COUNT(*) FROM processing_results").fetchone()[0] == 1
    assert again.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_newer_schema_is_refused(tmp_path):
    from pipeline.errors import UserError

    conn = open_store(tmp_path / "state.db")
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(UserError, match="newer"):
        open_store(tmp_path / "state.db")


def test_missing_database_is_a_clear_error(tmp_path):
    from pipeline.errors import UserError

    with pytest.raises(UserError, match="no state database"):
        open_store(tmp_path / "nope" / "state.db", create=False)


def test_forward_migration_from_v1_keeps_the_data(tmp_path):
    from pipeline.storage.schema import MIGRATIONS
    from pipeline.storage.store import _statements

    path = tmp_path / "state.db"
    raw = sqlite3.connect(path)
    for statement in _statements(MIGRATIONS[0]):
        raw.execute(statement)
    raw.execute("INSERT INTO captures (path, sha256, kind, size, captured_at) VALUES ('a.md', 'x', 'file', 0, 'now')")
    raw.execute("PRAGMA user_version = 1")
    raw.commit()
    raw.close()
    conn = open_store(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION >= 2
    assert conn.execute("SELECT path FROM captures").fetchone()[0] == "a.md"
    assert conn.execute("SELECT COUNT(*) FROM file_stats").fetchone()[0] == 0



def test_the_v14_migration_keeps_the_current_capture_of_each_path_from_the_history(tmp_path):
    open_store(tmp_path / "state.db").close()
    raw = sqlite3.connect(tmp_path / "state.db")  # back to v13: no current_captures, nor its trigger (nor v15-v18's)
    raw.execute("ALTER TABLE plan_read_sets RENAME TO plan_worlds")
    raw.execute("ALTER TABLE plan_worlds RENAME COLUMN read_set TO world")
    raw.execute("ALTER TABLE kept_memos RENAME COLUMN read_set TO world")
    for (trigger,) in raw.execute("SELECT name FROM sqlite_master WHERE name LIKE '%no_replace'").fetchall():
        raw.execute(f"DROP TRIGGER {trigger}")
    raw.execute("DROP TABLE pass_failures")
    raw.execute("DROP TABLE job_passes")  # v17 makes processing_results again (as it is: empty)
    raw.execute("DROP TABLE current_attachments")
    raw.execute("DROP TABLE attachment_captures")  # its triggers and index with it
    raw.execute("DROP TRIGGER capture_history_current")
    raw.execute("DROP TABLE current_captures")
    captures = [("a.md", "x", "file"), ("b.md", "y", "file"), ("a.md", "z", "file"), ("b.md", "y", "removal")]
    raw.executemany("INSERT INTO captures (path, sha256, kind, size, captured_at) VALUES (?, ?, ?, 0, 'now')", captures)
    history = [("a.md", 1), ("b.md", 2), ("a.md", 3), ("a.md", 1), ("b.md", 4)]  # a.md back to its first bytes
    raw.executemany("INSERT INTO capture_history (path, capture_id, observed_at) VALUES (?, ?, 'now')", history)
    raw.execute("PRAGMA user_version = 13")
    raw.commit()
    raw.close()
    conn = open_store(tmp_path / "state.db")
    rows = conn.execute("SELECT path, capture_id, sha256, kind FROM current_captures ORDER BY path").fetchall()
    assert [tuple(row) for row in rows] == [("a.md", 1, "x", "file"), ("b.md", 4, "y", "removal")]
    conn.execute("INSERT INTO capture_history (path, capture_id, observed_at) VALUES ('b.md', 2, 'later')")
    assert tuple(conn.execute("SELECT capture_id, kind FROM current_captures WHERE path = 'b.md'").fetchone()) == (2, "file")


def _v6_store_with(path, outputs: list[str]):
    """A store at schema v6 holding one result per output (job i + 1 for the i-th); migrations run when opened."""
    from pipeline.storage.schema import MIGRATIONS
    from pipeline.storage.store import _statements

    raw = sqlite3.connect(path)
    for script in MIGRATIONS[:6]:  # v7's digests need the function open_store registers: it migrates from here
        for statement in _statements(script):
            raw.execute(statement)
    raw.execute("INSERT INTO captures (path, sha256, kind, size, captured_at) VALUES ('a.md', 'x', 'file', 0, 'now')")
    for job, output in enumerate(outputs, start=1):
        raw.execute("""INSERT INTO processing_jobs (capture_id, pass_name, pass_version, input_fingerprint, max_attempts,
                       created_at) VALUES (1, 'p', 1, ?, 3, 0)""", (str(job),))  # fmt: skip
        raw.execute("""INSERT INTO processing_results (job_id, capture_id, pass_name, pass_version, contract_version,
                       input_fingerprint, output, created_at) VALUES (?, 1, 'p', 1, 1, ?, ?, 0)""", (job, str(job), output))  # fmt: skip
    raw.execute("PRAGMA user_version = 6")
    raw.commit()
    raw.close()


def test_the_v7_migration_digests_every_result_already_stored(tmp_path):
    from pipeline.storage.schema import SOME_DIAGNOSTIC
    from pipeline.storage.store import output_digest

    outputs = ['{"diagnostics":[]}', '{"x":"é","diagnostics":[{"code":"w"}]}']
    _v6_store_with(tmp_path / "state.db", outputs)
    conn = open_store(tmp_path / "state.db")
    rows = conn.execute("SELECT job_id, sha256, reports FROM result_digests ORDER BY job_id").fetchall()
    assert [tuple(row) for row in rows] == [
        (job, output_digest(output), int(SOME_DIAGNOSTIC in output)) for job, output in enumerate(outputs, start=1)
    ]


def test_the_v11_migration_keeps_apart_the_diagnostics_of_every_result_already_stored(tmp_path):
    outputs = [
        '{"diagnostics":[]}',  # reports none
        '{"x":"é","diagnostics":[{"code":"w","line":2}]}',  # reports one
        '{"x":{"diagnostics":[{"code":"n"}]},"diagnostics":[]}',  # the text nested: reports none
        '{"v":NaN,"diagnostics":[{"code":"old"}]}',  # an older version's JSON SQLite cannot read: left to the output
    ]
    _v6_store_with(tmp_path / "state.db", outputs)
    conn = open_store(tmp_path / "state.db")
    rows = conn.execute("SELECT job_id, diagnostics FROM result_diagnostics").fetchall()
    assert [(row[0], json.loads(row[1])) for row in rows] == [(2, [{"code": "w", "line": 2}])]


def test_the_v17_migration_makes_each_job_a_job_of_one_pass_whose_result_keeps_its_key(tmp_path):
    _v6_store_with(tmp_path / "state.db", ['{"a":1}', '{"b":2}'])
    raw = sqlite3.connect(tmp_path / "state.db")
    raw.execute("""INSERT INTO processing_jobs (capture_id, pass_name, pass_version, input_fingerprint, inputs, status,
                   max_attempts, created_at, last_error) VALUES (1, 'q', 2, 'f', '{"x":"h"}', 'failed', 3, 0, 'boom')""")
    raw.commit()
    raw.close()
    conn = open_store(tmp_path / "state.db")
    passes = [tuple(row) for row in conn.execute("SELECT id, job_id, pass_name, pass_version, inputs FROM job_passes")]
    assert passes == [(1, 1, "p", 1, "{}"), (2, 2, "p", 1, "{}"), (3, 3, "q", 2, '{"x":"h"}')]
    assert [tuple(row) for row in conn.execute("SELECT job_id, output FROM processing_results ORDER BY id")] == [
        (1, '{"a":1}'), (2, '{"b":2}')]  # fmt: skip
    assert conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1 and not conn.execute("PRAGMA foreign_key_check").fetchall()
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        conn.execute("DELETE FROM processing_results")
    from pipeline.commands.jobs import _pass_lines

    assert _pass_lines(conn, 3) == ["pass q v2 (f): no result - boom"]  # its error is its job's
    with pytest.raises(sqlite3.IntegrityError, match="FOREIGN KEY"):  # a result is a job pass's
        conn.execute("""INSERT INTO processing_results (job_id, capture_id, pass_name, pass_version, contract_version,
                        input_fingerprint, output, created_at) VALUES (99, 1, 'p', 1, 1, 'x', '{}', 0)""")


def test_a_migration_refuses_only_references_it_would_break(tmp_path):
    _v6_store_with(tmp_path / "state.db", ['{"a":1}'])
    raw = sqlite3.connect(tmp_path / "state.db")  # broken before: an attempt of a job that is not there
    raw.execute("INSERT INTO job_attempts (job_id, attempt, claim_token, started_at) VALUES (999, 1, 't', 0)")
    raw.commit()
    raw.close()
    conn = open_store(tmp_path / "state.db")
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert [row[0] for row in conn.execute("PRAGMA foreign_key_check")] == ["job_attempts"]


def test_a_migration_that_would_break_a_reference_changes_nothing(tmp_path, monkeypatch):
    from pipeline.errors import UserError
    from pipeline.storage import store

    open_store(tmp_path / "state.db").close()
    orphan = "INSERT INTO job_attempts (job_id, attempt, claim_token, started_at) VALUES (999, 1, 'x', 0);"
    monkeypatch.setattr(store, "MIGRATIONS", (*store.MIGRATIONS, orphan))
    monkeypatch.setattr(store, "SCHEMA_VERSION", SCHEMA_VERSION + 1)
    with pytest.raises(UserError, match="would break a reference of job_attempts"):
        open_store(tmp_path / "state.db")
    raw = sqlite3.connect(tmp_path / "state.db")
    assert raw.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    assert raw.execute("SELECT COUNT(*) FROM job_attempts").fetchone()[0] == 0


def test_the_v12_migration_packs_each_plan_memo_with_its_entries(tmp_path):
    from types import SimpleNamespace

    from pipeline.incremental.job_reuse import load_memo
    from pipeline.storage.store import output_digest

    _v6_store_with(tmp_path / "state.db", ['{"a":1}', '{"b":2}'])
    raw = sqlite3.connect(tmp_path / "state.db")
    raw.execute("INSERT INTO plan_worlds VALUES ('p', 1, 'read-set')")
    raw.executemany("INSERT INTO plan_memo VALUES ('p', 1, ?, ?, ?)", [(1, "own-1", 1), (7, "", 2), (9, "own-9", 3)])
    raw.commit()
    raw.close()
    conn = open_store(tmp_path / "state.db")
    results = {}
    memo = load_memo(conn, SimpleNamespace(name="p", version=1), "read-set", results=results)  # v18's table
    assert "read_set" in {row[1] for row in conn.execute("PRAGMA table_info(kept_memos)")}
    assert memo.entries() == [(1, "own-1", 1), (7, "", 2), (9, "own-9", 3)]
    # The digests of the results that exist (job 3 has none) are looked up, not lost.
    assert {job: sha for job, (sha, _) in results.items()} == {
        1: output_digest('{"a":1}'), 2: output_digest('{"b":2}')}  # fmt: skip


@pytest.mark.parametrize("content", [b"not a database\n", b"SQLite format 3\x00" + bytes(range(256)) * 16])
def test_a_file_that_is_not_a_state_database_is_one_error_naming_it(tmp_path, content):
    path = tmp_path / "state.db"
    path.write_bytes(content)
    with pytest.raises(UserError, match=f"^{re.escape(str(path))}: not a state database pipeline can read"):
        open_store(path)
    assert path.read_bytes() == content  # left as it was, for its owner to look at


def test_a_build_on_a_damaged_state_database_says_so_in_one_line(make_wiki, capsys):
    from pipeline.cli import main

    config = make_wiki({"a.md": "---\ntitle: A\n---\nBody.\n"})
    config.state_dir.mkdir(parents=True, exist_ok=True)
    config.state_db.write_bytes(b"garbage")
    argv = ["build", "--content", str(config.content_dir), "--state", str(config.state_dir), "--out",
            str(config.out_dir)]  # fmt: skip
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"pipeline: error: {config.state_db}: not a state database") and "Traceback" not in err
