"""Results as a build reads them: lazy fields read back whole, made again from recipes, handed on as references."""

from pipeline.runtime import jsonio
from pipeline.storage.results import StoredField, resolve_stored
from pipeline.storage import store
from pipeline.storage.store import open_store

TEMPLATE = "<p>a \x000\x00 b</p>\n<p>\x001\x00</p>"  # holes are NUL-marked: SQLite's json_extract stops at a NUL


def _job(conn, capture_id: int, name: str) -> None:
    """A job running one pass, `name`, on the capture: its job pass's id (a result's key) is the job's."""
    (job,) = conn.execute("""INSERT INTO processing_jobs (capture_id, pass_name, pass_version, input_fingerprint,
                             max_attempts, created_at) VALUES (?, ?, 1, 'y', 3, 0) RETURNING id""",
                          (capture_id, name)).fetchone()  # fmt: skip
    conn.execute("""INSERT INTO job_passes (id, job_id, capture_id, pass_name, pass_version, input_fingerprint, inputs)
                    VALUES (?, ?, ?, ?, 1, 'y', '{}')""", (job, job, capture_id, name))  # fmt: skip


def _store(tmp_path):
    """A store with three results: 1 holds its field in its output (before v5), 2 beside it, 3 a recipe on 2's."""
    db = tmp_path / "state.db"
    conn = open_store(db)
    conn.execute("INSERT INTO captures (path, sha256, kind, size, captured_at) VALUES ('a.md', 'x', 'file', 0, 'now')")
    for job in (1, 2, 3):
        _job(conn, 1, f"p{job}")
    outputs = {1: {"html": TEMPLATE, "n": 1}, 2: {"n": 2}, 3: {"n": 3}}
    for job, output in outputs.items():
        conn.execute(
            """INSERT INTO processing_results (job_id, capture_id, pass_name, pass_version, contract_version,
               input_fingerprint, output, created_at) VALUES (?, 1, ?, 1, 1, 'y', ?, 0)""",
            (job, f"p{job}", jsonio.dumps(output)),
        )
    recipe = {"$filled": [2, "html", 0, 14, ["<a>", "<b>"]]}
    conn.executemany(
        "INSERT INTO result_fields (job_id, field, value) VALUES (?, ?, ?)",
        [(2, "html", jsonio.dumps(TEMPLATE)), (2, "slots", "[1,2]"), (3, "html", jsonio.dumps(recipe))],
    )
    conn.commit()
    conn.close()
    return str(db)


def test_a_lazy_field_reads_back_whole_wherever_it_is_kept(tmp_path):
    db = _store(tmp_path)
    assert str(StoredField(db, 1, "html")) == TEMPLATE  # in the output (a result from before v5)
    assert str(StoredField(db, 2, "html")) == TEMPLATE  # beside it
    assert str(StoredField(db, 3, "html")) == "<p>a <a> b</p>"  # a recipe on job 2's text
    assert str(StoredField(db, 2, "n")) == "" and str(StoredField(db, 2, "slots")) == ""  # not texts


def test_a_job_input_names_a_field_and_the_worker_reads_it_back(tmp_path):
    db = _store(tmp_path)
    given = {"markup": {"html": StoredField(db, 2, "html"), "slots": StoredField(db, 2, "slots"), "n": 1}}
    encoded = jsonio.dumps(given, sort_keys=True)
    assert encoded == '{"markup":{"html":{"$stored":[2,"html"]},"n":1,"slots":{"$stored":[2,"slots"]}}}'
    read = resolve_stored(jsonio.loads(encoded), db)["markup"]
    assert read == {"html": TEMPLATE, "slots": [1, 2], "n": 1}
    assert read["html"].source == (2, "html")  # a text remembers where it is held


def _held(stored) -> int:
    """How many of its outputs a StoredOutputs holds (read, and not let go)."""
    return sum(job_id in stored.texts for job_id in stored.jobs.values())


def _outputs(tmp_path, outputs: list[dict]):
    """A StoredOutputs of one pass over `outputs` (capture and job i + 1 for the i-th), none read yet."""
    from pipeline.storage.results import StoredOutputs
    from pipeline.storage.schema import SOME_DIAGNOSTIC
    from pipeline.storage.store import output_digest

    db = tmp_path / "state.db"
    conn = open_store(db)
    stored = StoredOutputs(str(db))
    for ident, output in enumerate(map(jsonio.dumps, outputs), start=1):
        conn.execute("INSERT INTO captures (path, sha256, kind, size, captured_at) VALUES (?, 'x', 'file', 0, 'now')",
                     (f"{ident}.md",))  # fmt: skip
        _job(conn, ident, "w")
        conn.execute("""INSERT INTO processing_results (job_id, capture_id, pass_name, pass_version, contract_version,
                        input_fingerprint, output, created_at) VALUES (?, ?, 'w', 1, 1, 'y', ?, 0)""",
                     (ident, ident, output))  # fmt: skip
        stored.add(ident, ident, output_digest(output), SOME_DIAGNOSTIC in output)
    conn.commit()
    conn.close()
    return stored


def test_outputs_mentioning_a_text_are_found_in_the_store_and_only_they_are_read(tmp_path):
    outputs = [{"links": [{"embed": i % 20 == 3}], "diagnostics": []} for i in range(60)]
    stored = _outputs(tmp_path, outputs)
    stored[5]  # one read before: it is searched here, not in the store
    assert stored.mentioning('"embed":true') == [4, 24, 44]
    read = {capture_id for capture_id, job_id in stored.jobs.items() if job_id in stored.texts}
    assert read == {4, 5, 24, 44}
    assert stored.mentioning('"embed":false') == [i for i in range(1, 61) if i not in (4, 24, 44)]


def test_outputs_mentioning_a_text_are_found_without_reading_them_when_asked(tmp_path):
    stored = _outputs(tmp_path, [{"links": [{"embed": i % 20 == 3}], "diagnostics": []} for i in range(60)])
    assert stored.mentioning('"embed":true', read=False) == [4, 24, 44]
    assert stored.texts == {}
    assert stored[24] == {"links": [{"embed": True}], "diagnostics": []}  # read when used


def test_outputs_that_may_report_are_read_in_chunks_and_only_those_read_before_are_kept(tmp_path, monkeypatch):
    from pipeline.storage import results

    monkeypatch.setattr(results, "REPORTS_READ_AT_ONCE", 16)
    outputs = [{"diagnostics": [{"code": "x"}] if i % 2 else []} for i in range(100)]
    stored = _outputs(tmp_path, outputs)
    stored[8]  # read before: reported from what is held (marked here to tell it from the store's)
    stored.texts[8] = stored.texts[8].replace('"x"', '"held"')
    reported = dict(stored.diagnostics())
    assert sorted(reported) == list(range(2, 101, 2)) and reported[100] == [{"code": "x"}]
    assert reported[8] == [{"code": "held"}]
    assert set(stored.texts) == {8}  # no other kept


def test_what_a_search_found_is_kept_and_the_next_search_of_those_outputs_reads_none(tmp_path):
    from pipeline.storage.results import StoredOutputs, keep_mentions
    from pipeline.storage.store import reader

    first = _outputs(tmp_path, [{"links": [{"embed": i % 20 == 3}]} for i in range(60)])
    assert first.mentioning('"embed":true') == [4, 24, 44] and len(first.learned) == 60
    conn = open_store(tmp_path / "state.db")
    keep_mentions(conn, [first, {}])  # plain results (tests) learn nothing
    conn.close()
    again = StoredOutputs(first.db, jobs=dict(first.jobs), facts=dict(first.facts))
    searches = []
    reader(first.db).set_trace_callback(lambda sql: searches.append(sql) if "instr" in sql else None)
    try:
        assert again.mentioning('"embed":true') == [4, 24, 44] and again.mentioning('"embed":false')
    finally:
        reader(first.db).set_trace_callback(None)
    [search] = searches  # none for the text looked for before; one for the other, of the outputs not read yet
    assert '"embed":false' in search
    assert _held(again) == 60
    assert again.learned and {text for text, _, _ in again.learned} == {'"embed":false'}


def test_released_outputs_are_read_again_and_a_page_read_holds_none(tmp_path):
    outputs = [{"n": i, "diagnostics": []} for i in range(40)]
    stored = _outputs(tmp_path, outputs)
    assert [stored[i]["n"] for i in range(1, 41)] == list(range(40))  # past ONE_BY_ONE: all are read and held
    assert _held(stored) == 40
    stored.release()
    assert _held(stored) == 0 and not stored.texts
    assert stored[7]["n"] == 6 and 7 in stored.texts  # read again from the store
    assert stored.read_once(9) == {"n": 8, "diagnostics": []} and 9 not in stored.texts
    assert stored.read_once(7)["n"] == 6  # one held is decoded from what is held


def test_outputs_read_each_in_turn_come_a_batch_at_a_time_and_are_not_held(tmp_path, monkeypatch):
    from pipeline.storage import results

    monkeypatch.setattr(results, "OUTPUTS_READ_AT_ONCE", 3)
    stored = _outputs(tmp_path, [{"n": i, "diagnostics": []} for i in range(10)])
    stored[4]  # read before: decoded from what is held (marked here to tell it from the store's)
    stored.texts[4] = stored.texts[4].replace('"n":3', '"n":"held"')
    asked = [9, 2, 4, 7, 1, 10, 3]
    statements = []
    monkeypatch.setattr(results, "rows_for_ids", lambda conn, sql, ids, *rest: statements.append(ids) or
                        store.rows_for_ids(conn, sql, ids, *rest))  # fmt: skip
    assert [output["n"] for output in stored.read_each(asked)] == [8, 1, "held", 6, 0, 9, 2]
    assert statements == [[9, 2], [7, 1, 10], [3]] and set(stored.texts) == {4}  # three at a time; none kept


def test_a_field_left_in_the_store_stays_there_when_an_output_is_read_once(tmp_path):
    from pipeline.storage.results import StoredOutputs

    db = _store(tmp_path)
    lazy = StoredOutputs(db, ("html",))
    lazy.add(1, 2, "digest", False)
    read = lazy.read_once(1)
    assert read["n"] == 2 and str(read["html"]) == TEMPLATE and not lazy.texts
