"""Workers: claim -> read -> process -> validate -> persist -> complete.

One worker loops over batches: it claims jobs, reads each job's capture and
inputs, runs each of the job's passes, checks each output against its pass's
contract, and persists results and failures in one fenced transaction. Any
exception or invalid output fails that pass only (and so its job, whose other
passes keep their results). `run_workers` starts N processes that
drain the same queue; SQLite's write lock and the claim tokens keep them apart;
`run_plan` also waits for the jobs of a build another live process holds.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import time
from dataclasses import replace
from functools import partial
from typing import Callable, Container

from pipeline.config import Config
from pipeline.content.capture import load_articles
from pipeline.errors import UserError
from pipeline.jobs.helper_loading import highlights_code
from pipeline.jobs.queue import (
    Backoff, ClaimedJob, JobPass, Outcome, PassOutcome, claim, finish, has_work, held_leases, recover_stale, release,
    worker_name,
)  # fmt: skip
from pipeline.jobs.report import WorkerReport
from pipeline.markdown import make_parser  # light: markdown-it loads with the first parser made
from pipeline.markdown.code import load_highlighter
from pipeline.markdown.extensions import setting as markdown_setting
from pipeline.passes.base import RetryableError
from pipeline.passes.contract import PassSpec
from pipeline.passes.registry import passes_for
from pipeline.runtime import jsonio
from pipeline.runtime.contracts import load_checker
from pipeline.runtime.disk_full import full_disk_message
from pipeline.runtime.forks import Afterwards, ForkedError, ForkedHelper, Later
from pipeline.spool import enqueue_all
from pipeline.spool.events import edit_event
from pipeline.storage.results import resolve_stored
from pipeline.storage.store import db_path, open_store, rows_for_ids
from pipeline.storage.text_refs import STORED

TRANSIENT = (sqlite3.OperationalError, OSError, TimeoutError)
BLOBS_KEPT = 4096  # input blobs a worker keeps decoded: the shared ones (indexes, options) and a few batches' own


class Worker:
    """One worker's state: its connection, passes, and caches of inputs."""

    def __init__(self, config: Config, specs: list[PassSpec], name: str | None = None) -> None:
        self.config = config
        self.conn = open_store(config.state_db)
        self.db = db_path(self.conn)
        self.specs = {(spec.name, spec.version): spec for spec in specs}
        self.name = name or worker_name()
        self.backoff = Backoff(config.jobs.backoff_base, config.jobs.backoff_cap)
        self.blobs: dict[str, object] = {}  # job_inputs are immutable: caching them is always safe (BLOBS_KEPT)

    def run(self, *, once: bool = False, clock=time.time) -> WorkerReport:
        """Work until no job is eligible (or for one batch with `once`)."""
        report = WorkerReport()
        lease = self.config.jobs.lease_seconds
        report.recovered += len(recover_stale(self.conn, now=clock()))
        last_recovery = clock()
        while True:
            jobs = claim(self.conn, worker=self.name, limit=self.config.jobs.batch_size, lease_seconds=lease, now=clock())
            if not jobs or clock() - last_recovery > lease / 4:
                # Recover while working too, so a job whose worker died is not left until the queue runs dry.
                report.recovered += len(recover_stale(self.conn, now=clock()))
                last_recovery = clock()
            if not jobs:
                if once or not has_work(self.conn, clock()):
                    return report
                continue
            try:
                self.process_batch(jobs, report, clock)
            except BaseException:  # stopped (Ctrl-C) or broken: its unfinished jobs are no longer its to do
                release(self.conn, jobs, now=clock())
                raise
            if once:
                return report

    def process_batch(self, jobs: list[ClaimedJob], report: WorkerReport, clock=time.time) -> None:
        articles = {a.capture_id: a for a in load_articles(self.conn, sorted({j.capture_id for j in jobs}))}
        self.fetch_inputs(sha for job in jobs for job_pass in job.passes for sha in job_pass.inputs.values())
        outcomes = [self.process(job, articles.get(job.capture_id)) for job in jobs]
        # Events go to the spool before the jobs complete: a crash in between re-runs the job,
        # which re-sends the same event_id, and the drain keeps one (at least once, deduplicated).
        outcomes = self.send_edits(outcomes, articles)
        accepted, rejected = finish(self.conn, outcomes, now=clock(), backoff=self.backoff)
        accepted_ids = set(accepted)
        for outcome in outcomes:
            if outcome.job.id not in accepted_ids:
                continue
            report.passes += len(outcome.passes)
            if outcome.error is None:
                report.done += 1
            else:
                report.failed += 1
                report.failures.append((outcome.job.id, outcome.error))
        report.rejected += len(rejected)
        report.batches += 1

    def process(self, job: ClaimedJob, article) -> Outcome:
        """Run each pass of `job` on its capture (one after another: they share the article's parse)."""
        if article is None:
            return Outcome(job, job_error=f"capture {job.capture_id} not found")
        return Outcome(job, tuple(self.run_pass(job_pass, article) for job_pass in job.passes))

    def run_pass(self, job_pass: JobPass, article) -> PassOutcome:
        spec = self.specs.get((job_pass.pass_name, job_pass.pass_version))
        if spec is None:
            return PassOutcome(job_pass, error=f"pass {job_pass.pass_name} v{job_pass.pass_version} is not registered")
        try:
            output = spec.call(article, self.read_inputs(job_pass.inputs))
        except RetryableError as exc:
            return PassOutcome(job_pass, error=f"{type(exc).__name__}: {exc}", error_kind="retryable")
        except TRANSIENT as exc:
            return PassOutcome(job_pass, error=f"{type(exc).__name__}: {exc}", error_kind="retryable")
        except Exception as exc:  # a pass bug fails this pass only
            return PassOutcome(job_pass, error=f"{type(exc).__name__}: {exc}")
        try:
            spec.validate(output)
            lazy_json = tuple((name, jsonio.dumps(output.pop(name))) for name in spec.lazy_fields if name in output)
            output_json = jsonio.dumps(output)
            diagnostics_json = jsonio.dumps(output["diagnostics"]) if output.get("diagnostics") else None
        except (ValueError, TypeError) as exc:  # JsonSchemaValueException is a ValueError
            return PassOutcome(job_pass, error=f"output breaks the {spec.name} contract: {exc}")
        return PassOutcome(job_pass, output_json=output_json, lazy_json=lazy_json, diagnostics_json=diagnostics_json,
                           contract_version=spec.contract_version, edit=output.get("edit"))  # fmt: skip

    def send_edits(self, outcomes: list[Outcome], articles: dict) -> list[Outcome]:
        """Hand each proposed edit to the spool as an event, unless a completed job sent it already;
        return the outcomes, each edit's pass outcome with its event id (recorded with its result).

        The same pass version proposing the same edit of the same bytes is one event, whatever
        else its inputs held: after a title change every mentions pass runs again, and most
        propose what they did before. A batch's new events go out together, the spool's queue
        folder synced once for all (in a big wiki, one fsync per event was a large part of a title
        change's work, and of a cold build's workers').
        """
        outcomes = [replace(o, passes=tuple(_with_event_id(p, articles[o.job.capture_id]) for p in o.passes))
                    if any(p.edit for p in o.passes) else o for o in outcomes]  # fmt: skip
        edits = [(p, articles[o.job.capture_id]) for o in outcomes for p in o.passes if p.event_id]
        sql = "SELECT event_id FROM sent_edits WHERE event_id IN ({ids})"
        sent = {event_id for event_id, in rows_for_ids(self.conn, sql, [p.event_id for p, _ in edits])}
        # One event per id, should two passes of the batch propose the same edit.
        new = {p.event_id: (p, article) for p, article in edits if p.event_id not in sent}
        if new:
            enqueue_all([_edit_event(p, article) for p, article in new.values()], self.config.spool_dir)
        return outcomes

    def read_inputs(self, shas: dict[str, str]) -> dict:
        self.fetch_inputs(shas.values())
        return {name: self.blobs[sha] for name, sha in shas.items()}

    def fetch_inputs(self, shas) -> None:
        """Read the input blobs not read yet, in one query (a batch's jobs have dozens, most new)."""
        wanted = set(shas)
        missing = [sha for sha in wanted if sha not in self.blobs]
        if len(self.blobs) + len(missing) > BLOBS_KEPT:  # most blobs serve one job: keep memory flat
            self.blobs.clear()
            missing = list(wanted)
        rows = rows_for_ids(self.conn, "SELECT sha256, json FROM job_inputs WHERE sha256 IN ({ids})", missing)
        self.blobs.update((sha, self.decode(text)) for sha, text in rows)

    def decode(self, text: str):
        value = jsonio.loads(text)
        return resolve_stored(value, self.db) if STORED in text else value

    def close(self) -> None:
        self.conn.close()


def _with_event_id(outcome: PassOutcome, article) -> PassOutcome:
    return replace(outcome, event_id=_event_id(outcome, article)) if outcome.edit else outcome


def _edit_event(outcome: PassOutcome, article) -> dict:
    job_pass, edit = outcome.job_pass, outcome.edit
    return edit_event(
        article.path, job_pass.pass_name, str(job_pass.pass_version), article.sha256, edit["edited_sha256"],
        edit["diff"], applied=edit["applied"], event_id=outcome.event_id,
    )  # fmt: skip


def _event_id(outcome: PassOutcome, article) -> str:
    """What the edit is: the pass version, the bytes it edits and those it makes, and whether it is applied."""
    job_pass, edit = outcome.job_pass, outcome.edit
    identity = (job_pass.pass_name, job_pass.pass_version, article.path, article.sha256, edit["edited_sha256"],
                edit["applied"])  # fmt: skip
    return "edit-" + hashlib.sha256("|".join(map(str, identity)).encode()).hexdigest()[:32]


class HelperWorker:
    """A build's small rounds worked by its forked helper process (`forks.ForkedHelper`), which loads the passes
    while this one captures and plans: this process then neither imports markdown-it nor runs a pass (an edit
    build's few jobs). A round big enough for several workers, a build without a forked helper, a forked helper
    whose passes are not this process's (a wiki's own pass edited meanwhile) or that died, is worked here.
    """

    def __init__(self, helper: ForkedHelper, config: Config, meanwhile: list[Callable[[], object]] | None = None) -> None:
        """`meanwhile`: steps this process takes while the forked helper loads the passes or works a round, one after
        another, as long as the helper is still at it (what the build needs later anyway: the render's code and what
        it reads)."""
        self.helper, self.config, self.home = helper, config, os.getpid()
        self.meanwhile = list(meanwhile or ())
        self.loading = helper.forked  # the forked helper's call in flight is loading the passes
        if self.loading:
            helper.start(_ready, config, self.home)

    def drain(self, specs: list[PassSpec], workers: int) -> WorkerReport:
        """Work the queue until no job is eligible: in the forked helper (one worker), or here with `workers` processes."""
        report = None
        if workers == 1 and self.helper.forked:
            self.wait_until_loaded()
            self.helper.start(_work_in_helper, self.config, _identities(specs), self.home)
            self._take_steps()
            report = self.helper.result()
        return report if report is not None else run_workers(self.config, specs, workers)

    def wait_until_loaded(self) -> None:
        """Let the forked helper end its loading of the passes, before it is given anything else: the steps are
        taken meanwhile (an edit's first round may be planned before the helper has loaded what its jobs need)."""
        if self.loading:
            self.loading = False
            self._take_steps()
            self.helper.result()

    def _take_steps(self) -> None:
        """Take the steps, one after another, while the forked helper's call is still in flight."""
        while self.meanwhile and not self.helper.ready():
            self.meanwhile.pop(0)()


_LOADED: list[tuple[Config, list[PassSpec]]] = []  # a forked helper's passes, of the last config it loaded


def _identities(specs: list[PassSpec]) -> list[tuple]:
    return [(spec.name, spec.version, spec.contract_version, spec.module) for spec in specs]


def _passes_loaded(config: Config) -> list[PassSpec]:
    if not _LOADED or _LOADED[0][0] != config:
        _LOADED[:] = [(config, passes_for(config))]
    return _LOADED[0][1]


def _ready(config: Config, home: int) -> Afterwards | None:
    """In the forked helper, load the passes, and markdown-it with the parsers of an article's parse and of its prose
    (passes load it with a first parse); then, once the build knows it is ready, the contracts' checker and Pygments,
    where code is highlighted (the build plans meanwhile: its first job need not wait for them; an edit's are loaded
    already, `helper_loading`). Made again in the build's process (`home`: the forked helper failed), nothing."""
    if os.getpid() == home:
        return None
    _passes_loaded(config)
    markdown = markdown_setting(config.markdown, config.links)  # the parser the passes ask for, as build.py's options name it
    for raw_html in {bool(config.raw_html), True}:
        make_parser(raw_html=raw_html, markdown=markdown)
    return Afterwards(None, partial(_load_later, highlights_code(config)))


def _load_later(highlighted: bool) -> None:
    """What the forked helper loads once it has answered `_ready`: what a first job needs beyond the passes."""
    load_checker()
    if highlighted:
        load_highlighter()


def _work_in_helper(config: Config, identities: list[tuple], home: int) -> WorkerReport | None:
    """One worker in the forked helper, with the passes it loaded; None where it must not work: in the build's own
    process (the call made again there: the forked helper failed), or with passes other than the build's."""
    if os.getpid() == home:
        return None
    specs = _passes_loaded(config)
    return work(config, specs) if _identities(specs) == identities else None


def work(config: Config, specs: list[PassSpec], *, once: bool = False) -> WorkerReport:
    """Run one worker in this process."""
    worker = Worker(config, specs)
    try:
        return worker.run(once=once)
    finally:
        worker.close()


HELD_POLL = 0.2  # seconds between looks at the jobs another process holds


def run_plan(
    conn: sqlite3.Connection, config: Config, specs: list[PassSpec], workers: int, jobs: Container[int], *,
    waiting: Callable[[int], None] = lambda held: None, wait: Callable[[float], None] = time.sleep,
    helper_worker: HelperWorker | None = None,
) -> WorkerReport:
    """Run workers until every job of `jobs` has ended, here or in another live process that holds
    some (a preview rebuilding the same wiki): those are waited for, until they are done or their
    lease runs out and they are run here. A build never renders without a result a job still owes.
    `waiting` hears how many jobs it waits for, each time that number changes. With `helper_worker`, a round
    for one worker is worked in the build's forked helper process."""
    total = helper_worker.drain(specs, workers) if helper_worker is not None else run_workers(config, specs, workers)
    told = 0
    while leases := held_leases(conn, jobs):
        if len(leases) != told:
            told = len(leases)
            waiting(told)
        wait(min(HELD_POLL, max(0.0, min(leases) - time.time())))
        total.add(run_workers(config, specs, 1))
    return total


def run_workers(config: Config, specs: list[PassSpec], workers: int, *, once: bool = False) -> WorkerReport:
    """Drain the queue with `workers` processes: this one alone, or that many forked children while it waits.

    Forked children share the loaded passes and their compiled contracts. What a worker loads and fills as
    it goes (the parsers, the highlighter and its lexers, the checker, their caches) stays in the children:
    the build's own process holds the wiki to the end, and its peak of memory comes after, as it plans the
    next round. A child's full disk is told as a full disk (`disk_full_is_an_error`), another failure by
    what it raised.
    """
    total = WorkerReport()
    count = max(1, workers)
    try:
        reports = Later(lambda _: work(config, specs, once=once), list(range(count)), count).result()
    except ForkedError as exc:
        if full_disk_message(exc, []) is not None:
            raise
        raise UserError(f"a worker process failed ({exc.raised()}); its jobs are recovered by the next run") from None
    for report in reports:
        total.add(report)
    return total
