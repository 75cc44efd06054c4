"""Writing a round's plan: inputs stored for new job passes only, job passes found by their identity alone, new ones
known by the ids the store gave them."""

import pytest

from pipeline.build import build
from pipeline.jobs import job_rows
from pipeline.storage.store import open_store, write

FILES = {f"a{i:02}.md": f"---\ntitle: Article {i}\n---\nSee [[a{(i + 1) % 12:02}]].\n" for i in range(12)}
CAPTURE = "INSERT INTO captures (path, sha256, kind, size, captured_at) VALUES (?, ?, 'file', 0, 'now')"


def test_only_the_inputs_of_job_passes_that_do_not_exist_are_stored(tmp_path):
    conn = open_store(tmp_path / "state.db")
    with write(conn):
        conn.execute(CAPTURE, ("a.md", "x"))
        conn.execute("INSERT INTO processing_jobs (id, capture_id, pass_name, pass_version, input_fingerprint, "
                     "max_attempts, created_at) VALUES (7, 1, 'p', 1, 'f', 3, 0)")  # fmt: skip
        conn.execute("INSERT INTO job_passes (id, job_id, capture_id, pass_name, pass_version, input_fingerprint, "
                     "inputs) VALUES (7, 7, 1, 'p', 1, 'old', '{\"a\":\"sha-old\"}')")  # fmt: skip
        rows = [(1, "p", 1, "old", '{"a":"sha-old"}'), (1, "p", 1, "new", '{"a":"sha-new","b":"sha-both"}')]
        blobs = {"sha-old": b'"old"', "sha-new": "\"n\u00e9w\"".encode(), "sha-both": b"[1]"}
        existing = job_rows.store_inputs(conn, rows, blobs)
    stored = dict(conn.execute("SELECT sha256, json FROM job_inputs"))
    conn.close()
    assert existing == {(1, "p", 1, "old"): 7}
    assert stored == {"sha-new": '"n\u00e9w"', "sha-both": "[1]"}  # stored as text, decoded from UTF-8


def test_existing_job_passes_are_found_by_their_identity_and_no_others_are_read(make_wiki):
    """A replan asks for the job passes it needs; reading every one of each pass grew with every change ever made."""
    config = make_wiki(FILES, search=False)
    build(config, workers=1)
    conn = open_store(config.state_db)
    try:
        jobs = [tuple(row) for row in conn.execute(
            "SELECT capture_id, pass_name, pass_version, input_fingerprint, id FROM job_passes ORDER BY id")]
        asked = [job[:4] for job in jobs[::7]] + [(jobs[0][0], jobs[0][1], jobs[0][2], "not-a-fingerprint")]
        with write(conn):
            found = job_rows.existing_passes(conn, asked)
    finally:
        conn.close()
    assert len(jobs) > 2 * len(found) > 0
    assert found == {job[:4]: job[4] for job in jobs[::7]}


@pytest.mark.parametrize("largest", [None, 2**63 - 1])
def test_new_jobs_are_known_by_the_ids_the_store_gave_them(tmp_path, largest):
    """Counted on from the largest id before (SQLite's usual ids), else, when the largest id is taken and
    SQLite picks others, asked for row by row. A capture's new passes make one job."""
    conn = open_store(tmp_path / "state.db")
    with write(conn):
        conn.execute(CAPTURE, ("a.md", "x"))
        conn.execute(CAPTURE, ("b.md", "y"))
        if largest is not None:
            conn.execute("INSERT INTO processing_jobs (id, capture_id, pass_name, pass_version, input_fingerprint, "
                         "max_attempts, created_at) VALUES (?, 1, 'old', 1, 'f', 3, 0)", (largest,))  # fmt: skip
            conn.execute("INSERT INTO job_passes (id, job_id, capture_id, pass_name, pass_version, input_fingerprint, "
                         "inputs) VALUES (?, ?, 1, 'old', 1, 'f', '{}')", (largest, largest))  # fmt: skip
        rows = [(capture, name, 1, f"fp-{name}", "{}") for capture, name in ((1, "p"), (1, "q"), (2, "p"), (1, "r"))]
        existing = {}
        missing = job_rows.insert_jobs(conn, rows, existing, 3, 0.0)
    stored = {tuple(row[:4]): row[4] for row in conn.execute(
        "SELECT capture_id, pass_name, pass_version, input_fingerprint, id FROM job_passes WHERE pass_name != 'old'")}
    jobs: dict[tuple, list] = {}
    for capture, names, name in conn.execute("SELECT j.capture_id, j.pass_name, p.pass_name FROM processing_jobs j "
                                             "JOIN job_passes p ON p.job_id = j.id WHERE j.pass_name != 'old'"):
        jobs.setdefault((capture, names), []).append(name)
    conn.close()
    assert existing == stored and len(stored) == len(missing) == 4
    assert {job: sorted(names) for job, names in jobs.items()} == {(1, "p,q,r"): ["p", "q", "r"], (2, "p"): ["p"]}
