"""The build, as a script: capture, plan, work, (render), report.

Passes run in rounds: a round's jobs can only be fingerprinted once the
results of the passes it NEEDS exist, so each round is planned, drained by
the workers, and its results handed to the next round.
"""

from __future__ import annotations

import functools
import gc
import sqlite3
import time
from collections import Counter
from contextlib import closing, contextmanager
from dataclasses import dataclass, field
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from pipeline.config import Config, worker_count
from pipeline.content.article import Article
from pipeline.content.attachments import attachment_hashes
from pipeline.content.capture import CaptureReport, capture_content, current_capture_ids, load_articles, read_ahead
from pipeline.content.facts import LOG_KEPT, Change, Facts, fact_sources, gather, read_data_files
from pipeline.content.scan import require_content_folder, scan_sources
from pipeline.content.source import folders_are_languages
from pipeline.diagnostics import Diagnostic, collect, listed, listed_for
from pipeline.incremental.build_stamp import (
    LastBuild, diagnostics_path, forget_last, load_last, save_diagnostics, save_last, stamp_of,
)
from pipeline.incremental.code_digest import code_digest
from pipeline.incremental.job_reuse import PACK_FOUND, Digests, PlanCache, read_results, pack_memos
from pipeline.jobs.plan import failed_jobs, load_results, plan_round
from pipeline.jobs.worker import HelperWorker, WorkerReport, passes_for, run_plan
from pipeline.markdown.extensions import setting as markdown_setting
from pipeline.passes.base import Wiki
from pipeline.passes.contract import PassSpec
from pipeline.passes.registry import rounds
from pipeline.runtime.build_lock import build_lock
from pipeline.runtime.console import SILENT, Progress
from pipeline.runtime.disk_full import disk_full_is_an_error
from pipeline.runtime.forks import ForkedHelper
from pipeline.runtime.libc import give_back_memory
from pipeline.site import MANIFEST, SiteReport, search_pending, site_intact
from pipeline.site.emitters import setting as emitters_setting
from pipeline.site.output import refuse_foreign, refuse_unsafe
from pipeline.site.theme import theme_digest
from pipeline.storage.results import ResultFacts, stored_diagnostics
from pipeline.storage.store import db_path, open_store, store_identity
from pipeline.urls import normalize_base

if TYPE_CHECKING:  # the search code loads with the page code, when a build renders
    from pipeline.site.search import BackgroundIndex


@dataclass
class ProcessReport:
    """Jobs planned and run over all rounds, and the results of the current captures."""

    created_jobs: list[tuple[str, str]] = field(default_factory=list)  # (path, pass name) of new jobs
    reused: int = 0
    work: WorkerReport = field(default_factory=WorkerReport)
    wiki: Wiki | None = None
    problems: list[tuple[str, int, str]] = field(default_factory=list)  # data files that did not parse
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (path, pass, error) of failed jobs
    notices: list[tuple[str, str, str]] = field(default_factory=list)  # files the capture left out or renamed
    diagnostics: list[Diagnostic] = field(default_factory=list)  # the info ones too, unless asked for none
    unlisted_info: int = 0  # info diagnostics counted but not listed (a build asked for none: `info=False`)
    skipped: bool = False  # nothing the build reads had changed since the last complete one


@dataclass
class BuildCache:
    """What a long-lived process (`serve`) keeps from one build to the next.

    Captures and results never change once written, so what a build read by capture id or job
    id is still true for the next build of the same store, which reads from SQLite only the
    captures and results it has not seen. It holds what the last build used, nothing older.
    """

    store: tuple = ()  # `store_identity` of the database it was read from
    articles: dict[int, Article] = field(default_factory=dict)  # capture id -> StoredArticle
    facts: ResultFacts = field(default_factory=dict)  # job id -> (digest, reports) of its result
    texts: dict[int, str] = field(default_factory=dict)  # job id -> its result's output JSON, once read
    summaries: dict = field(default_factory=dict)  # what the last build's pages took of their results (page_summaries.py)
    plans: PlanCache = field(default_factory=PlanCache)  # the plan memos it read or wrote

    def open(self, conn: sqlite3.Connection) -> BuildCache:
        """Itself, emptied first when `conn` is not the store it was read from."""
        identity = store_identity(conn)
        if identity != self.store:
            self.store, self.articles, self.facts, self.texts, self.plans = identity, {}, {}, {}, PlanCache()
        return self

    def keep(self, articles: list[Article], jobs: set[int]) -> None:
        self.articles = {article.capture_id: article for article in articles}
        self.facts = {job: fact for job, fact in self.facts.items() if job in jobs}
        self.texts = {job: text for job, text in self.texts.items() if job in jobs}


@dataclass
class BuildReport:
    capture: CaptureReport
    process: ProcessReport
    seconds: float
    site: SiteReport | None = None  # None when the build wrote no site (`check`)


# The options of wiki.yaml every pass and the site may read, besides those a pass declares (`Pass.wiki_options`).
WIKI_WIDE = ("languages", "default_language", "base_url")


def wiki_options(config: Config, specs: list[PassSpec], paths: list[str] | None = None) -> dict:
    """The options passes read (through `select`, so they are part of fingerprints): the wiki-wide ones and
    those the passes declare; `base_url` as the site is published under it (`docs` is `/docs/`); `markdown`
    as the resolved extension table's text (`markdown/extensions.py`); `language_folders` found from the
    articles' `paths` when wiki.yaml leaves it open."""
    names = sorted({*WIKI_WIDE, *(name for spec in specs for name in spec.wiki_options)})
    options = {**{name: getattr(config, name) for name in names}, "base_url": normalize_base(config.base_url),
               "markdown": markdown_setting(config.markdown)}  # fmt: skip
    if options.get("language_folders") is None and paths is not None:
        options["language_folders"] = folders_are_languages(paths, config.languages)
    return options


def plan_captures(conn: sqlite3.Connection, config: Config, specs: list[PassSpec]) -> int:
    """Create the jobs of the first round (passes that read only their capture); return how many."""
    articles = load_articles(conn, current_capture_ids(conn))
    wiki = Wiki(options=wiki_options(config, specs, [article.path for article in articles]), articles=articles,
                attachments=attachment_hashes(conn))  # fmt: skip
    first = rounds(specs)[0]
    return len(plan_round(conn, first, articles, wiki, max_attempts=config.jobs.max_attempts, now=time.time()).created)


def process(
    conn: sqlite3.Connection, config: Config, specs: list[PassSpec], workers: int, progress: Progress = SILENT,
    gathered: Facts | None = None, build_cache: BuildCache | None = None, helper_worker: HelperWorker | None = None,
    read: dict[int, Article] | None = None,
) -> ProcessReport:
    """Plan and drain every round for the current captures (with `build_cache`, reading only what it lacks; with
    `helper_worker`, the small rounds worked in the build's helper process; `read`: articles read ahead, by capture id)."""
    report = ProcessReport()
    gathered = gathered or gather(conn, config.content_dir)
    known = build_cache.open(conn) if build_cache is not None else None
    # Selects read few texts: they are left in the store.
    ahead = known.articles if known is not None else read
    articles = load_articles(conn, gathered.capture_ids, text=False, known=ahead)
    options = wiki_options(config, specs, [article.path for article in articles])
    wiki = Wiki(options=options, articles=articles, data=gathered.data, facts=gathered.facts,
                attachments=attachment_hashes(conn))  # fmt: skip
    report.problems = gathered.problems
    digests: Digests = {name: {} for name in read_results(specs)}  # only the results some select reads
    paths = {article.capture_id: article.path for article in articles}
    used: set[int] = set()
    # Results known by job id: the memos' (read with them) and, in a long-lived process, the last builds'.
    facts: ResultFacts = known.facts if known is not None else {}
    texts: dict[int, str] = known.texts if known is not None else {}
    waiting = lambda held: progress.stage(f"waiting for {held} jobs another process holds")  # noqa: E731
    planned_rounds = rounds(specs)
    for number, round_specs in enumerate(planned_rounds, start=1):
        plan = plan_round(
            conn, round_specs, articles, wiki, max_attempts=config.jobs.max_attempts, now=time.time(), workers=workers,
            digests=digests, cache=known and known.plans, results=facts,
        )  # fmt: skip
        wiki.forget()  # the indexes selects built for this round: tens of MB no later round reads
        # Small rounds are not worth the start-up of worker processes.
        count = workers if len(plan.created) > 200 else 1
        if known is None:  # a command line's build: what no later select reads need not stay (pages read theirs)
            release_outputs(wiki, planned_rounds[number:])
            if count > 1:  # the workers forked next start from this process's pages; else they are used again
                give_back_memory()  # (given back after an edit's rounds instead, the workers fault far more pages in)
        report.created_jobs += [(paths[capture_id], name) for capture_id, name in plan.created]
        report.reused += plan.reused
        progress.stage(", ".join(spec.name for spec in round_specs), len(plan.created))
        used.update(plan.job_ids())  # the build's jobs so far: the earlier rounds' have all ended
        report.work.add(run_plan(conn, config, specs, count, used, waiting=waiting, helper_worker=helper_worker))
        progress.advance(len(plan.created))
        lazy = {spec.name: spec.lazy_fields for spec in round_specs}
        wiki.results.update(load_results(conn, plan, digests, lazy, facts, texts))
        report.failures += failed_jobs(conn, plan)
    report.wiki = wiki
    if known is not None:
        known.keep(articles, used)
    return report


def release_outputs(wiki: Wiki, later_rounds: list[list[PassSpec]]) -> None:
    """Let go of the outputs selects read, but those the passes of `later_rounds` need: after a
    cold build's last plan, a lot of JSON, mostly mentions and links outputs no page shows."""
    needed = {name for specs in later_rounds for spec in specs for name in spec.needs}
    for name, outputs in wiki.results.items():  # a build's are all StoredOutputs (`load_results`)
        if name not in needed:
            outputs.release()


@contextmanager
def collector_paused():
    """Run the block with Python's cyclic garbage collector off (and so the processes it forks).

    A build loads and makes millions of objects that live until it ends (articles,
    results, the site model, the planned pages) and almost no cyclic garbage: a cold
    build of a big wiki leaves next to no cyclic objects in each process.
    With the collector on, each full collection walked every one of those live objects
    again: a large part of an edit build of a big wiki, collecting nothing.
    Reference counting still frees everything else as it goes. The collector comes back
    as the caller had it: a command line process keeps it off to the end (`cli.entry`),
    the preview server and tests turn it on, so each build's cyclic garbage is collected.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:  # its first collection then walks everything the build returned
            gc.enable()


def render(
    config: Config, specs: list[PassSpec], wiki: Wiki, log: list[Change], progress: Progress, workers: int,
    intact: bool, written: Callable[[], None], build_cache: BuildCache | None = None, search_later: BackgroundIndex | None = None,
) -> SiteReport:
    """Write the site into the output folder from the results (`intact`: every file of the last site is there)."""
    # Loaded here, not above: a build with nothing to do never needs the page code or Jinja.
    from pipeline.incremental.page_summaries import PageSummaries
    from pipeline.site.emitters import resolve
    from pipeline.site.publish import render_site

    progress.stage("render")
    versions = {spec.name: spec.version for spec in specs}
    summaries = PageSummaries(build_cache.summaries) if build_cache is not None else None  # a command line's are let go once used
    emitters = resolve(config.emitters)
    report = render_site(
        config, wiki, log, versions, emitters.entries, emitters.setting, tick=progress.advance, workers=workers,
        intact=intact, written=written, summaries=summaries, search_later=search_later,
    )  # fmt: skip
    if build_cache is not None:
        build_cache.summaries = summaries.used
    return report


def build(
    config: Config, *, workers: int | None = None, site: bool = False, progress: Progress = SILENT, reuse: bool = True,
    written: Callable[[], None] = lambda: None, build_cache: BuildCache | None = None, search_later: BackgroundIndex | None = None,
    info: bool = True, force: bool = False, wait: bool = True,
) -> BuildReport:
    """capture -> plan -> work, for every round -> render (with `site`) -> report.

    When nothing the build reads changed since the last complete build of the
    same kind, planning, work and rendering are skipped (`reuse=False` forces them).
    `written` is called once the site's pages are in place, before its search index is rebuilt.
    `build_cache`, kept by a long-lived process from build to build, saves reading again what it read.
    `search_later` (a `site.search.BackgroundIndex`, the preview's) builds the search index in the background;
    a run still indexing the last build's pages is stopped first (this build replaces them, and needs the CPU).
    Without `info`, the report counts the info diagnostics (suggestions) but lists none: in a big wiki with
    mention suggestions, they are most of them.

    A build that writes the site refuses an output folder it must not write (`site.output`; a non-empty one
    `pipeline` did not write, unless `force`), and holds the wiki's build lock (`build_lock`: without
    `wait`, BuildBusy when another build holds it). A full disk is a UserError naming the path.
    """
    require_content_folder(config.content_dir)  # a build that fails so makes nothing in the state folder
    if search_later is not None:
        search_later.stop()  # before the lock: its run holds a share of it
    options = dict(workers=workers, site=site, progress=progress, reuse=reuse, written=written, build_cache=build_cache,
                   search_later=search_later, info=info)  # fmt: skip
    with disk_full_is_an_error([config.out_dir, config.state_dir] if site else [config.state_dir]):
        if not site:
            return _build(config, **options)
        refuse_unsafe(config.out_dir, config.content_dir, config.state_dir)
        with build_lock(config.state_dir, wait=wait):
            refuse_foreign(config.out_dir, config.state_dir / MANIFEST, force)
            return _build(config, **options)


@collector_paused()
def _build(
    config: Config, *, workers: int | None, site: bool, progress: Progress, reuse: bool,
    written: Callable[[], None], build_cache: BuildCache | None, search_later: BackgroundIndex | None, info: bool,
) -> BuildReport:
    """`build`, once the output folder is known safe and the lock held."""
    started = time.perf_counter()
    count = worker_count(config, workers)
    checked = site and reuse  # whether every file of the last site is still there (a build may be skipped)
    # Forked first, while this process is small: one walks and stats the content folder while this one loads
    # the passes, then lists the diagnostics while it renders; the other looks for the last site's files (one
    # lookup each), asked for when a build may be skipped, else when it renders: it gives way to the others.
    with ForkedHelper(forked=count > 1 and build_cache is None) as helper, ForkedHelper(forked=checked, nice=10) as checker:
        conn = open_store(config.state_db)
        try:
            helper.start(scan_sources, config, db_path(conn))
            if checked:
                checker.start(site_intact, config)
            intact = functools.cache(checker.result) if checked else lambda: False
            specs = passes_for(config)
            kind = "build" if site else "check"
            read = read_ahead(conn, helper.ready)  # the last build's articles, while the forked helper scans
            captured = capture_content(conn, config, workers=count, scanned=helper.result)
            data_files = read_data_files(config.content_dir)  # once: the stamp names these bytes, `gather` parses them
            stamp = build_stamp(config, specs, fact_sources(conn, config.content_dir, captured.commit, data_files),
                                captured, site)  # fmt: skip
            last = load_last(config, kind, stamp, info) if reuse else None
            if last and (not site or (intact() and not search_pending(config))):
                return skipped(captured, last, site, time.perf_counter() - started)
            forget_last(config, kind)
            helper_worker = HelperWorker(helper, config)  # the forked helper loads the passes, to work the small rounds
            gathered = gather(conn, config.content_dir, captured.current, config.state_dir / LOG_KEPT, data_files)
            processed = process(conn, config, specs, count, progress, gathered, build_cache, helper_worker, read)
            processed.notices = captured.notices
            helper_worker.wait_until_loaded()
            saved = diagnostics_path(config, kind) if not processed.failures else None
            listing = list_diagnostics(processed, helper, stamp, saved, info, memos_to_pack(processed, specs))
            rendered = None
            if site:
                rendered = render(
                    config, specs, processed.wiki, gathered.log, progress, count, intact(), written, build_cache, search_later
                )  # fmt: skip
            processed.diagnostics, processed.unlisted_info = listing()
            if not processed.failures:
                counts = site_counts(rendered) if site else {}
                save_last(config, kind, stamp, len(processed.created_jobs) + processed.reused, counts)
        finally:
            progress.close()
            conn.close()
    return BuildReport(captured, processed, time.perf_counter() - started, rendered)


def skipped(captured: CaptureReport, last: LastBuild, site: bool, seconds: float) -> BuildReport:
    """The report of a build that had nothing to do: the last complete one's, every job reused."""
    processed = ProcessReport(
        reused=last.jobs, diagnostics=last.diagnostics, unlisted_info=last.unlisted_info, skipped=True
    )  # fmt: skip
    rendered = SiteReport(**last.site, unchanged=last.site["files"]) if site else None
    return BuildReport(captured, processed, seconds, rendered)


def site_counts(rendered: SiteReport) -> dict[str, int]:
    return {"pages": rendered.pages, "redirects": rendered.redirects, "files": rendered.files}


def memos_to_pack(processed: ProcessReport, specs: list[PassSpec]) -> list[tuple[str, int]]:
    """(name, version) of the passes whose plan memo now lacks more result digests than the next plan
    would rather look up than pack (`job_reuse.PACK_FOUND`): the memo was saved before the jobs it
    names ran (a cold build's, every entry)."""
    created = Counter(name for _, name in processed.created_jobs)
    return [(spec.name, spec.version) for spec in specs if created[spec.name] > PACK_FOUND]


def list_diagnostics(
    processed: ProcessReport, helper: ForkedHelper, stamp: str, saved: Path | None, info: bool,
    to_pack: list[tuple[str, int]] = (),
) -> Callable[[], tuple[list[Diagnostic], int]]:
    """Start listing the build's diagnostics, and saving them all at `saved` (when given) for a later build
    that may reuse them (`save_diagnostics`); the function returned gives them (`listed_for`: without
    `info`, those not info, and how many it left out).

    A forked `helper` lists them while this one renders: in a big wiki, reading them from
    the results, sorting and saving them is a noticeable part of an edit build. It then packs the memos
    of the passes `to_pack` (`job_reuse.pack_memos`), which the next build would pack otherwise.
    Else they are listed here, from the outputs this process read too.
    """
    wiki, problems, failures, notices = processed.wiki, processed.problems, processed.failures, processed.notices
    if not helper.forked:
        diagnostics = collect(wiki, problems, failures, notices)
        if saved is not None:
            save_diagnostics(saved, stamp, diagnostics)
        return lambda: listed_for(diagnostics, info)
    stored = [(outputs.db, outputs.reporting()) for outputs in wiki.results.values()]  # a build's: StoredOutputs
    paths = {article.capture_id: article.path for article in wiki.articles}
    helper.start(_listed_stored, stored, paths, problems, failures, notices, saved, stamp, info, to_pack)
    return lambda: _as_diagnostics(*helper.result())


def _listed_stored(
    stored: list[tuple[str, list[tuple[int, int]]]], paths: dict[int, str], problems: list, failures: list,
    notices: list, saved: Path | None, stamp: str, info: bool, to_pack: list[tuple[str, int]],
) -> tuple[list[tuple], int]:
    """The forked helper's work (`list_diagnostics`): the diagnostics of the `stored` results (store, and the
    capture id and job id of each result that may report one), those listed as plain tuples."""
    reports = (found for db, reporting in stored for found in stored_diagnostics(db, reporting, {}))
    diagnostics = listed(reports, paths, problems, failures, notices)
    if saved is not None:
        save_diagnostics(saved, stamp, diagnostics)
    if to_pack and stored:
        with closing(open_store(Path(stored[0][0]))) as conn:
            pack_memos(conn, to_pack)
    shown, unlisted = listed_for(diagnostics, info)
    return list(map(tuple, shown)), unlisted


def _as_diagnostics(rows: list[tuple], unlisted: int) -> tuple[list[Diagnostic], int]:
    # Sent as plain tuples, made named tuples here without a call each: faster than unpickling named tuples.
    return list(map(tuple.__new__, repeat(Diagnostic), rows)), unlisted


def build_stamp(config: Config, specs: list[PassSpec], sources: dict, captured: CaptureReport, site: bool) -> str:
    settings = {}
    if site:
        settings = {"out": str(config.out_dir.resolve()), "site_name": config.site_name,
                    "base_url": normalize_base(config.base_url), "search": config.search,
                    "theme": theme_digest(config.templates_dir), "emitters": emitters_setting(config.emitters)}  # fmt: skip
    options = wiki_options(config, specs)
    sources = {**sources, "notices": captured.notices}  # a file left out is reported until it is not
    return stamp_of(captured.current, specs, options, sources, settings, code_digest())
