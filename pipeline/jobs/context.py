"""The context of one build: what every stage of it reads (`pipeline/build.py` is the script over the stages)."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from pipeline.config import Config
from pipeline.passes.contract import PassSpec
from pipeline.runtime.console import SILENT, Progress
from pipeline.runtime.forks import ForkedHelper

if TYPE_CHECKING:  # loaded when used: the preview's cache, and the worker once a build has work
    from pipeline.incremental.build_cache import BuildCache
    from pipeline.jobs.worker import HelperWorker


@dataclass
class BuildContext:
    """One build's config, store, passes and the processes that run them.

    `helper` is the build's forked helper process: it scans the content folder, loads the passes to work
    the small rounds (`helper_worker`) and lists the diagnostics while the build renders. `cache` is what a
    long-lived process (`serve`) keeps alive from build to build; a command line's build has none.
    """

    config: Config
    conn: sqlite3.Connection
    specs: list[PassSpec]
    workers: int  # processes for a big round and for rendering
    site: bool  # the build writes the site (else it checks)
    helper: ForkedHelper
    progress: Progress = SILENT
    cache: BuildCache | None = None
    helper_worker: HelperWorker | None = None
    info: bool = True  # list the info diagnostics (else count them only)
    written: Callable[[], None] = lambda: None  # called once the site's pages are in place
    search_later: Any = None  # the preview's `site.search.BackgroundIndex`: the search index made in the background

    @property
    def kind(self) -> str:
        """What the last complete build of this kind is kept as: a build writes a site, a check does not."""
        return "build" if self.site else "check"
