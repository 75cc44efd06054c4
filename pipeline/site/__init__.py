"""The static site: from pass results to the output folder.

`publish.render_site` is the render step of a build: model (`model.py`,
`pages.py`) -> the outputs, each an emitter (`emitters/`), run over it by
one render path (`emitting.py`; pages through the theme: `render.py`,
`theme.py`) -> output folder (`writer.py`) -> search index (`search.py`,
the `search_index` emitter's once every file is in place). This module
keeps what a build needs without rendering (the report, whether the last
output is still there), so a build with nothing to do loads no template code.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Callable, NamedTuple

from pipeline.config import Config
from pipeline.incremental.kept_pages import KEPT_PAGES, KeptPages
from pipeline.runtime.forks import ForkedHelper
from pipeline.site.shards import loader
from pipeline.site.writer import (
    LastRecord, journal_file, journaled_files, last_render, mark, missing_files, previous_files,
)  # fmt: skip

if TYPE_CHECKING:
    from pipeline.incremental.page_summaries import PageSummaries

MANIFEST = "site-manifest.json"
SEARCH_PENDING = "search-pending"  # in the state folder: pages changed since the search index was last built
PAGE_SUMMARIES = "page-summaries.pickle"  # in the state folder: what each page takes of its results (page_summaries.py)
COMPILED_TEMPLATES = "templates-compiled"  # in the state folder: Jinja's compiled templates, for the next build
BUNDLE = "pagefind"  # in the output folder: every search shard's bundle, the UI and the loader (search.py)
LOADER = "shards.js"
UI_FILES = ("pagefind-ui.js", "pagefind-ui.css")


@dataclass
class SiteReport:
    """What the render step did to the output folder."""

    pages: int = 0  # HTML pages of articles and wiki pages (not redirects)
    redirects: int = 0
    files: int = 0  # every file of the site (pages, redirects, assets, sitemap...)
    written: list[str] = field(default_factory=list)  # files whose bytes changed, relative to the output folder
    put_back: int = 0  # the last build's files put back into the output folder before the build (`site_intact`)
    from_kept: int = 0  # of `written`, the pages put back from the state folder's kept pages (`kept_pages.py`)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # articles that lost their URL to another
    warnings: list[str] = field(default_factory=list)  # e.g. search not indexed
    indexed: bool = False  # Pagefind ran this build
    indexing: bool = False  # Pagefind runs on in the background (the preview's builds)


def search_pending(config: Config) -> bool:
    """The site has pages the search index does not have yet (its indexing failed or was stopped), or
    the index is gone from the output folder."""
    return config.search and ((config.state_dir / SEARCH_PENDING).exists() or not has_index(config.out_dir))


def has_index(out_dir: Path) -> bool:
    """The output folder has the search index: its loader, written once every shard is in place, and the
    UI, which a site without article pages (its loader listing no shards) goes without."""
    root = Path(out_dir) / BUNDLE
    if not (root / LOADER).is_file():
        return False
    ui = all((root / name).is_file() for name in UI_FILES)
    return ui or (root / LOADER).read_text(encoding="utf-8") == loader([])


class LastSite(NamedTuple):
    """Whether every file the last build wrote is in the output folder (`site_intact`), and how many of them were
    put back there from the state folder for that."""

    intact: bool
    put_back: int = 0


class LastFiles(NamedTuple):
    """What a look into the output folder found of the last build's files (`look_for_last_files`)."""

    record: tuple  # the last render's record as it stood (`record_state`): the files were looked up by it
    wrote: bool  # the last build wrote files into this folder
    missing: list[str]


def record_state(config: Config) -> tuple:
    """The last render's record as it stands on disk: its manifest, and the journal a build keeps while it writes the
    site. A build that writes the site changes one or the other."""
    manifest = config.state_dir / MANIFEST
    return tuple(_file_state(path) for path in (manifest, journal_file(manifest)))


def _file_state(path: Path) -> tuple | None:
    try:
        found = os.stat(path)
    except OSError:
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


def look_for_last_files(config: Config) -> LastFiles:
    """The last build's files missing from the output folder: looked up only (nothing written), so it may run before
    the build lock is held (`SiteCheck`)."""
    record = record_state(config)  # before the files are read: a record written meanwhile is not taken for it
    files = previous_files(config.state_dir / MANIFEST, config.out_dir)
    return LastFiles(record, bool(files), missing_files(config.out_dir, files))


def site_intact(config: Config, looked: LastFiles | None = None) -> LastSite:
    """Every file the last build wrote into the output folder is still there, or was put back from the files the
    state folder keeps (an output folder emptied since: a CI job's; `incremental/kept_pages.py`). `looked`: what a
    look found, still standing (else the files are looked up here)."""
    looked = looked or look_for_last_files(config)
    if not looked.wrote or not looked.missing:
        return LastSite(looked.wrote)
    manifest = config.state_dir / MANIFEST
    if journaled_files(manifest, config.out_dir):  # a build stopped since: what the last one left is not known
        return LastSite(False)
    last = last_render(manifest, config.out_dir)
    missing = looked.missing
    try:
        mark(config.out_dir)  # the folder, emptied or made again, is still this build's to write
        restored = KeptPages(config.state_dir / KEPT_PAGES).restore(str(config.out_dir), missing, last.keys, last.hashes)
    except OSError:  # a full disk, a folder that cannot be written: the build plans every page, and says what failed
        return LastSite(False)
    return LastSite(restored, len(missing) if restored else 0)


def look_ahead(config: Config) -> ForkedHelper:
    """A process forked now, at a command line's start, looking for the last site's files (`look_for_last_files`)
    while this one loads the build: a build with nothing to do waits for that look, over every file of the site.
    The build goes on from it (`SiteCheck`)."""
    checker = ForkedHelper(nice=10)
    checker.start(look_for_last_files, config)
    return checker


class SiteCheck:
    """Whether every file of the last site is in the output folder (`site_intact`), asked of a forked process: from
    the start, or (`looked`) going on from the look that process was given before the build lock was held
    (`look_ahead`). The look stands if the last render's record is as it was then (no build wrote the site since);
    else, or if files are missing (to be put back, which needs the lock), the process is asked again. Unless
    `needed` (a build that writes no site, or every page of it), nothing is asked: the answer is no."""

    def __init__(self, config: Config, checker: ForkedHelper, looked: bool = False, needed: bool = True) -> None:
        self.config, self.checker = config, checker
        self.found: LastSite | None = None if needed else LastSite(False)
        self.looking = looked and needed  # the look is in flight; else a call of `site_intact` is, or none
        if not needed:
            return
        if not looked:
            checker.start(site_intact, config)
        elif checker.ready():  # now: files to put back are put back beside the capture
            self._go_on()

    def settle(self) -> None:
        """Take the look's answer now, waiting for it: files it found missing are put back from here on, while
        this process goes on (reading every file of a fresh checkout, in a CI build)."""
        if self.looking:
            self._go_on()

    def _go_on(self) -> None:
        self.looking = False
        looked = self.checker.result()
        standing = looked.record == record_state(self.config)
        if standing and not (looked.wrote and looked.missing):
            self.found = LastSite(looked.wrote)
        else:
            self.checker.start(site_intact, self.config, looked if standing else None)

    def __call__(self) -> LastSite:
        if self.looking:
            self._go_on()
        if self.found is None:
            self.found = self.checker.result()
        return self.found


class LastRender:
    """What the render of the last build left for this one's: its record (`writer.last_render`: each page's digest,
    what the pages were made of, the copied files) and its page summaries, each read once.

    Read when the render asks, or before (`steps`): while an edit build waits for its forked helper to work a
    round's few jobs, it reads these, which no job changes, and loads the render's code.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        self._summaries: PageSummaries | None = None

    @cached_property
    def record(self) -> LastRecord:
        return last_render(self.config.state_dir / MANIFEST, self.config.out_dir)

    def take_summaries(self) -> PageSummaries:
        """The last build's page summaries, given once: the model made, nothing holds them while pages render."""
        if self._summaries is None:
            self._read_summaries()
        summaries, self._summaries = self._summaries, None
        return summaries

    def steps(self, load_code: Callable[[], None]) -> list[Callable[[], None]]:
        """Reading ahead, a step at a time (`load_code` imports the render's modules): the code, the record,
        the page summaries."""
        return [load_code, lambda: self.record, self._read_summaries]

    def _read_summaries(self) -> None:
        from pipeline.incremental.page_summaries import load_summaries  # only a build that renders reads them

        self._summaries = load_summaries(self.config.state_dir / PAGE_SUMMARIES)
