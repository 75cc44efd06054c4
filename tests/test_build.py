"""The build script: what it leaves behind in the process that ran it."""

import dataclasses
import gc
import json
import os
import shutil

from conftest import folder_hashes
from pipeline import build as build_module
from pipeline import site
from pipeline.build import build
from pipeline.incremental.build_cache import BuildCache
from pipeline.jobs import plan
from pipeline.storage.store import open_store


def test_a_build_runs_with_the_cyclic_collector_off_and_leaves_it_as_it_found_it(make_wiki):
    config = make_wiki({"a.md": "---\ntitle: A\n---\nSee [[b]].\n", "b.md": "---\ntitle: B\n---\nText.\n"}, search=False)
    during = []
    report = build(config, workers=1, site=True, written=lambda: during.append(gc.isenabled()))
    assert report.site.pages and during == [False]  # rendering ran, with the collector off
    assert gc.isenabled()
    gc.disable()
    try:
        build(config, workers=1, site=True, reuse=False)
        assert not gc.isenabled()  # a caller that had turned it off gets it back off
    finally:
        gc.enable()


WIKI = {
    "a.md": "---\ntitle: Alpha\npaired_with: a.es.md\n---\nSee [[b]] and Gamma.\n",
    "a.es.md": "---\ntitle: Alfa\npaired_with: a.md\n---\nVer [[b]].\n",
    "b.md": "---\ntitle: Beta\n---\nBack to [[a]], on to [[missing]].\n",
    "c.md": "---\ntitle: Gamma\n---\n## Part\n\nText.\n",
}


def test_on_two_workers_the_diagnostics_are_listed_beside_the_render_as_on_one(make_wiki):
    config = make_wiki(WIKI, search=False)
    here = build(config, workers=1, site=True).process.diagnostics  # listed in this process
    helper_worker = build(config, workers=2, site=True, reuse=False).process  # in the standby process
    assert {d.severity for d in here} == {"warning", "info"} and helper_worker.diagnostics == here
    assert helper_worker.unlisted_info == 0
    without_info = [d for d in here if d.severity != "info"]
    for reuse in (False, True):  # built again, then skipped: the diagnostics the standby kept are read back
        quiet = build(config, workers=2, site=True, reuse=reuse, info=False).process
        assert quiet.skipped == reuse and quiet.diagnostics == without_info
        assert quiet.unlisted_info == len(here) - len(without_info)


def test_on_two_workers_a_missing_content_folder_is_an_error_message_not_a_crash(tmp_path):
    import pytest

    from pipeline.config import Config
    from pipeline.errors import UserError

    config = Config(content_dir=tmp_path / "gone", state_dir=tmp_path / "state", out_dir=tmp_path / "site")
    with pytest.raises(UserError, match="gone: content folder not found"):  # the standby's scan, made again here
        build(config, workers=2, site=True)


def test_on_two_workers_a_cold_builds_memos_are_packed_with_their_results_digests(make_wiki, monkeypatch):
    from pipeline.incremental import job_reuse

    config = make_wiki(WIKI, search=False)
    monkeypatch.setattr(job_reuse, "PACK_FOUND", 0)  # every pass that made a job (a 10k cold build: 13,000)
    build(config, workers=2, site=True)
    conn = open_store(config.state_db)
    parts = [json.loads(entries) for (entries,) in conn.execute("SELECT entries FROM plan_memo")]
    conn.close()
    assert parts and all(None not in shas for _, _, _, shas, _ in parts)  # the standby packed them, digests and all
    looked_up = []
    lookup = job_reuse.result_digests
    monkeypatch.setattr(job_reuse, "result_digests", lambda conn, jobs: looked_up.extend(jobs) or lookup(conn, jobs))
    (config.content_dir / "c.md").write_text("---\ntitle: Gamma\n---\n## Part\n\nMore text.\n")
    build(config, workers=1, site=True)
    assert looked_up == []  # the next build's memos needed no digest looked up


def _outputs(report):
    paths = {a.capture_id: a.path for a in report.process.wiki.articles}
    results = report.process.wiki.results
    return {(paths[c], name): output for name, by_id in results.items() for c, output in by_id.items()}


def test_a_build_with_a_build_cache_reads_only_what_it_has_not_seen_and_builds_the_same(make_wiki, monkeypatch):
    config = make_wiki(WIKI, search=False)
    build_cache = BuildCache()
    first = build(config, workers=1, site=True, build_cache=build_cache)
    jobs = job_pass_ids(config)
    (config.content_dir / "c.md").write_text("---\ntitle: Gamma\n---\n## Part\n\nMore text.\n")
    read = []
    rows = plan.result_digests
    monkeypatch.setattr(plan, "result_digests", lambda conn, ids: read.extend(ids) or rows(conn, ids))
    second = build(config, workers=1, site=True, build_cache=build_cache)
    assert read and set(read) == job_pass_ids(config) - jobs  # only the results of the passes the edit ran
    kept = {a.path: a for a in first.process.wiki.articles}
    articles = second.process.wiki.articles
    assert [a is kept[a.path] for a in articles] == [a.path != "c.md" for a in articles]  # the edited one is read
    before = folder_hashes(config.out_dir)
    again = build(config, workers=1, site=True, reuse=False)  # the same build, reading everything
    assert _outputs(again) == _outputs(second) and again.process.diagnostics == second.process.diagnostics
    assert folder_hashes(config.out_dir) == before


def test_a_build_cache_gives_the_page_summaries_it_kept_and_writes_them_back_when_the_file_is_gone(make_wiki, monkeypatch):
    from pipeline.site import PAGE_SUMMARIES, publish

    config = make_wiki(WIKI, search=False)
    build_cache = BuildCache()
    build(config, workers=1, site=True, build_cache=build_cache)
    assert len(build_cache.summaries) == 4
    loads = []
    load = publish.load_summaries
    monkeypatch.setattr(publish, "load_summaries", lambda path: loads.append(path) or load(path))
    (config.state_dir / PAGE_SUMMARIES).unlink()
    (config.content_dir / "b.md").write_text("---\ntitle: Beta\n---\nBack to [[c]].\n")
    build(config, workers=1, site=True, build_cache=build_cache)
    assert loads == [] and len(build_cache.summaries) == 4  # b's page summary made anew, the others from memory
    assert load(config.state_dir / PAGE_SUMMARIES).known == build_cache.summaries


def job_pass_ids(config) -> set[int]:
    conn = open_store(config.state_db)
    ids = {row[0] for row in conn.execute("SELECT id FROM job_passes")}  # the keys of their results
    conn.close()
    return ids


def test_a_build_cache_forgets_a_store_made_anew(make_wiki):
    config = make_wiki(WIKI, search=False)
    build_cache = BuildCache()
    build(config, workers=1, site=True, build_cache=build_cache)
    shutil.rmtree(config.state_dir)  # the next store numbers its captures and jobs from 1 again
    (config.content_dir / "a.es.md").unlink()
    (config.content_dir / "a.md").write_text("---\ntitle: Alpha\n---\nNow alone.\n")
    cached = build(config, workers=1, site=True, build_cache=build_cache)
    shutil.rmtree(config.state_dir)
    assert _outputs(build(config, workers=1, site=True)) == _outputs(cached)


def test_an_edit_build_reads_only_the_outputs_it_uses(make_wiki, monkeypatch):
    from pipeline.storage.results import StoredOutputs

    pages = {f"p{i}.md": f"---\ntitle: Page {i}\n---\n## Part\n\nSee [[p{(i + 1) % 6}]].\n" for i in range(6)}
    config = make_wiki(pages, search=False)
    build(config, workers=1, site=True)
    read = []
    take = StoredOutputs._read
    monkeypatch.setattr(StoredOutputs, "_read", lambda self, jobs: read.extend(
        job for job in jobs if job not in self.texts) or take(self, jobs))  # fmt: skip
    (config.content_dir / "p3.md").write_text("---\ntitle: Page 3\n---\n## Part\n\nSee [[p4]], once more.\n")
    report = build(config, workers=1, site=True)
    assert report.site.written and not report.process.diagnostics
    conn = open_store(config.state_db)
    names = [conn.execute("SELECT pass_name FROM job_passes WHERE id = ?", (job,)).fetchone()[0] for job in set(read)]
    conn.close()
    counts = {name: names.count(name) for name in set(names)}
    # What every page shows of the others (titles, links, pairs) is in the page summaries the last build kept, and a
    # body is read for the page rendered again only: no output but the edited article's is read (a command
    # line's build may read one twice: it lets go of what its selects read once the last round is planned).
    assert counts and all(count == 1 for count in counts.values()), counts
    assert (config.state_dir / "page-summaries.pickle").exists()


def test_every_result_is_stored_with_its_digest_and_whether_it_reports(make_wiki):
    from pipeline.storage.schema import SOME_DIAGNOSTIC
    from pipeline.storage.store import output_digest

    config = make_wiki(WIKI, search=False)
    build(config, workers=1)
    conn = open_store(config.state_db)
    rows = conn.execute(
        "SELECT r.output, d.sha256, d.reports FROM processing_results r LEFT JOIN result_digests d USING (job_id)"
    ).fetchall()
    conn.close()
    assert rows and all((sha, reports) == (output_digest(output), SOME_DIAGNOSTIC in output) for output, sha, reports in rows)
    assert any(reports for _, _, reports in rows) and not all(reports for _, _, reports in rows)


def test_a_result_with_diagnostics_keeps_them_apart_and_a_build_lists_them_without_reading_outputs(make_wiki, monkeypatch):
    config = make_wiki(WIKI, search=False)
    first = build(config, workers=1)
    conn = open_store(config.state_db)
    rows = conn.execute(
        "SELECT r.output, k.diagnostics FROM processing_results r LEFT JOIN result_diagnostics k USING (job_id)"
    ).fetchall()
    conn.close()
    assert rows and all(json.loads(kept or "[]") == json.loads(output)["diagnostics"] for output, kept in rows)
    assert any(kept for _, kept in rows)
    import pipeline.build as build_module
    from pipeline.storage import results

    (config.content_dir / "b.md").write_text("---\ntitle: Beta\n---\nBeta, edited, see [[gone]].\n")
    statements, collecting, rows_for_ids, collect = [], [], results.rows_for_ids, build_module.collect

    def recording(conn, sql, ids, *args):
        if collecting and ids:
            statements.append(sql)
        return rows_for_ids(conn, sql, ids, *args)

    monkeypatch.setattr(results, "rows_for_ids", recording)
    monkeypatch.setattr(build_module, "collect", lambda *a: collecting.append(1) or collect(*a))
    again = build(config, workers=1)
    assert any("FROM result_diagnostics" in sql for sql in statements)  # the diagnostics, listed from their rows
    assert not [sql for sql in statements if "output FROM processing_results" in sql]
    assert [d.message for d in again.process.diagnostics if d.path == "b.md" and d.code == "broken-link"] == [
        "no page matches [[gone]]"
    ]
    assert [d for d in again.process.diagnostics if d.path != "b.md"] == [
        d for d in first.process.diagnostics if d.path != "b.md"]  # fmt: skip


def _held(report) -> dict[str, int]:
    """pass -> how many of its outputs the build's process still holds as JSON."""
    results = report.process.wiki.results.items()
    return {name: sum(job in outputs.texts for job in outputs.jobs.values()) for name, outputs in results}


def test_a_command_line_build_lets_go_of_the_outputs_it_read_and_one_with_a_build_cache_keeps_them(make_wiki, monkeypatch):
    from pipeline.site import publish

    config = make_wiki(WIKI, search=False)
    models = []
    model_of = publish.model_of
    monkeypatch.setattr(publish, "model_of", lambda *args: models.append(model_of(*args)) or models[-1])
    cold = build(config, workers=1, site=True)
    assert set(_held(cold).values()) == {0}  # read by selects and pages alike, none is held after
    assert all(page.body._value is None for page in models[0].articles)  # each page's body let go once rendered
    assert "See <a" in (config.out_dir / "a" / "index.html").read_text()
    (config.content_dir / "b.md").write_text(WIKI["b.md"].replace("Beta", "Bet"))  # the link index changes
    build_cache = build(config, workers=1, site=True, build_cache=BuildCache())
    assert _held(build_cache)["links"] == 3  # what the selects read (b's, and a's and a.es's: they link to b), kept


def test_a_command_line_build_gives_freed_memory_back_before_forking_workers_only(make_wiki, monkeypatch):
    from pipeline.jobs import rounds

    files = {f"p{n}.md": f"---\ntitle: Page {n}\n---\nText {n}.\n" for n in range(60)}  # 240 jobs in round one
    config = make_wiki(files, search=False)
    given = []
    monkeypatch.setattr(rounds, "give_back_memory", lambda: given.append(1))
    build(config, workers=2, site=True)
    assert given == [1]  # before the workers of the one round more than one process works
    (config.content_dir / "p7.md").write_text(files["p7.md"] + "Edited.\n")
    build(config, workers=2, site=True)
    assert given == [1]  # an edit's rounds are small: what was freed is used again, not faulted in anew


def test_a_build_with_nothing_to_do_loads_no_planning_or_work_code(make_wiki):
    import subprocess
    import sys

    config = make_wiki(WIKI, search=False)
    probe = (  # each build a process of its own, as a command line's
        "import sys; from pathlib import Path; from pipeline.build import build; from pipeline.config import Config; "
        f"report = build(Config(content_dir=Path({str(config.content_dir)!r}), state_dir=Path({str(config.state_dir)!r}), "
        f"out_dir=Path({str(config.out_dir)!r}), search=False), workers=1, site=True); "
        "print(report.process.skipped, sorted(m for m in ('pipeline.jobs.worker', 'pipeline.jobs.plan', "
        "'pipeline.jobs.queue', 'pipeline.jobs.rounds', 'pipeline.incremental.job_reuse') if m in sys.modules))"
    )
    builds = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.strip()
              for _ in range(2)]  # fmt: skip
    assert builds[0].startswith("False [") and builds[0] != "False []"  # the first build planned and worked
    assert builds[1] == "True []"


def test_a_build_that_reads_every_file_again_has_missing_site_files_put_back_meanwhile(make_wiki, monkeypatch):
    """A CI build: the state restored, the output folder empty, every file's time changed by the checkout."""
    config = dataclasses.replace(make_wiki({f"n{i}.md": f"# Note {i}\n\nBody {i}.\n" for i in range(70)}), search=False)
    build(config, site=True)
    shutil.rmtree(config.out_dir)
    for path in config.content_dir.iterdir():
        os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 5_000_000_000))
    order = []
    settle, capture_content = site.SiteCheck.settle, build_module.capture_content
    monkeypatch.setattr(site.SiteCheck, "settle", lambda check: order.append("settle") or settle(check))
    capturing = lambda *args, **options: order.append("capture") or capture_content(*args, **options)  # noqa: E731
    monkeypatch.setattr(build_module, "capture_content", capturing)
    report = build(config, site=True)
    assert order == ["settle", "capture"]  # the look answered before the capture reads the 70 files
    assert report.site.put_back == report.site.unchanged > 70 and not report.site.written
