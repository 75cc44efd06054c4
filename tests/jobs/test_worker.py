"""Workers: results are validated, versioned and immutable; a bad job fails alone."""

import json
import re
import subprocess
import sys
import textwrap
import time
import types

import pytest

from pipeline.build import build, passes_for
from pipeline.config import Config
from pipeline.storage.store import open_store

CUSTOM = '''
from pipeline.passes.base import RetryableError

NAME = "probe"
VERSION = {version}
CONTRACT = {{"type": "object", "required": ["words", "diagnostics"],
             "properties": {{"words": {{"type": "integer"}}}}}}


def run(article, inputs):
    if "explode" in article.body:
        raise ValueError("cannot handle this article")
    if "flaky" in article.body:
        raise RetryableError("try later")
    if "invalid" in article.body:
        return {{"words": "many", "diagnostics": []}}
    return {{"words": len(article.body.split()), "diagnostics": []}}
'''


@pytest.fixture
def probe_wiki(make_wiki, tmp_path):
    def make(files, version=1):
        (tmp_path / "probe.py").write_text(textwrap.dedent(CUSTOM.format(version=version)))
        return make_wiki(files, passes=[str(tmp_path / "probe.py")])

    return make


def _jobs(config, pass_name="probe"):
    """path -> the row of the job that ran `pass_name` on it (its round's other passes too)."""
    conn = open_store(config.state_db)
    rows = conn.execute(
        "SELECT c.path, j.* FROM job_passes p JOIN processing_jobs j ON j.id = p.job_id "
        "JOIN captures c ON c.id = j.capture_id WHERE p.pass_name = ?",
        (pass_name,),
    ).fetchall()
    return {row["path"]: row for row in rows}


def test_a_failing_job_fails_alone(probe_wiki):
    config = probe_wiki({"good.md": "one two three", "bad.md": "explode", "odd.md": "invalid", "later.md": "flaky"})
    report = build(config, workers=1)
    jobs = _jobs(config)
    assert jobs["good.md"]["status"] == "done"
    assert jobs["bad.md"]["status"] == "failed" and jobs["bad.md"]["error_kind"] == "permanent"
    assert jobs["bad.md"]["last_error"].startswith("probe: ValueError: cannot handle")
    # Its job's other passes kept their results: only the failed pass has none.
    passes = open_store(config.state_db).execute(
        "SELECT p.pass_name, r.id IS NOT NULL FROM job_passes p LEFT JOIN processing_results r ON r.job_id = p.id "
        "WHERE p.job_id = ?", (jobs["bad.md"]["id"],)).fetchall()  # fmt: skip
    assert len(passes) > 1 and {name for name, done in passes if not done} == {"probe"}
    assert jobs["odd.md"]["error_kind"] == "permanent" and "contract" in jobs["odd.md"]["last_error"]
    assert jobs["later.md"]["error_kind"] == "retryable" and jobs["later.md"]["next_retry_at"] is not None
    assert report.process.work.failed == 3


def test_results_are_versioned(probe_wiki, results_of):
    config = probe_wiki({"good.md": "one two three"})
    build(config, workers=1)
    conn = open_store(config.state_db)
    row = conn.execute("SELECT * FROM processing_results WHERE pass_name = 'probe'").fetchone()
    assert json.loads(row["output"]) == {"words": 3, "diagnostics": []}
    assert row["pass_version"] == 1 and row["contract_version"] == 1
    assert row["input_fingerprint"] == conn.execute("SELECT sha256 FROM captures").fetchone()[0]
    assert row["created_at"] > 0


def test_version_bump_replans_every_capture_and_keeps_old_results(probe_wiki):
    config = probe_wiki({"a.md": "one", "b.md": "two words"})
    build(config, workers=1)
    again = build(config, workers=1)
    assert again.process.created_passes == []
    bumped = probe_wiki({}, version=2)
    report = build(bumped, workers=1)
    assert sorted(report.process.created_passes) == [("a.md", "probe"), ("b.md", "probe")]
    conn = open_store(config.state_db)
    versions = [r[0] for r in conn.execute("SELECT pass_version FROM processing_results WHERE pass_name='probe'")]
    assert sorted(versions) == [1, 1, 2, 2]


def test_two_worker_processes_drain_one_queue(make_wiki):
    config = make_wiki({f"a{i}.md": f"---\ntitle: A{i}\n---\ntext {i}\n" for i in range(300)})
    report = build(config, workers=2)
    conn = open_store(config.state_db)
    statuses = {r[0] for r in conn.execute("SELECT status FROM processing_jobs")}
    per_job = conn.execute("SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM processing_results GROUP BY job_id)")
    assert statuses == {"done"} and per_job.fetchone()[0] == 1
    assert report.process.work.done == conn.execute("SELECT COUNT(*) FROM processing_jobs").fetchone()[0]


def test_unknown_pass_module_is_a_clear_error(make_wiki):
    from pipeline.errors import UserError

    config = make_wiki({"a.md": "x"}, passes=["no_such_module_here"])
    with pytest.raises(UserError, match="no_such_module_here"):
        passes_for(config)


def test_config_file_names_a_custom_pass_relative_to_itself(tmp_path):
    from pipeline.config import load_config

    (tmp_path / "wiki.yaml").write_text("passes: [extra/reading_time.py]\nstrict: true\n")
    config = load_config(tmp_path / "wiki.yaml")
    assert config.passes == [str(tmp_path / "extra" / "reading_time.py")] and config.strict is True
    assert isinstance(config, Config)


def test_a_contract_that_is_not_a_schema_fails_the_jobs_with_a_clear_error(make_wiki, tmp_path):
    (tmp_path / "bad.py").write_text(
        "NAME = 'bad'\nVERSION = 1\nCONTRACT = {'type': 'object', 'required': ['diagnostics'], 'minProperties': 'x'}\n"
        "def run(article, inputs):\n    return {'diagnostics': []}\n"
    )
    config = make_wiki({"a.md": "x"}, passes=[str(tmp_path / "bad.py")])
    report = build(config, workers=1)
    (failure,) = report.process.failures
    assert failure[1] == "bad" and "CONTRACT is not a valid JSON Schema" in failure[2]


def test_a_worker_that_keeps_few_input_blobs_reads_the_rest_again(make_wiki, tmp_path, monkeypatch):
    """The blob cache is bounded: cleared when full, a job still gets every input it names."""
    files = {f"p{n}.md": f"---\ntitle: Page {n}\n---\nSee [[p{(n + 1) % 6}]] and Page {(n + 2) % 6}.\n" for n in range(6)}
    roomy = make_wiki(files)
    expected = build(roomy, workers=1).process.diagnostics
    monkeypatch.setattr("pipeline.jobs.worker.BLOBS_KEPT", 2)
    tight = Config(content_dir=roomy.content_dir, state_dir=tmp_path / "tight", out_dir=tmp_path / "out")
    report = build(tight, workers=1)
    assert report.process.failures == [] and report.process.diagnostics == expected
    assert report.process.work.done == report.process.created_jobs
    assert report.process.work.passes == len(report.process.created_passes) > report.process.created_jobs


def test_a_build_stopped_while_working_leaves_its_jobs_to_the_next_which_runs_them_at_once(make_wiki, monkeypatch):
    from pipeline.jobs.worker import Worker

    config = make_wiki({"a.md": "# A\n\nText.\n", "b.md": "# B\n\nSee [[a]].\n"})
    process, calls = Worker.process, []

    def stopping(self, job, article):
        calls.append(job.id)
        if len(calls) == 2:  # the second job of the first batch (the first round's: a job per article)
            raise KeyboardInterrupt
        return process(self, job, article)

    with monkeypatch.context() as patch:
        patch.setattr(Worker, "process", stopping)
        with pytest.raises(KeyboardInterrupt):
            build(config, workers=1)
    statuses = {row["status"] for row in _all_jobs(config)}
    assert statuses == {"pending"}  # its batch went back: nothing waits for a lease on a dead worker
    report = build(config, workers=1)
    assert {row["status"] for row in _all_jobs(config)} == {"done"} and report.process.failures == []


def _all_jobs(config):
    return open_store(config.state_db).execute("SELECT * FROM processing_jobs").fetchall()


HERE = {"here": 1, "diagnostics": []}
THERE = '{"there": 1, "diagnostics": []}'


@pytest.fixture
def claimed_elsewhere(make_wiki):
    """(config, specs, conn, the claimed job, job ids): two noop jobs, the first claimed by a worker of another host."""
    from pipeline.content.capture import capture_content, load_articles
    from pipeline.jobs.plan import plan_round
    from pipeline.jobs.queue import claim
    from pipeline.passes.base import Wiki
    from pipeline.passes.registry import spec_of

    def make(lease_seconds):
        config = make_wiki({"a.md": "one", "b.md": "two"})
        conn = open_store(config.state_db)
        articles = load_articles(conn, capture_content(conn, config).new)
        contract = {"type": "object", "required": ["diagnostics"]}
        noop = types.SimpleNamespace(NAME="noop", VERSION=1, CONTRACT=contract, run=lambda a, i: HERE)
        specs = [spec_of(noop)]
        plan = plan_round(conn, specs, articles, Wiki(options={}, articles=articles), max_attempts=3, now=0.0)
        (job,) = claim(conn, worker="elsewhere:1", limit=1, lease_seconds=lease_seconds, now=time.time())
        return config, specs, conn, job, set(plan.job_ids())

    return make


def test_a_build_waits_for_the_jobs_another_live_process_holds(claimed_elsewhere):
    from pipeline.jobs.queue import Backoff, Outcome, PassOutcome, finish
    from pipeline.jobs.worker import run_plan

    config, specs, conn, job, ids = claimed_elsewhere(lease_seconds=1000)
    waits = []

    def other_worker_finishes(seconds):  # instead of sleeping: the holder completes its job meanwhile
        waits.append(seconds)
        done = tuple(PassOutcome(job_pass, output_json=THERE) for job_pass in job.passes)
        finish(conn, [Outcome(job, done)], now=time.time(), backoff=Backoff())

    told = []
    report = run_plan(conn, config, specs, 1, ids, waiting=told.append, wait=other_worker_finishes)
    assert len(waits) == 1 and told == [1] and report.done == 1
    outputs = [row[0] for row in conn.execute("SELECT output FROM processing_results ORDER BY job_id")]
    assert [json.loads(output) for output in outputs] == [json.loads(THERE), HERE]


def test_a_job_whose_holder_let_its_lease_run_out_is_run_by_the_build(claimed_elsewhere):
    from pipeline.jobs.worker import run_plan

    config, specs, conn, job, ids = claimed_elsewhere(lease_seconds=0)
    report = run_plan(conn, config, specs, 1, ids, wait=lambda seconds: None)
    assert report.done == 2 and {row["status"] for row in _all_jobs(config)} == {"done"}


def test_a_big_round_is_worked_by_forked_workers_only_and_the_build_s_process_waits(make_wiki):
    import os

    # What a worker loads and fills (parsers, highlighter, checker) would stay in the build's process to its end.
    config = make_wiki({f"a{i}.md": f"---\ntitle: A{i}\n---\ntext {i}\n" for i in range(300)})
    report = build(config, workers=2)
    attempts = _attempts_by(config)
    assert sum(attempts.values()) == report.process.work.done > 200
    assert str(os.getpid()) not in attempts


def test_a_forked_worker_s_full_disk_is_told_as_a_full_disk(make_wiki, monkeypatch):
    import errno
    import os

    from pipeline.errors import UserError
    from pipeline.jobs import worker

    config = make_wiki({f"a{i}.md": f"---\ntitle: A{i}\n---\ntext {i}\n" for i in range(300)})
    home, process_batch = os.getpid(), worker.Worker.process_batch

    def full(self, *args, **kwargs):  # in a forked worker only: its error comes back through the pipe
        if os.getpid() != home:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(config.state_db))
        return process_batch(self, *args, **kwargs)

    monkeypatch.setattr(worker.Worker, "process_batch", full)
    told = re.escape(f"{config.state_db}: {os.strerror(errno.ENOSPC)}; free some space")
    with pytest.raises(UserError, match=f"^{told}"):
        build(config, workers=2)


def test_a_forked_worker_s_failure_is_one_line_naming_what_it_raised(make_wiki, monkeypatch):
    from pipeline.errors import UserError
    from pipeline.jobs import worker

    config = make_wiki({f"a{i}.md": f"---\ntitle: A{i}\n---\ntext {i}\n" for i in range(300)})
    monkeypatch.setattr(worker.Worker, "process_batch", lambda *args, **kwargs: 1 / 0)
    with pytest.raises(UserError) as raised:
        build(config, workers=2)
    told = "a worker process failed (ZeroDivisionError: division by zero); its jobs are recovered by the next run"
    assert str(raised.value) == told


def test_a_build_s_small_rounds_are_worked_beside_it_and_markdown_never_loads_here(make_wiki):
    import subprocess
    import sys

    config = make_wiki({"a.md": "# A\n\nLinks [[b]].\n", "b.md": "# B\n\nText.\n"}, search=False)
    script = textwrap.dedent(f"""
        import sys
        from pipeline.build import build
        from pipeline.config import load_config
        config = load_config(content={str(config.content_dir)!r}, state={str(config.state_dir)!r},
                             out={str(config.out_dir)!r})
        report = build(config, workers=2, site=True)
        assert report.process.work.done == report.process.created_jobs > 0, report.process.work
        print(sorted(m for m in sys.modules if m.startswith(("markdown_it", "mdit_py_plugins"))))
    """)  # fmt: skip
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, cwd=config.state_dir.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"  # the jobs ran in the standby; the pages are made of their results
    assert '<a href="/b/" class="wikilink">b</a>' in (config.out_dir / "a" / "index.html").read_text()


def _attempts_by(config, outcome: str = "done") -> dict[str, int]:
    """process id of a worker -> how many of its job attempts had `outcome`, over the store's history."""
    conn = open_store(config.state_db)
    sql = "SELECT worker, count(*) FROM job_attempts WHERE outcome = ? GROUP BY worker"
    rows = conn.execute(sql, (outcome,)).fetchall()
    conn.close()
    return {worker.rpartition(":")[2]: count for worker, count in rows}


def _dies_beside(config, identities, home):
    """`worker._work_beside`, but the standby dies once it has claimed a batch; here (the call made again), None."""
    import os

    from pipeline.jobs import worker

    if os.getpid() == home:
        return None
    worker.Worker.process_batch = lambda *args, **kwargs: os._exit(1)
    return worker.work(config, worker._passes_loaded(config))


def test_jobs_a_standby_died_holding_are_worked_here_at_once(make_wiki, monkeypatch):
    import os

    from pipeline.jobs import worker

    monkeypatch.setattr(worker, "_work_in_helper", _dies_beside)
    config = make_wiki({"a.md": "# A\n\nLinks [[b]].\n", "b.md": "# B\n\nText.\n"}, search=False)
    cold = build(config, workers=2)  # small rounds: each given to the standby, which dies holding the first
    (config.content_dir / "a.md").write_text("# A\n\nLinks [[b]] twice: [[b]].\n")
    edit = build(config, workers=2)
    for report in (cold, edit):
        assert report.process.work.done == report.process.created_jobs > 0 and not report.process.failures
        assert report.process.work.recovered > 0  # the dead standby's claim, taken back without waiting for its lease
    assert set(_attempts_by(config)) == {str(os.getpid())}  # every job done here, none by a standby
    assert len(_attempts_by(config, "recovered")) == 2  # each build's standby held a batch when it died


def test_a_standby_whose_passes_are_not_the_build_s_works_nothing(make_wiki, monkeypatch):
    import dataclasses
    import os

    from pipeline.jobs import worker

    loaded, here = worker._passes_loaded, os.getpid()

    def another_version(config):  # as if a wiki's own pass were edited between the two loadings
        specs = loaded(config)
        return specs if os.getpid() == here else [dataclasses.replace(spec, version=spec.version + 1) for spec in specs]

    monkeypatch.setattr(worker, "_passes_loaded", another_version)
    config = make_wiki({"a.md": "# A\n\nLinks [[b]].\n", "b.md": "# B\n\nText.\n"}, search=False)
    report = build(config, workers=2)
    assert report.process.work.done == report.process.created_jobs > 0
    assert set(_attempts_by(config)) == {str(here)}


def test_a_build_s_standby_works_its_small_rounds(make_wiki):
    import os

    config = make_wiki({"a.md": "# A\n\nLinks [[b]].\n", "b.md": "# B\n\nText.\n"}, search=False)
    report = build(config, workers=2)
    assert report.process.work.done == report.process.created_jobs > 0
    assert str(os.getpid()) not in _attempts_by(config) and len(_attempts_by(config)) == 1


_STEP: list[int] = []  # the read end of a pipe: the forked helper's round waits for a byte on it


def _works_once_a_step_ran(config, identities, home):
    import os

    from pipeline.jobs.report import WorkerReport

    os.read(_STEP[0], 1)
    return WorkerReport(done=1)


def test_a_build_takes_its_steps_while_the_forked_helper_works_a_round(make_wiki, monkeypatch):
    import os
    import sys

    from pipeline.jobs import worker
    from pipeline.runtime.forks import ForkedHelper

    read_end, write_end = os.pipe()
    monkeypatch.setattr(sys.modules[__name__], "_STEP", [read_end])
    monkeypatch.setattr(worker, "_work_in_helper", _works_once_a_step_ran)  # before the fork: the helper's too
    config = make_wiki({"a.md": "# A\n"}, search=False)
    taken = []
    steps = [lambda: taken.append("code"), lambda: taken.append("record") or os.write(write_end, b"x"),
             lambda: taken.append("summaries")]  # fmt: skip
    with ForkedHelper() as helper:
        beside = worker.HelperWorker(helper, config, steps)
        report = beside.drain(passes_for(config), 1)
    assert report.done == 1  # the helper's
    # Until the second step the round cannot end: both were taken, in order; the third maybe, else left for later.
    assert taken[:2] == ["code", "record"] and len(taken) + len(beside.meanwhile) == 3
    with ForkedHelper(forked=False) as here:  # no helper: the round is worked here, every step left to the render
        alone = worker.HelperWorker(here, config, steps)
        alone.drain(passes_for(config), 1)
    assert len(alone.meanwhile) == 3
    os.close(read_end)
    os.close(write_end)


_SAW_STEP: list[bool] = []  # in the forked helper: whether a step of the build ran while it loaded


def _loads_until_a_step_ran(config, home):
    import select

    waiting = select.poll()
    waiting.register(_STEP[0], select.POLLIN)
    _SAW_STEP[:] = [bool(waiting.poll(10_000))]  # a deadline, not a wait for state: the old code never writes


def _works_if_a_step_ran_while_it_loaded(config, identities, home):
    from pipeline.jobs.report import WorkerReport

    return WorkerReport(done=1 if _SAW_STEP == [True] else 0)


def test_a_build_takes_its_steps_while_the_forked_helper_is_still_loading(make_wiki, monkeypatch):
    import os
    import sys

    from pipeline.jobs import worker
    from pipeline.runtime.forks import ForkedHelper

    read_end, write_end = os.pipe()
    monkeypatch.setattr(sys.modules[__name__], "_STEP", [read_end])
    monkeypatch.setattr(worker, "_ready", _loads_until_a_step_ran)  # before the fork: the helper's too
    monkeypatch.setattr(worker, "_work_in_helper", _works_if_a_step_ran_while_it_loaded)
    config = make_wiki({"a.md": "# A\n"}, search=False)
    taken = []
    steps = [lambda: taken.append("code") or os.write(write_end, b"x"), lambda: taken.append("record")]
    with ForkedHelper() as helper:
        beside = worker.HelperWorker(helper, config, steps)
        report = beside.drain(passes_for(config), 1)
    assert report.done == 1 and taken[0] == "code"  # the first step ran before the helper had loaded
    os.close(read_end)
    os.close(write_end)


def test_the_forked_helper_loads_the_contract_checker_while_the_build_plans(tmp_path):
    code = (
        "import sys\n"
        "from pipeline.config import Config\n"
        "from pipeline.jobs.worker import _ready\n"
        "after = _ready(Config(), 0)  # as in the forked helper: the passes and parsers loaded, its answer sent\n"
        "assert 'jsonschema_rs' not in sys.modules and 'pygments' not in sys.modules  # not before it answers\n"
        "after.then()  # then, while the build plans\n"
        "assert 'jsonschema_rs' in sys.modules and 'pygments' in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=tmp_path)  # its state folder a temporary one
