"""`pipeline serve`: build, serve the output folder on loopback, rebuild on change and reload open pages."""

from __future__ import annotations

import sys
from pathlib import Path

from pipeline import lifespan
from pipeline.build import Warm, build
from pipeline.commands.build import add_build_options, summary_line
from pipeline.commands.check import report_diagnostics
from pipeline.commands.options import config_from
from pipeline.config import CONFIG_FILE
from pipeline.console import progress_for
from pipeline.serve import Options, serve
from pipeline.site.search import BackgroundIndex


def register(subparsers) -> None:
    parser = subparsers.add_parser("serve", help="build the site, serve it locally and rebuild on every change")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)")
    parser.add_argument("--port", type=int, default=8000, help="port (default: 8000; 0 picks a free one)")
    parser.add_argument("--no-watch", dest="watch", action="store_false", help="build once; do not watch for changes")
    add_build_options(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    lifespan.long_lived()  # each rebuild's cyclic garbage (its template environment) must be collected
    warm = Warm()  # what one build read, for the next: the preview rebuilds in this process
    search = BackgroundIndex(warn=lambda line: print(f"pipeline: warning: {line}", file=sys.stderr, flush=True))

    def build_site(config, written) -> None:
        report = build(
            config, workers=args.workers, site=True, progress=progress_for(sys.stdout), written=written, warm=warm,
            search_later=search,
        )  # fmt: skip
        report_diagnostics(args, config, report.process)
        for line in report.site.conflicts + report.site.warnings:
            print(f"pipeline: warning: {line}", file=sys.stderr)
        print(summary_line(report), flush=True)

    options = Options(args.host, args.port, args.watch, args.config or Path(CONFIG_FILE))
    try:
        serve(lambda: config_from(args), build_site, options)
    finally:
        search.stop()  # the next build indexes what this run did not (`search-pending`)
    return 0
