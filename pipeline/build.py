"""The build, as a script over its stages: capture, stamp, gather, the rounds of passes, diagnostics, render, report.

Each stage is one line of `_build` and reads one `BuildContext` (`jobs/context.py`); the rounds of passes are
`jobs/rounds.py`'s, the site the emitters' (`site/emitting.py`). A build whose stamp is the last complete one's
(nothing it reads changed) stops after the stamp.
"""

from __future__ import annotations

import gc
import time
from collections import Counter
from contextlib import closing, contextmanager
from dataclasses import dataclass, fields
from itertools import repeat
from pathlib import Path
from typing import TYPE_CHECKING, Callable

from pipeline.config import Config, worker_count
from pipeline.content.capture import CaptureReport, capture_content
from pipeline.content.facts import LOG_KEPT, Change, Facts, fact_sources, gather, read_data_files
from pipeline.content.scan import require_content_folder
from pipeline.diagnostics import Diagnostic, collect, listed, listed_for
from pipeline.incremental.build_stamp import (
    LastBuild, diagnostics_path, forget_last, load_last, save_diagnostics, save_last, stamp_of,
)
from pipeline.incremental.code_digest import code_digest
from pipeline.jobs.context import BuildContext
from pipeline.jobs.helper_loading import FEW_CHANGED, scan_then_load
from pipeline.jobs.report import ProcessReport
from pipeline.passes.base import Wiki
from pipeline.passes.contract import PassSpec
from pipeline.passes.options import wiki_options
from pipeline.passes.registry import passes_for
from pipeline.runtime.build_lock import build_lock
from pipeline.runtime.console import SILENT, Progress
from pipeline.runtime.disk_full import disk_full_is_an_error
from pipeline.runtime.forks import ForkedHelper
from pipeline.site import MANIFEST, LastRender, LastSite, SiteCheck, SiteReport, search_pending
from pipeline.site.emitters import setting as emitters_setting
from pipeline.site.output import refuse_foreign, refuse_unsafe
from pipeline.site.theme import theme_digest
from pipeline.storage.results import stored_diagnostics
from pipeline.storage.store import db_path, open_store
from pipeline.urls import normalize_base

if TYPE_CHECKING:  # the search code loads with the page code, when a build renders
    from pipeline.incremental.build_cache import BuildCache
    from pipeline.site.search import BackgroundIndex


@dataclass
class BuildReport:
    capture: CaptureReport
    process: ProcessReport
    seconds: float
    site: SiteReport | None = None  # None when the build wrote no site (`check`)


def build(
    config: Config, *, workers: int | None = None, site: bool = False, progress: Progress = SILENT, reuse: bool = True,
    written: Callable[[], None] = lambda: None, build_cache: BuildCache | None = None, search_later: BackgroundIndex | None = None,
    info: bool = True, force: bool = False, wait: bool = True, looked: ForkedHelper | None = None,
    scanning: ForkedHelper | None = None,
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
    `looked`: a process a command line forked at its start, looking for the last site's files (`site.look_ahead`);
    `scanning`: the build's helper, forked then too, scanning the content folder (`commands.build.scan_ahead`).
    """
    require_content_folder(config.content_dir)  # a build that fails so makes nothing in the state folder
    if search_later is not None:
        search_later.stop()  # before the lock: its run holds a share of it
    options = dict(workers=workers, site=site, progress=progress, reuse=reuse, written=written, build_cache=build_cache,
                   search_later=search_later, info=info, looked=looked, scanning=scanning)  # fmt: skip
    with disk_full_is_an_error([config.out_dir, config.state_dir] if site else [config.state_dir]):
        if not site:
            return _build(config, **options)
        refuse_unsafe(config.out_dir, config.content_dir, config.state_dir)
        with build_lock(config.state_dir, wait=wait):
            refuse_foreign(config.out_dir, config.state_dir / MANIFEST, force)
            return _build(config, **options)


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


@collector_paused()
def _build(
    config: Config, *, workers: int | None, site: bool, progress: Progress, reuse: bool,
    written: Callable[[], None], build_cache: BuildCache | None, search_later: BackgroundIndex | None, info: bool,
    looked: ForkedHelper | None, scanning: ForkedHelper | None,
) -> BuildReport:
    """`build`, once the output folder is known safe and the lock held: one line per stage."""
    started = time.perf_counter()
    count = worker_count(config, workers)
    checked = site and reuse  # whether every file of the last site is still there (a build may be skipped)
    # Forked first, while this process is small: one walks and stats the content folder while this one loads
    # the passes, then lists the diagnostics while it renders; the other looks for the last site's files (one
    # lookup each), asked for when a build may be skipped, else when it renders: it gives way to the others.
    looked = looked if checked else None  # a look the build does not ask for is ended unread
    with scanning or ForkedHelper(forked=count > 1 and build_cache is None) as helper, \
            looked or ForkedHelper(forked=checked, nice=10) as checker, closing(open_store(config.state_db)) as conn:  # fmt: skip
        context = BuildContext(config, conn, [], count, site, helper, progress, build_cache, info=info, written=written,
                               search_later=search_later)  # fmt: skip
        try:
            intact = start_helpers(context, checker, checked, looked is not None, scanning is not None)
            captured = capture(context, intact)
            stamp, data_files = stamp_build(context, captured)
            last = load_last(config, context.kind, stamp, info) if reuse else None
            if last and (not site or (intact().intact and not search_pending(config))):
                return skipped(captured, last, site, time.perf_counter() - started, intact().put_back)
            forget_last(config, context.kind)
            last_render = start_work(context)
            gathered = gather(conn, config.content_dir, captured.current, config.state_dir / LOG_KEPT, data_files,
                              captured.git)
            processed = process(context, gathered)
            listing = list_diagnostics(context, processed, captured, stamp)
            rendered = render(context, processed.wiki, gathered.log, intact(), last_render) if site else None
            finish(context, stamp, processed, listing, rendered)
        finally:
            progress.close()
    return BuildReport(captured, processed, time.perf_counter() - started, rendered)


def start_helpers(
    context: BuildContext, checker: ForkedHelper, checked: bool, looked: bool, scanning: bool,
) -> SiteCheck:
    """Start the forked helpers: one scans the content folder (and for an edit loads what its jobs need:
    `helper_loading`; unless `scanning`, under way since the command line's start), the other (when `checked`)
    looks for the last site's files, or (`looked`) goes on from the look it was given at the command line's start;
    return how to ask the second whether they are all there."""
    if not scanning:
        context.helper.start(scan_then_load, context.config, db_path(context.conn))
    return SiteCheck(context.config, checker, looked, needed=checked)


def capture(context: BuildContext, intact: SiteCheck) -> CaptureReport:
    """Load the passes, then capture the content folder the forked helper scanned meanwhile. A scan that found many
    files changed (a fresh checkout's, in CI) makes a long capture: the look for the last site's files is answered
    first (`intact`), so that those missing (CI's empty output folder) are put back while the capture reads."""
    context.specs = passes_for(context.config)
    scan = context.helper.result()
    if len(scan.unvouched) > FEW_CHANGED:
        intact.settle()
    return capture_content(context.conn, context.config, workers=context.workers, scanned=scan)


def start_work(context: BuildContext) -> LastRender | None:
    """Have the forked helper load the passes to work the small rounds (`HelperWorker`: its code loads here, as a
    build with nothing to do works none); return what the last render left, which this process reads meanwhile."""
    from pipeline.jobs.worker import HelperWorker

    last_render = LastRender(context.config) if context.site else None
    meanwhile = last_render.steps(load_render_code) if last_render is not None else []
    context.helper_worker = HelperWorker(context.helper, context.config, meanwhile)
    return last_render


def stamp_build(context: BuildContext, captured: CaptureReport) -> tuple[str, dict]:
    """The build's stamp (`build_stamp`), and the data files read for it: once, `gather` parses those bytes."""
    config = context.config
    data_files = read_data_files(config.content_dir)
    sources = fact_sources(context.conn, config.content_dir, captured.commit, data_files)
    return build_stamp(config, context.specs, sources, captured, context.site), data_files


def process(context: BuildContext, gathered: Facts) -> ProcessReport:
    """Every round of passes (`jobs/rounds.py`): its planning code loads here, as a build with nothing to do
    plans nothing."""
    from pipeline.jobs.rounds import run_rounds

    return run_rounds(context, gathered)


def finish(
    context: BuildContext, stamp: str, processed: ProcessReport, listing: Callable, rendered: SiteReport | None,
) -> None:
    """Take the listed diagnostics, and keep the build as the last complete one of its kind (none failed)."""
    processed.diagnostics, processed.unlisted_info = listing()
    if not processed.failures:
        counts = site_counts(rendered) if rendered is not None else {}
        save_last(context.config, context.kind, stamp, len(processed.created_passes) + processed.reused, counts)


def load_render_code() -> None:
    """Import the render's modules: here, not above, as a build with nothing to do never needs the page code or Jinja."""
    import pipeline.site.publish  # noqa: F401


def render(context: BuildContext, wiki: Wiki, log: list[Change], last_site: LastSite, last_render: LastRender) -> SiteReport:
    """Write the site into the output folder from the results (`last_site`: whether every file of the last site is
    there, put back or not; `last_render`: what the last build's render left, maybe read already)."""
    from pipeline.incremental.page_summaries import PageSummaries
    from pipeline.site.emitters import resolve
    from pipeline.site.publish import render_site

    config, cache, progress = context.config, context.cache, context.progress
    progress.stage("render")
    versions = {spec.name: spec.version for spec in context.specs}
    summaries = PageSummaries(cache.summaries) if cache is not None else None  # a command line's are let go once used
    emitters = resolve(config.emitters)
    report = render_site(
        config, wiki, log, versions, emitters.entries, emitters.setting, tick=progress.advance,
        workers=context.workers, intact=last_site.intact, written=context.written, summaries=summaries,
        search_later=context.search_later, last_render=last_render,
    )  # fmt: skip
    if cache is not None:
        cache.summaries = summaries.used
    report.put_back = last_site.put_back
    return report


def skipped(captured: CaptureReport, last: LastBuild, site: bool, seconds: float, put_back: int = 0) -> BuildReport:
    """The report of a build that had nothing to do: the last complete one's, every job reused (`put_back`: the
    files of the site put back into the output folder)."""
    processed = ProcessReport(
        reused=last.jobs, diagnostics=last.diagnostics, unlisted_info=last.unlisted_info, skipped=True
    )  # fmt: skip
    rendered = SiteReport(**last.site, unchanged=last.site["files"], put_back=put_back) if site else None
    return BuildReport(captured, processed, seconds, rendered)


def site_counts(rendered: SiteReport) -> dict[str, int]:
    return {"pages": rendered.pages, "redirects": rendered.redirects, "files": rendered.files}


def memos_to_pack(processed: ProcessReport, specs: list[PassSpec]) -> list[tuple[str, int]]:
    """(name, version) of the passes whose plan memo now lacks more result digests than the next plan
    would rather look up than pack (`job_reuse.PACK_FOUND`): the memo was saved before the jobs it
    names ran (a cold build's, every entry)."""
    from pipeline.incremental import job_reuse

    created = Counter(name for _, name in processed.created_passes)
    return [(spec.name, spec.version) for spec in specs if created[spec.name] > job_reuse.PACK_FOUND]


def list_diagnostics(
    context: BuildContext, processed: ProcessReport, captured: CaptureReport, stamp: str,
) -> Callable[[], tuple[list[Diagnostic], int]]:
    """Start listing the build's diagnostics, and saving them all for a later build that may reuse them
    (`save_diagnostics`, unless a job failed); the function returned gives them (`listed_for`: without
    `info`, those not info, and how many it left out).

    The forked helper lists them while this one renders: in a big wiki, reading them from the results,
    sorting and saving them is a noticeable part of an edit build. It then packs the memos of the passes
    whose plan memo now lacks more result digests than the next plan would rather look up than pack
    (`job_reuse.PACK_FOUND`: a cold build's memos, saved before the jobs they name ran). Without a forked
    helper they are listed here, from the outputs this process read too.
    """
    processed.notices = captured.notices
    context.helper_worker.wait_until_loaded()
    saved = diagnostics_path(context.config, context.kind) if not processed.failures else None
    wiki, problems, failures, notices = processed.wiki, processed.problems, processed.failures, processed.notices
    if not context.helper.forked:
        diagnostics = collect(wiki, problems, failures, notices)
        if saved is not None:
            save_diagnostics(saved, stamp, diagnostics)
        return lambda: listed_for(diagnostics, context.info)
    to_pack = memos_to_pack(processed, context.specs)
    stored = [(outputs.db, outputs.reporting()) for outputs in wiki.results.values()]  # a build's: StoredOutputs
    paths = {article.capture_id: article.path for article in wiki.articles}
    context.helper.start(_listed_stored, stored, paths, problems, failures, notices, saved, stamp, context.info, to_pack)
    return lambda: _as_diagnostics(*context.helper.result())


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
        from pipeline.incremental.job_reuse import pack_memos

        with closing(open_store(Path(stored[0][0]))) as conn:
            pack_memos(conn, to_pack)
    shown, unlisted = listed_for(diagnostics, info)
    return list(map(tuple, shown)), unlisted


def _as_diagnostics(rows: list[tuple], unlisted: int) -> tuple[list[Diagnostic], int]:
    # Sent as plain tuples, made named tuples here without a call each: faster than unpickling named tuples.
    return list(map(tuple.__new__, repeat(Diagnostic), rows)), unlisted


# Options that change how a build runs, not what it makes: left out of its stamp.
NOT_SITE_SETTINGS = ("content_dir", "state_dir", "out_dir", "workers", "strict", "jobs", "spool")


def build_stamp(config: Config, specs: list[PassSpec], sources: dict, captured: CaptureReport, site: bool) -> str:
    """What a build reads, digested: the same stamp as the last complete build's means nothing changed. A site's
    stamp names every option of wiki.yaml that may change a page (a new option too, without a change here)."""
    settings = {}
    if site:
        options = {f.name: repr(getattr(config, f.name)) for f in fields(config) if f.name not in NOT_SITE_SETTINGS}
        settings = {"out": str(config.out_dir.resolve()), "options": options, "base_url": normalize_base(config.base_url),
                    "theme": theme_digest(config.templates_dir), "emitters": emitters_setting(config.emitters)}  # fmt: skip
    options = wiki_options(config, specs)
    sources = {**sources, "notices": captured.notices}  # a file left out is reported until it is not
    return stamp_of(captured.current, specs, options, sources, settings, code_digest())
