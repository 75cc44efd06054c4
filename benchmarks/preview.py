"""Time the preview (`pipeline serve`) with search on: from an edit to the reload of open pages.

    python benchmarks/preview.py [--articles 1000] [--edits 3] [--wait-search] [--workdir DIR] [--no-build-cache]

It generates a wiki (benchmarks/generate.py), builds it once, then edits one
article's body `--edits` times and runs the preview's rebuild
(`pipeline.preview.server.Rebuilder`, what the watcher calls) after each, printing
the seconds until the reload event, until the rebuild returns, and until
the search index (Pagefind, in the background: `site.search.BackgroundIndex`)
has every page. Each edit comes as soon as the rebuild before it returns,
as a writer saving twice would, so it stops that build's search index;
with `--wait-search` each edit waits for the index first. In process: no
server, no browser. The rebuilds keep what the last one read (a `BuildCache`), as
`serve` does, unless `--no-build-cache`. Never run by CI; a 50-article smoke run
is part of the tests.
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from generate import Shape, generate, path_of  # noqa: E402

from pipeline.build import build  # noqa: E402
from pipeline.incremental.build_cache import BuildCache  # noqa: E402
from pipeline.config import Config  # noqa: E402
from pipeline.preview.server import Rebuilder, Reloads  # noqa: E402
from pipeline.site.search import BackgroundIndex  # noqa: E402


@dataclass
class Timing:
    reload: float  # seconds from the start of the rebuild to the reload event
    built: float  # ... to the end of the rebuild (the search index goes on in the background)
    indexed: float | None = None  # ... to the search index of this edit's pages (None: a later edit stopped it)


class TimedReloads(Reloads):
    """Reloads that note when the last one was published."""

    published_at = 0.0

    def publish(self) -> int:
        self.published_at = time.perf_counter()
        return super().publish()


def time_edits(root: Path, articles: int, edits: int, build_cache: bool = True, wait_search: bool = False) -> list[Timing]:
    """Build a generated wiki of `articles` with search, then time the preview's rebuild after each of `edits`.

    Each edit comes when the rebuild before it returns (with `wait_search`, when its search index
    is done too); the last edit's index is always waited for. Without `build_cache`, each rebuild reads
    every capture and result from the store again.
    """
    generate(root / "wiki", Shape(articles=articles))
    config = Config(content_dir=root / "wiki", out_dir=root / "site", state_dir=root / "state", search=True)
    reloads = TimedReloads()
    kept = BuildCache() if build_cache else None  # as `pipeline serve` keeps it
    search = BackgroundIndex()

    def build_site(config: Config, written) -> None:
        build(config, site=True, written=written, build_cache=kept, search_later=search)

    build_site(config, lambda: None)  # the first build, as `serve` makes it before serving
    search.wait()
    rebuilder = Rebuilder(lambda: config, build_site, reloads)
    target = config.content_dir / path_of(7)
    timings = []
    for edit in range(edits):
        target.write_text(target.read_text(encoding="utf-8") + f"\nEdit number {edit}.\n", encoding="utf-8")
        started = time.perf_counter()
        if not rebuilder.rebuild():
            raise RuntimeError("the preview's rebuild failed")
        timings.append(Timing(reloads.published_at - started, time.perf_counter() - started))
        if wait_search or edit == edits - 1:
            search.wait()
            timings[-1].indexed = time.perf_counter() - started
    return timings


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--articles", type=int, default=1000)
    parser.add_argument("--edits", type=int, default=3)
    parser.add_argument("--workdir", type=Path, help="default: a temporary folder, removed afterwards")
    parser.add_argument("--no-build-cache", dest="build_cache", action="store_false", help="rebuild reading everything again")
    parser.add_argument("--wait-search", action="store_true", help="each edit waits for the search index first")
    args = parser.parse_args(argv)
    root = args.workdir or Path(tempfile.mkdtemp(prefix="pipeline-preview-"))
    try:
        for timing in time_edits(root, args.articles, args.edits, args.build_cache, args.wait_search):
            index = f"{timing.indexed:.2f} s" if timing.indexed is not None else "stopped by the next edit"
            print(f"reload after {timing.reload:.2f} s; rebuild done after {timing.built:.2f} s; search index {index}")
    finally:
        if args.workdir is None:
            shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
