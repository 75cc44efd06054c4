"""`pipeline build`: capture, plan, work, render and report."""

from __future__ import annotations

import sys

from pipeline.build import build
from pipeline.commands.check import add_check_options, report_diagnostics
from pipeline.commands.options import add_state, config_from
from pipeline.console import progress_for


def register(subparsers) -> None:
    parser = subparsers.add_parser("build", help="capture the content, run every pass, write the site and report")
    add_build_options(parser)
    parser.set_defaults(func=run)


def add_build_options(parser) -> None:
    """Every option of `build` (`serve` takes them all too)."""
    add_state(parser)
    parser.add_argument("--out", metavar="DIR", help="output folder (default: site)")
    parser.add_argument("--base-url", metavar="URL", help="where the site is published, e.g. /docs/ (default: /)")
    add_check_options(parser)


def run(args) -> int:
    config = config_from(args)
    report = build(config, workers=args.workers, site=True, progress=progress_for(sys.stdout), info=args.info)
    status = report_diagnostics(args, config, report.process)
    for line in report.site.conflicts + report.site.warnings:
        print(f"pipeline: warning: {line}", file=sys.stderr)
    print(summary_line(report))
    return status


def summary_line(report) -> str:
    """One line: pages written and unchanged, jobs run and reused, diagnostics (printed above), time."""
    captured, processed, site = report.capture, report.process, report.site
    return (
        f"pages {len(site.written)} written, {site.unchanged} unchanged, {len(site.removed)} removed "
        f"({site.pages} pages, {site.redirects} redirects); files {captured.files} captured "
        f"({len(captured.new)} new, {len(captured.removed)} removed); jobs {processed.work.done} run, "
        f"{processed.reused} reused, {processed.work.failed} failed; {report.seconds:.2f}s"
    )
