"""Planning in several processes gives exactly the plan of one process."""

import dataclasses
import json

import pytest

from pipeline.build import build
from pipeline.jobs import plan as planning
from pipeline.storage.store import open_store

FILES = {f"a{i:02}.md": f"---\ntitle: Article {i}\n---\nSee [[a{(i + 1) % 12:02}]] and Article {i + 2}.\n" for i in range(12)}


def _jobs(config):
    """(path, pass, fingerprint) of each job pass, in the order made."""
    conn = open_store(config.state_db)
    rows = conn.execute(
        "SELECT c.path, p.pass_name, p.input_fingerprint FROM job_passes p JOIN captures c ON c.id = p.capture_id "
        "ORDER BY p.id"
    )
    return [tuple(row) for row in rows]


def _own_digests(config) -> set[tuple]:
    """(pass, path, own digest) of each entry of the plan memos."""
    conn = open_store(config.state_db)
    paths = dict(conn.execute("SELECT id, path FROM captures"))
    found = set()
    for name, entries in conn.execute("SELECT pass_name, entries FROM plan_memo"):
        captures, owns, *_ = json.loads(entries)
        found.update((name, paths[capture], own) for capture, own in zip(captures, owns))
    conn.close()
    return found


@pytest.mark.parametrize("workers", [2, 3])
def test_parallel_plan_equals_serial_plan(make_wiki, tmp_path, monkeypatch, workers):
    serial = make_wiki(FILES, search=False)
    build(serial, workers=1)
    monkeypatch.setattr(planning, "MIN_JOBS_PER_PROCESS", 1)
    forked = dataclasses.replace(serial, state_dir=tmp_path / "forked-state")
    build(forked, workers=workers)
    assert _jobs(forked) == _jobs(serial)
    assert _own_digests(forked) == _own_digests(serial)  # made with the slices, in each process
    assert _inputs(forked) == _inputs(serial)


def _inputs(config) -> set[str]:
    conn = open_store(config.state_db)
    found = {sha for (sha,) in conn.execute("SELECT sha256 FROM job_inputs")}
    conn.close()
    return found


def test_each_process_s_inputs_are_stored_as_they_arrive_and_only_its_own(make_wiki, monkeypatch):
    """So a round's inputs are never all held at once (a cold 10k build's second round held 37 MB of them)."""
    from pipeline.build import passes_for
    from pipeline.passes.registry import rounds

    config = make_wiki(FILES, search=False)
    monkeypatch.setattr(planning, "MIN_JOBS_PER_PROCESS", 1)
    stored, store = [], planning.store_inputs

    def recorded(conn, rows, blobs):
        stored.append((rows, set(blobs)))
        return store(conn, rows, blobs)

    monkeypatch.setattr(planning, "store_inputs", recorded)
    build(config, workers=2)
    assert len(stored) == 2 * len(rounds(passes_for(config)))  # a call for each of the two processes of each round
    for rows, blobs in stored:
        assert blobs == {sha for row in rows for sha in json.loads(row[4]).values()}
    assert {sha for _, blobs in stored for sha in blobs} == _inputs(config)


def test_lazy_fields_stay_in_the_store_until_used(make_wiki):
    from pipeline.storage.results import StoredField

    config = make_wiki({"a.md": "---\ntitle: A\n---\nHello [[b]].\n", "b.md": "---\ntitle: B\n---\nB.\n"}, search=False)
    report = build(config, workers=1, site=True)
    html = report.process.wiki.results["html"]
    stored = next(iter(html.values()))["html"]
    assert isinstance(stored, StoredField) and "<p>" in str(stored)  # read from the store on use
    assert {"toc", "references_html", "diagnostics"} <= set(next(iter(html.values())))  # the rest is loaded
    assert '<a href="/b/" class="wikilink">b</a>' in (config.out_dir / "a" / "index.html").read_text()


def test_a_page_is_stored_once_and_referred_to_by_the_html_job_input_and_result(make_wiki):
    """The links pass's HTML reaches the html pass as its identity, and the page is stored as a recipe on it."""
    config = make_wiki({"a.md": "---\ntitle: A\n---\nHello [[b]].\n", "b.md": "---\ntitle: B\n---\nB.\n"}, search=False)
    build(config, workers=1, site=True)
    conn = open_store(config.state_db)
    try:
        inputs, output = conn.execute(
            "SELECT j.inputs, f.value FROM job_passes j JOIN captures c ON c.id = j.capture_id "
            "JOIN result_fields f ON f.job_id = j.id WHERE j.pass_name = 'html' AND c.path = 'a.md' AND f.field = 'html'"
        ).fetchone()
        blob = conn.execute("SELECT json FROM job_inputs WHERE sha256 = ?", (json.loads(inputs)["markup"],)).fetchone()[0]
    finally:
        conn.close()
    assert '"$stored"' in blob and "<p>" not in blob
    assert '"$filled"' in output and "<p>" not in output
    assert '<p>Hello <a href="/b/" class="wikilink">b</a>.</p>' in (config.out_dir / "a" / "index.html").read_text()


def test_the_slice_hasher_unpins_what_only_it_holds():
    """Shared slices (held by an index) stay cached; an article's own are let go, and a reused address hashes anew."""
    from pipeline.jobs.plan import _Hasher
    from pipeline.runtime import jsonio

    hasher, shared = _Hasher(), {"names": ["Alpha", "Beta"]}
    hasher(shared)
    hasher({"own": 1})
    hasher.sweep()
    assert [hit[0] for hit in hasher.seen.values()] == [shared]
    for number in range(200):  # freed dicts' addresses come back at once: each must hash as itself
        assert hasher({"n": number})[0] == jsonio.dumps({"n": number}, sort_keys=True).encode()
        hasher.sweep()


def test_a_rounds_new_jobs_are_made_article_by_article_in_pass_order(make_wiki):
    """So a worker's batch holds several passes of one article, which share one parse: after a cold
    build, and after an edit that re-plans some passes of some articles only."""
    from pipeline.build import passes_for
    from pipeline.passes.registry import rounds

    config = make_wiki(FILES, search=False)
    order = {spec.name: (number, at) for number, specs in enumerate(rounds(passes_for(config))) for at, spec in
             enumerate(specs)}  # fmt: skip

    def made_in_order(jobs):
        keys = [(order[name][0], path, order[name][1]) for path, name, _ in jobs]
        return keys == sorted(keys) and len(set(keys)) == len(keys)

    build(config, workers=1)
    cold = _jobs(config)
    conn = open_store(config.state_db)
    (jobs,) = conn.execute("SELECT COUNT(*) FROM processing_jobs").fetchone()
    conn.close()
    assert jobs == 12 * len(rounds(passes_for(config)))  # one job per article and round runs its passes
    (config.content_dir / "a03.md").write_text("---\ntitle: Article 3\n---\nNow [[a05]] and Article 7.\n")
    (config.content_dir / "a08.md").write_text("---\ntitle: Article 8\n---\nOnly prose.\n")
    build(config, workers=1)
    edit = _jobs(config)[len(cold):]
    assert len(cold) == 12 * len(order) and made_in_order(cold)
    assert {path for path, _, _ in edit} >= {"a03.md", "a08.md"} and len(edit) < len(cold) / 2
    assert made_in_order(edit)


def test_a_build_reports_the_failed_jobs_of_its_captures_and_not_those_of_earlier_ones(make_wiki, tmp_path):
    (tmp_path / "picky.py").write_text(
        "NAME = 'picky'\nVERSION = 1\nCONTRACT = {'type': 'object', 'required': ['diagnostics']}\n"
        "def run(article, inputs):\n"
        "    if 'boom' in article.body:\n        raise ValueError('no boom')\n"
        "    return {'diagnostics': []}\n"
    )
    config = make_wiki({"a.md": "boom\n", "b.md": "fine\n", "c.md": "boom too\n"}, search=False,
                       passes=[str(tmp_path / "picky.py")])  # fmt: skip
    failed = build(config, workers=1).process.failures
    assert sorted((path, name) for path, name, _ in failed) == [("a.md", "picky"), ("c.md", "picky")]
    assert all("no boom" in error for _, _, error in failed)
    (config.content_dir / "a.md").write_text("fixed\n")
    again = build(config, workers=1).process.failures
    assert [(path, name) for path, name, _ in again] == [("c.md", "picky")]  # a.md's old job stays failed, unreported
    conn = open_store(config.state_db)
    (still,) = conn.execute("SELECT count(*) FROM processing_jobs WHERE status = 'failed'").fetchone()
    conn.close()
    assert still == 2
