"""Capture: idempotent, immutable, never writes content, survives bad files."""

import json

import pytest

from conftest import folder_hashes
from pipeline.jobs.rounds import plan_captures
from pipeline.passes.registry import passes_for
from pipeline.config import Config
from pipeline.content import capture
from pipeline.content.capture import capture_content, current_capture_ids, load_articles
from pipeline.content.scan import list_sources
from pipeline.passes.registry import rounds
from pipeline.storage.store import open_store, rows_for_ids

GOOD = "---\ntitle: Alpha\n---\nBody of alpha.\n"


def _capture(config):
    conn = open_store(config.state_db)
    return conn, capture_content(conn, config)


def test_one_capture_creates_one_pending_job_that_runs_each_pass_of_the_first_round(make_wiki):
    config = make_wiki({"a.md": GOOD})
    conn, report = _capture(config)
    planned = plan_captures(conn, config, passes_for(config))
    first_round = rounds(passes_for(config))[0]
    (job,) = conn.execute("SELECT id, pass_name, status FROM processing_jobs").fetchall()
    passes = conn.execute("SELECT pass_name, job_id FROM job_passes ORDER BY id").fetchall()
    assert planned == 1 and job["status"] == "pending"
    assert [p["pass_name"] for p in passes] == [s.name for s in first_round] == job["pass_name"].split(",")
    assert {p["job_id"] for p in passes} == {job["id"]}


def test_capturing_the_same_bytes_again_changes_nothing(make_wiki):
    config = make_wiki({"a.md": GOOD, "b.md": GOOD})
    conn, first = _capture(config)
    plan_captures(conn, config, passes_for(config))
    counts = [conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("captures", "processing_jobs")]
    second = capture_content(conn, config)
    assert plan_captures(conn, config, passes_for(config)) == 0
    assert len(first.new) == 2 and second.new == [] and second.unchanged == 2
    assert [conn.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("captures", "processing_jobs")] == counts


def test_capture_records_fields(make_wiki):
    config = make_wiki({"guide.es.md": "---\ntitle: Guía\nslug: guia\ntags: [a]\ndate: 2024-01-02\n---\n\nHola\n"})
    conn, _ = _capture(config)
    row = conn.execute("SELECT * FROM captures").fetchone()
    assert row["path"] == "guide.es.md" and row["lang"] == "es" and row["slug"] == "guia"
    assert json.loads(row["frontmatter"]) == {"title": "Guía", "slug": "guia", "tags": ["a"], "date": "2024-01-02"}
    assert row["body_line"] == 7 and load_articles(conn, [row["id"]])[0].body == "\nHola\n"
    assert row["raw"] == (config.content_dir / "guide.es.md").read_bytes()
    assert row["captured_at"] and row["kind"] == "file"


def test_articles_without_their_text_are_read_from_the_covering_index_alone(make_wiki):
    config = make_wiki({"a.md": "---\ntitle: Alpha\ncategories: [X]\n---\n" + "Body. " * 2000})
    conn, _ = _capture(config)
    queries = []
    conn.set_trace_callback(queries.append)
    [article] = load_articles(conn, current_capture_ids(conn), text=False)
    conn.set_trace_callback(None)
    [query] = [q for q in queries if "FROM captures" in q]
    plan = " ".join(row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {query}"))
    assert "COVERING INDEX captures_fields" in plan  # not the table, whose rows hold the bytes
    assert article.frontmatter == {"title": "Alpha", "categories": ["X"]} and article.body_line == 5
    assert article.body.startswith("Body. Body.")


def test_articles_given_as_known_are_not_read_again(make_wiki, monkeypatch):
    config = make_wiki({f"{name}.md": f"---\ntitle: {name}\n---\nBody.\n" for name in "abcde"})
    conn, _ = _capture(config)
    (config.content_dir / "e.md").unlink()
    capture_content(conn, config)  # a removal: e is no longer current
    ids = current_capture_ids(conn)
    read = {article.capture_id: article for article in load_articles(conn, ids[:2], text=False)}
    queried = []
    counted = lambda conn, sql, ids: queried.extend(ids) or rows_for_ids(conn, sql, ids)  # noqa: E731
    monkeypatch.setattr(capture, "rows_for_ids", counted)
    known = dict(read)
    found = load_articles(conn, ids, text=False, known=known)
    assert [article.path for article in found] == ["a.md", "b.md", "c.md", "d.md"]
    assert found[:2] == [read[i] for i in ids[:2]]
    assert sorted(queried) == sorted(ids[2:])  # only those not known were read
    assert set(known) == set(ids)  # and the known ones are given what was read


def test_language_from_frontmatter_then_suffix_then_default(make_wiki):
    config = make_wiki({"a.md": "---\nlanguage: fr\n---\n", "b.pt-BR.md": "x", "c.md": "x", "notes.old.md": "x"})
    conn, _ = _capture(config)
    langs = {r["path"]: (r["lang"], r["slug"]) for r in conn.execute("SELECT path, lang, slug FROM captures")}
    assert langs == {"a.md": ("fr", "a"), "b.pt-BR.md": ("pt-BR", "b"), "c.md": ("en", "c"),
                     "notes.old.md": ("en", "notes.old")}  # fmt: skip


def test_bad_files_are_captured_with_their_error(make_wiki):
    files = {
        "latin1.md": "---\ntitle: Caf\xe9\n---\n".encode("latin-1"),
        "binary.md": b"\x00\x01\x02PNG",
        "empty.md": "",
        "plain.md": "# Just text\n",
        "broken.md": "---\ntitle: ok\nbad: [unclosed\n---\nbody\n",
        "list.md": "---\n- a\n- b\n---\nbody\n",
        "unclosed.md": "---\ntitle: x\n",
        "big.md": "---\ntitle: Big\n---\n" + ("word " * 2_000_000),
    }
    config = make_wiki(files)
    conn, report = _capture(config)
    rows = {r["path"]: r for r in conn.execute("SELECT * FROM captures")}
    assert len(rows) == len(files) and report.files == len(files)
    assert rows["latin1.md"]["decode_error"].startswith("not UTF-8") and rows["latin1.md"]["raw"] == files["latin1.md"]
    assert "binary" in rows["binary.md"]["decode_error"]
    assert rows["empty.md"]["raw"] == b"" and rows["empty.md"]["frontmatter"] is None
    texts = {a.path: a.text for a in load_articles(conn, current_capture_ids(conn))}  # decoded from the bytes
    assert texts["latin1.md"] is None and texts["binary.md"] is None and texts["empty.md"] == ""
    assert texts["plain.md"] == "# Just text\n" and all(row["text"] is None for row in rows.values())
    assert rows["plain.md"]["frontmatter"] is None and rows["plain.md"]["frontmatter_error"] is None
    assert "YAML" in rows["broken.md"]["frontmatter_error"] and rows["broken.md"]["frontmatter_error_line"] == 3
    assert "mapping" in rows["list.md"]["frontmatter_error"]
    assert "not closed" in rows["unclosed.md"]["frontmatter_error"]
    assert rows["big.md"]["size"] > 10_000_000 and json.loads(rows["big.md"]["frontmatter"]) == {"title": "Big"}
    problem_paths = {path for path, _, _ in report.problems}
    assert problem_paths == {"latin1.md", "binary.md", "broken.md", "list.md", "unclosed.md"}


def test_removal_is_recorded_and_nothing_deleted(make_wiki):
    config = make_wiki({"a.md": GOOD, "b.md": GOOD})
    conn, _ = _capture(config)
    (config.content_dir / "b.md").unlink()
    report = capture_content(conn, config)
    assert report.removed == ["b.md"]
    kinds = conn.execute("SELECT path, kind FROM captures ORDER BY id").fetchall()
    assert [(r["path"], r["kind"]) for r in kinds] == [("a.md", "file"), ("b.md", "file"), ("b.md", "removal")]
    paths = conn.execute(f"SELECT path FROM captures WHERE id IN ({','.join(map(str, current_capture_ids(conn)))})")
    assert [r["path"] for r in paths] == ["a.md"]
    assert capture_content(conn, config).removed == []  # a removal is recorded once


def test_old_bytes_reuse_their_capture(make_wiki):
    config = make_wiki({"a.md": GOOD})
    conn, first = _capture(config)
    (config.content_dir / "a.md").write_text(GOOD + "more\n")
    second = capture_content(conn, config)
    (config.content_dir / "a.md").write_text(GOOD)
    third = capture_content(conn, config)
    assert third.new == first.new and second.new != first.new
    assert conn.execute("SELECT COUNT(*) FROM captures").fetchone()[0] == 2
    assert conn.execute("SELECT COUNT(*) FROM capture_history").fetchone()[0] == 3
    assert current_capture_ids(conn) == first.new


def test_capture_never_writes_the_content_folder(make_wiki):
    config = make_wiki({"a.md": GOOD, "sub/b.es.md": "---\n: bad\n---\n"})
    before = folder_hashes(config.content_dir)
    _capture(config)
    assert folder_hashes(config.content_dir) == before


def test_capture_the_real_wiki(pointsav, tmp_path):
    config = Config(content_dir=pointsav, state_dir=tmp_path / "state")
    before = folder_hashes(pointsav)
    conn, report = _capture(config)
    expected = list_sources(config).paths
    assert report.files == len(expected) > 500
    stored = {r["path"] for r in conn.execute("SELECT path FROM captures WHERE kind = 'file'")}
    assert stored == set(expected)
    broken = conn.execute("SELECT COUNT(*) FROM captures WHERE frontmatter_error IS NOT NULL").fetchone()[0]
    assert broken == len([p for p in report.problems]) > 0
    assert folder_hashes(pointsav) == before


def test_unchanged_files_are_not_read_again(make_wiki, monkeypatch):
    import os
    from pathlib import Path

    config = make_wiki({"a.md": GOOD, "b.md": GOOD})
    old = 1_000_000_000  # long before anything was hashed: the stat cache may vouch for these
    for name in ("a.md", "b.md"):
        os.utime(config.content_dir / name, (old, old))
    conn, _ = _capture(config)
    import pipeline.content.capture as capture_module

    reads = []
    read = capture_module.read_regular
    recorded = lambda path, root: reads.append(Path(path).name) or read(path, root)  # noqa: E731
    monkeypatch.setattr(capture_module, "read_regular", recorded)
    assert capture_content(conn, config).unchanged == 2 and reads == []
    (config.content_dir / "b.md").write_text(GOOD.replace("Alpha", "Beta"))  # a new mtime
    report = capture_content(conn, config)
    assert reads == ["b.md"] and len(report.new) == 1


def test_a_file_changed_within_the_racy_window_is_hashed_again(make_wiki):
    import os

    config = make_wiki({"a.md": GOOD})
    stamp = os.stat(config.content_dir / "a.md").st_mtime_ns  # written just now
    conn, _ = _capture(config)
    (config.content_dir / "a.md").write_text(GOOD.replace("Alpha", "Omega"))  # same size
    os.utime(config.content_dir / "a.md", ns=(stamp, stamp))  # and the same mtime
    assert len(capture_content(conn, config).new) == 1


def test_the_report_names_the_current_captures_as_the_store_does(make_wiki):
    config = make_wiki({"a.md": GOOD, "b.md": GOOD, "c.md": GOOD, "Zeta.md": GOOD, "é.md": GOOD, "a/z.md": GOOD})
    conn, first = _capture(config)
    assert first.current == current_capture_ids(conn) and len(first.current) == 6  # by path, as Python sorts them
    for name in ("Zeta.md", "é.md", "a/z.md"):
        (config.content_dir / name).unlink()
    (config.content_dir / "b.md").unlink()
    (config.content_dir / "c.md").write_text(GOOD + "edited\n")
    (config.content_dir / "d.md").write_text(GOOD)
    second = capture_content(conn, config)  # a removal, an edit, an addition and an unchanged file at once
    assert second.current == current_capture_ids(conn) and len(second.current) == 3
    assert capture_content(conn, config).current == second.current
    # The current captures the trigger keeps (schema v14) are the newest history row of each path.
    newest = conn.execute("""SELECT h.path, h.capture_id FROM capture_history h
                             WHERE h.id IN (SELECT MAX(id) FROM capture_history GROUP BY path) ORDER BY h.path""")
    kept = conn.execute("SELECT path, capture_id FROM current_captures ORDER BY path")
    assert [tuple(row) for row in kept] == [tuple(row) for row in newest] and len(second.removed) == 4


def test_an_article_loaded_without_its_text_reads_it_from_the_store(make_wiki, tmp_path):
    import pickle
    from dataclasses import fields

    config = make_wiki({"a.md": "---\ntitle: Alpha\n---\nBody of alpha.\n", "bad.md": b"\xff\xfe oops"})
    conn, report = _capture(config)
    full = load_articles(conn, report.current)
    lean = load_articles(conn, report.current, text=False)
    assert "text" not in vars(lean[0]) and "body" not in vars(lean[0])  # nothing held
    for stored, article in zip(lean, full):
        assert [getattr(stored, f.name) for f in fields(article)] == [getattr(article, f.name) for f in fields(article)]
        assert stored.body == article.body and pickle.loads(pickle.dumps(stored)).text == article.text
    assert lean[0].body == "Body of alpha.\n" and "body" not in vars(lean[0])  # derived, not cached
    assert lean[1].text is None and lean[1].decode_error  # undecodable: None, as for an Article


def test_a_stored_frontmatter_is_decoded_when_read_and_not_to_find_a_key_it_does_not_hold(make_wiki):
    from pipeline.passes.base import frontmatter_field

    config = make_wiki({"a.md": "---\ntitle: Alpha\npaired_with: b.md\n---\nA.\n", "b.md": "---\ntitle: Beta\n---\nB.\n",
                        "c.md": "No frontmatter.\n", 'd.md': '---\ntitle: D\n"odd \\" key": x\n---\nD.\n'})  # fmt: skip
    conn, report = _capture(config)
    a, b, c, d = load_articles(conn, report.current, text=False)
    assert all("frontmatter" not in vars(article) for article in (a, b, c, d))  # held as JSON until read
    assert frontmatter_field(b, "paired_with") is None and "frontmatter" not in vars(b)  # its JSON has no such key
    assert frontmatter_field(a, "paired_with") == "b.md" and vars(a)["frontmatter"]["title"] == "Alpha"
    assert frontmatter_field(c, "paired_with") is None and c.frontmatter is None
    assert frontmatter_field(d, 'odd " key') == "x"  # a key JSON escapes: decoded to be sure
    full = load_articles(conn, report.current)
    assert [frontmatter_field(article, "paired_with") for article in full] == ["b.md", None, None, None]


def test_files_parsed_by_several_processes_are_captured_as_by_one(make_wiki, tmp_path, monkeypatch):
    """Chunks of new files are parsed in forked processes: same captures, same problems, in path order."""
    files = {f"p{n:02}.md": GOOD.replace("Alpha", f"Page {n}") if n % 3 else "---\ntitle: [unclosed\n---\nx\n"
             for n in range(23)}  # fmt: skip
    files["binary.md"] = b"\x00\x01"
    config = make_wiki(files)
    monkeypatch.setattr("pipeline.content.capture.PARSE_CHUNK", 5)
    monkeypatch.setattr("pipeline.content.capture.MIN_FILES_PER_PROCESS", 2)
    seen = []
    for workers in (1, 2):
        state = Config(content_dir=config.content_dir, state_dir=tmp_path / f"state{workers}", out_dir=tmp_path / "o")
        conn = open_store(state.state_db)
        report = capture_content(conn, state, now="2026-01-01T00:00:00+00:00", workers=workers)
        rows = conn.execute(
            "SELECT path, sha256, text, frontmatter, frontmatter_error, frontmatter_error_line, body_line, lang, slug,"
            " decode_error FROM captures ORDER BY path"
        ).fetchall()
        seen.append(([tuple(row) for row in rows], report.problems, len(report.new)))
        conn.close()
    assert seen[0] == seen[1] and seen[0][2] == 24
    assert [path for path, _, _ in seen[0][1]] == sorted(path for path, _, _ in seen[0][1])
    assert len(seen[0][1]) == 9  # eight broken frontmatters and one binary file


def test_a_capture_that_fails_mid_way_stores_nothing_and_leaves_no_parse_running(make_wiki, monkeypatch):
    import os

    import pipeline.content.capture as capture_module

    config = make_wiki({f"p{n:02}.md": GOOD.replace("Alpha", f"Page {n}") for n in range(23)})
    monkeypatch.setattr(capture_module, "PARSE_CHUNK", 5)
    monkeypatch.setattr(capture_module, "MIN_FILES_PER_PROCESS", 2)
    inserted = []
    real = capture_module._file_capture

    def fails_at_the_seventh(*args):
        if len(inserted) == 6:  # the second chunk's, while the third is parsed elsewhere
            raise OSError("disk full")
        inserted.append(args[1])
        return real(*args)

    monkeypatch.setattr(capture_module, "_file_capture", fails_at_the_seventh)
    conn = open_store(config.state_db)
    with pytest.raises(OSError, match="disk full"):
        capture_content(conn, config, workers=2)
    with pytest.raises(ChildProcessError):  # no parse left running, nor unreaped
        os.waitpid(-1, os.WNOHANG)
    assert conn.execute("SELECT COUNT(*) FROM captures").fetchone()[0] == 0 and len(inserted) == 6


def test_a_state_database_made_anew_is_read_anew(make_wiki):
    """`serve` lives across builds: after `.pipeline/` is deleted, lazy texts must come from the new database."""
    import shutil

    config = make_wiki({"a.md": "---\ntitle: Alpha\n---\nOld body.\n"})
    conn, report = _capture(config)
    assert load_articles(conn, report.current, text=False)[0].body == "Old body.\n"
    conn.close()
    shutil.rmtree(config.state_dir)
    (config.content_dir / "a.md").write_text("---\ntitle: Alpha\n---\nNew body.\n")
    conn, report = _capture(config)
    assert load_articles(conn, report.current, text=False)[0].body == "New body.\n"
