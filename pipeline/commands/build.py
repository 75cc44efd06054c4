"""`pipeline build`: capture, plan, work, render and report.

The build's code is loaded once the command line is read, after two processes are forked: the build's helper,
scanning the content folder (`scan_ahead`), and one looking for the last site's files (`site.look_ahead`). A build
with nothing to do waits for both, and would otherwise start them only once its code is loaded.
"""

from __future__ import annotations

import importlib
import sys
from functools import partial
from typing import TYPE_CHECKING, Callable

from pipeline.commands.check import add_check_options, report_diagnostics
from pipeline.commands.options import add_state, config_from
from pipeline.config import Config, worker_count
from pipeline.runtime.build_lock import BUSY_STATUS
from pipeline.runtime.console import progress_for
from pipeline.runtime.forks import Afterwards, ForkedHelper
from pipeline.site import look_ahead

if TYPE_CHECKING:
    from pipeline.content.scan import Scan


def register(subparsers) -> None:
    parser = subparsers.add_parser("build", help="capture the content, run every pass, write the site and report")
    add_build_options(parser)
    parser.set_defaults(func=run)


def add_build_options(parser) -> None:
    """Every option of `build` (`serve` takes them all too)."""
    add_state(parser)
    parser.add_argument("--out", metavar="DIR", help="output folder (default: site)")
    parser.add_argument("--base-url", metavar="URL", help="where the site is published, e.g. /docs/ (default: /)")
    parser.add_argument(
        "--force", action="store_true", help="write into a non-empty output folder pipeline did not write"
    )  # fmt: skip
    parser.add_argument(
        "--no-wait", dest="wait", action="store_false",
        help=f"when another build of this wiki is running, exit {BUSY_STATUS} instead of waiting for it",
    )  # fmt: skip
    add_check_options(parser)


def run(args) -> int:
    config = config_from(args)
    with scan_ahead(config, args.workers) as scanning, look_ahead(config) as looked:
        from pipeline.build import build

        report = build(
            config, workers=args.workers, site=True, progress=progress_for(sys.stdout), info=args.info,
            force=args.force, wait=args.wait, looked=looked, scanning=scanning,
        )  # fmt: skip
    status = report_site(args, config, report)
    print(summary_line(report))
    return status


def scan_ahead(config: Config, workers: int | None) -> ForkedHelper:
    """The build's helper process (`ForkedHelper`), forked now with its scan of the content folder under way
    (`helper_loading.scan_then_load`); for a build in one process, not forked: the scan is made when the capture asks.
    The store is read only if it exists: before the build's checks, nothing is made in the state folder. A capture
    recorded before the build takes the scan (another build's, while this one waits for the lock) makes it scan
    again (`capture_content`)."""
    helper = ForkedHelper(forked=worker_count(config, workers) > 1)
    helper.start(_scan, config, str(config.state_db) if config.state_db.is_file() else None)
    return helper


def _scan(config: Config, db: str | None) -> Scan | Afterwards:
    """`scan_then_load`, whose code loads in the forked process: this one forks before loading it. When the scan
    leaves the helper more to load (an edit's), the build's code loads first: the helper works the edit's jobs and
    lists its diagnostics with it, as a helper forked once this process had loaded it."""
    from pipeline.jobs.helper_loading import scan_then_load

    made = scan_then_load(config, db)
    if not isinstance(made, Afterwards):
        return made
    return Afterwards(made.value, partial(_load_build_then, made.then))


def _load_build_then(then: Callable[[], None]) -> None:
    importlib.import_module("pipeline.build")
    then()


def report_site(args, config, report) -> int:
    """Print the diagnostics and the site's warnings; return the exit status (a site warning, such as a
    search index not built, fails a strict build too)."""
    status = report_diagnostics(args, config, report.process)
    for line in report.site.conflicts + report.site.warnings:
        print(f"pipeline: warning: {line}", file=sys.stderr)
    strict = config.strict if args.strict is None else args.strict
    return status or int(bool(strict and report.site.warnings))


def summary_line(report) -> str:
    """One line: pages written and unchanged, jobs run (and their passes), passes reused, diagnostics (printed
    above), time."""
    captured, processed, site = report.capture, report.process, report.site
    kept = f" ({site.from_kept} kept from the last builds)" if site.from_kept else ""
    put_back = f" ({site.put_back} put back from the state folder)" if site.put_back else ""
    return (
        f"pages {len(site.written)} written{kept}, {site.unchanged} unchanged{put_back}, {len(site.removed)} removed "
        f"({site.pages} pages, {site.redirects} redirects); files {captured.files} captured "
        f"({len(captured.new)} new, {len(captured.removed)} removed); jobs {processed.work.done} run "
        f"({processed.work.passes} passes), {processed.reused} passes reused, {processed.work.failed} failed; "
        f"{report.seconds:.2f}s"
    )
