"""`pipeline serve`: build, serve the output folder on loopback, rebuild on change and reload open pages.

Under `--strict` (or `strict: true`) a build with a warning or error fails, as with `mkdocs serve
--strict`; but where MkDocs stops, the preview goes on (it is where the fix is watched): every open
page shows those warnings over it until a build has none, and `serve` exits 1 if its last build failed.
"""

from __future__ import annotations

import argparse
import io
import sys
import threading
from pathlib import Path
from typing import Callable

from pipeline.build import build
from pipeline.incremental.build_cache import BuildCache
from pipeline.commands.build import add_build_options, report_site, summary_line
from pipeline.commands.options import config_from
from pipeline.config import CONFIG_FILE
from pipeline.diagnostics import emit, summary
from pipeline.preview.server import Options, serve
from pipeline.runtime import lifespan
from pipeline.runtime.console import progress_for
from pipeline.site.search import BackgroundIndex

# Printed when the preview's search index is in place (it is built after the pages, in the background).
SEARCH_READY = "Search index ready"


def register(subparsers) -> None:
    parser = subparsers.add_parser("serve", help="build the site, serve it locally and rebuild on every change")
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)")
    parser.add_argument("--port", type=port, default=8000, help="port (default: 8000; 0 picks a free one)")
    parser.add_argument("--no-watch", dest="watch", action="store_false", help="build once; do not watch for changes")
    add_build_options(parser)
    parser.set_defaults(func=run)


def port(text: str) -> int:
    """A TCP port number, for argparse: a usage error otherwise, not a traceback when binding."""
    if not (text.isascii() and text.isdigit() and int(text) <= 65535):
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (0 to 65535; 0 picks a free one)")
    return int(text)


def run(args) -> int:
    lifespan.long_lived()  # each rebuild's cyclic garbage (its template environment) must be collected
    build_cache = BuildCache()  # what one build read, for the next: the preview rebuilds in this process
    first_index = FirstIndex()
    search = BackgroundIndex(warn=lambda line: print(f"pipeline: warning: {line}", file=sys.stderr, flush=True),
                             indexed=first_index.ready)  # fmt: skip

    def build_site(config, written) -> list[str]:
        report = build(
            config, workers=args.workers, site=True, progress=progress_for(sys.stdout), written=written, build_cache=build_cache,
            search_later=search, force=args.force, wait=args.wait,
        )  # fmt: skip
        failed = report_site(args, config, report) != 0  # as `build`: under --strict, a warning fails it
        print(summary_line(report), flush=True)
        if not failed:
            return []
        print("pipeline: error: this build fails under --strict (the preview goes on)", file=sys.stderr, flush=True)
        return strict_problems(config, report.process.diagnostics, report.site.warnings)

    options = Options(args.host, args.port, args.watch, args.config or Path(CONFIG_FILE))
    try:
        problems = serve(lambda: config_from(args), build_site, options, serving=first_index.serving)
    finally:
        search.stop()  # the next build indexes what this run did not (`search-pending`)
    if problems:
        print("pipeline: error: the last build failed under --strict (see its warnings above)", file=sys.stderr)
        return 1
    return 0


class FirstIndex:
    """Says when each search index of the preview is in place, and reloads the open pages when the first one is: a page
    opened before it (its search script missing then) gets its search box. A later index replaces one the pages
    already loaded."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.indexed = False
        self.reload: Callable[[], object] | None = None

    def serving(self, reloads) -> None:
        """The preview serves the site now (`reloads`: what reloads its open pages)."""
        with self.lock:
            if not self.indexed:
                self.reload = reloads.publish

    def ready(self) -> None:
        """An index is in place (called from its run's thread)."""
        print(SEARCH_READY, flush=True)
        with self.lock:
            self.indexed, reload, self.reload = True, self.reload, None
        if reload is not None:
            reload()


def strict_problems(config, diagnostics, site_warnings=(), shown: int = 100) -> list[str]:
    """What open pages show of a build that failed under --strict: a heading, then its warnings and errors
    as the terminal prints them (the first `shown`: a page is no place for thousands), then the site's."""
    failing = [d for d in diagnostics if d.severity in ("error", "warning")]
    lines = io.StringIO()
    emit(failing[:shown], "text", config.content_dir, lines)
    more = [f"... and {len(failing) - shown} more (see the terminal)"] if len(failing) > shown else []
    heading = f"pipeline serve --strict: this build fails: {summary(diagnostics)}"
    return [heading, *lines.getvalue().splitlines(), *more, *(f"pipeline: warning: {line}" for line in site_warnings)]
