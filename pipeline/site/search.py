"""Full-text search: Pagefind indexes the article pages, in shards (`shards.py`), into `pagefind/`.

The `pagefind[bin]` package ships the binary, so indexing needs no network
and the search works from any static host. Only the article body
(`data-pagefind-body`) is indexed. Each shard is one Pagefind run over a
folder of links to its pages (in the state folder, never published) into a
folder beside its bundle, which then replaces the bundle whole; the search
box's script (`pagefind/shards.js`) and Pagefind's UI files sit at the top
of `pagefind/`, where anything else (a removed shard, a stopped run's
leftovers, the one-bundle layout of earlier versions) is deleted.

A run's bundle is taken only when it is whole (`bundle_check`: Pagefind exits 0
when it could not write), else the last one stays and the shard is indexed
again by the next build; while no bundle was ever made, stand-ins take the
place of the UI files, so no page loads a script that is not there.

A build indexes the shards whose pages changed before it returns (`index_site`).
The preview does it in the background (`BackgroundIndex`): an edit made
meanwhile must not wait for an index of pages it is about to change.
"""

from __future__ import annotations

import functools
import os
import secrets
import shutil
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from pipeline.incremental.kept_pages import place
from pipeline.runtime import build_lock
from pipeline.site import BUNDLE, LOADER, UI_FILES
from pipeline.site.bundle_check import bundle_problem
from pipeline.site.bundles import prune
from pipeline.site.shards import Shard, indexed, loader, record

STAGE = "search-stage"  # in the state folder: links to one shard's pages, for Pagefind to read
KEPT = "search-bundles"  # in the state folder: each shard's bundle, hard links, by the shard's digest
NEXT, OLD = ".next-", ".old-"  # beside a shard's bundle: where a run writes, and the bundle it replaces
ONE_BUNDLE_LEFTOVERS = (".pagefind-next", ".pagefind-old")  # what a stopped run of the one-bundle layout left
STOPPED = "search index not built: stopped"
TIMEOUT = 600
PANIC_NOTE = "note: run with `RUST_BACKTRACE"  # what a Pagefind panic prints after its message
UI_PLACEHOLDER = "/* pipeline: the search index is not built yet: see the build's warning. */\n"

Run = Callable[[list[str]], "tuple[int, str, str] | None"]  # argv -> (status, stdout, stderr); None: stopped


def pagefind(site: Path, bundle: Path) -> list[str]:
    """The command indexing the folder `site` into the folder `bundle` (not silent: its summary, the
    pages it indexed, is checked against the bundle it wrote, `bundle_check`)."""
    return [*_pagefind_binary(), "--site", str(site), "--output-path", str(bundle)]


@functools.cache
def _pagefind_binary() -> tuple[str, ...]:
    """The binary `pagefind[bin]` ships, run directly: through `python -m pagefind` each run
    started a Python first (once per shard). Without it, `python -m pagefind` says what is missing."""
    try:
        import pagefind_bin

        return (str(pagefind_bin.get_executable()),)
    except (ImportError, OSError, RuntimeError):
        return (sys.executable, "-m", "pagefind")


@dataclass(frozen=True)
class Indexing:
    """What to index: the shards of the site in `out_dir` (its state folder keeps what each indexed)."""

    out_dir: Path
    state_dir: Path
    shards: list[Shard]


def index_site(indexing: Indexing, run: Run | None = None, workers: int = 1) -> str | None:
    """Index the shards whose pages changed since they were indexed, `workers` at a time; None when all
    are, else one line saying why not. `run` runs one Pagefind (None: stopped, and nothing more is done).

    Pagefind keeps about one core busy (its CPU time is close to its wall time), so
    shards run side by side on a machine of more.
    """
    run = run or _run_to_end
    root = indexing.out_dir / BUNDLE
    for leftover in ONE_BUNDLE_LEFTOVERS:  # in the output folder, which is published
        shutil.rmtree(indexing.out_dir / leftover, ignore_errors=True)
    shutil.rmtree(indexing.state_dir / STAGE, ignore_errors=True)
    done, warning = indexed(indexing.state_dir), None
    stale = [shard for shard in indexing.shards
             if done.get(shard.folder) != shard.digest or not (root / shard.folder / "pagefind.js").is_file()]
    # A bundle gone from the output folder (emptied since: a CI job's) whose shard's pages are those it indexed comes
    # back from the state folder; the bundles in place are kept there, once, should they go.
    for shard in [shard for shard in indexing.shards if shard not in stale]:
        _keep(indexing, shard)
    for shard in [shard for shard in stale if _put_back(indexing, shard)]:
        stale.remove(shard)
        done[shard.folder] = shard.digest
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        for shard, outcome in zip(stale, pool.map(lambda shard: _index_shard(indexing, shard, run), stale)):
            if outcome is None:
                warning = STOPPED
            elif outcome:
                warning = warning or outcome
            else:
                done[shard.folder] = shard.digest
                record(indexing.state_dir, done)
    if warning is None:
        _finish(root, indexing.shards)
        record(indexing.state_dir, {shard.folder: done[shard.folder] for shard in indexing.shards})
        _forget(indexing.state_dir, {shard.digest for shard in indexing.shards})
    elif warning != STOPPED:
        _make_do(root, indexing.shards)
    return warning


def _index_shard(indexing: Indexing, shard: Shard, run: Run) -> str | None:
    """Index one shard beside its bundle, then put it in its place: "" when done, a warning line,
    or None when stopped (the bundle that was there stays, as it does when the new one is not whole)."""
    bundle = indexing.out_dir / BUNDLE / shard.folder
    stage, fresh = indexing.state_dir / STAGE / shard.folder, bundle.with_name(NEXT + bundle.name)
    for folder in (stage, fresh):
        shutil.rmtree(folder, ignore_errors=True)
    given = _stage(indexing.out_dir, shard.files, stage)
    _start_from(bundle, fresh)
    outcome = run(pagefind(stage, fresh))
    shutil.rmtree(stage, ignore_errors=True)
    warning = None if outcome is None else verdict(*outcome) or _checked(fresh, shard, given, outcome[1])
    if outcome is None or warning:
        shutil.rmtree(fresh, ignore_errors=True)
        return warning
    prune(fresh)  # what the bundle it started from held, and its index no longer reads
    _replace(fresh, bundle)
    _keep(indexing, shard)
    return ""


def _keep(indexing: Indexing, shard: Shard) -> None:
    """Keep the shard's bundle in the state folder by the shard's digest (links: no bytes), unless kept already."""
    kept = indexing.state_dir / KEPT / shard.digest
    bundle = indexing.out_dir / BUNDLE / shard.folder
    if kept.is_dir() or not (bundle / "pagefind.js").is_file():
        return
    making = kept.with_name(f"{NEXT}{kept.name}-{secrets.token_hex(4)}")  # shards are indexed side by side
    shutil.copytree(bundle, making, copy_function=place)
    try:
        making.rename(kept)  # whole or not at all
    except OSError:  # kept meanwhile, by a run of the same pages
        shutil.rmtree(making, ignore_errors=True)


def _put_back(indexing: Indexing, shard: Shard) -> bool:
    """Put the bundle kept for the shard's digest in its place in the output folder; False when none is kept."""
    kept = indexing.state_dir / KEPT / shard.digest
    if not (kept / "pagefind.js").is_file():
        return False
    bundle = indexing.out_dir / BUNDLE / shard.folder
    fresh = bundle.with_name(NEXT + bundle.name)
    shutil.rmtree(fresh, ignore_errors=True)
    fresh.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(kept, fresh, copy_function=place)
    _replace(fresh, bundle)
    return True


def _forget(state_dir: Path, digests: set[str]) -> None:
    """Remove the kept bundles of shards that are no more."""
    folder = state_dir / KEPT
    for kept in folder.iterdir() if folder.is_dir() else ():
        if kept.name not in digests:
            shutil.rmtree(kept, ignore_errors=True)


def _run_to_end(argv: list[str]) -> tuple[int, str, str]:
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        return 1, "", str(exc)
    return done.returncode, done.stdout, done.stderr


def verdict(returncode: int, stdout: str, stderr: str) -> str | None:
    """None for a run that ended well, else one line saying why it did not (a panic's message, not
    the note after it)."""
    if returncode == 0:
        return None
    lines = [line for line in (stderr.strip() or stdout.strip()).splitlines() if not line.startswith(PANIC_NOTE)]
    last = (lines or [f"exit status {returncode}"])[-1]
    if "No module named pagefind" in last or "Could not find" in last:
        return "search index not built: the Pagefind binary is missing (pip install 'pagefind[bin]')"
    return f"search index not built: {last}"


def _checked(fresh: Path, shard: Shard, given: int, output: str) -> str | None:
    """None when the bundle a run wrote at `fresh` from `given` pages is whole, else the warning line."""
    problem = bundle_problem(fresh, given, output)
    if problem is None:
        return None
    folder = next(folder for folder in fresh.parents if folder.is_dir())
    full = "; the disk is full" if os.statvfs(folder).f_bavail == 0 else ""
    return f"search index not built: Pagefind's bundle of {BUNDLE}/{shard.folder} is not whole ({problem}){full}"


def _stage(out_dir: Path, files: tuple[str, ...], stage: Path) -> int:
    """Make `stage` a folder of the shard's pages at their paths in the site (linked, not copied); return how many."""
    staged = 0
    for rel in files:
        if not (out_dir / rel).is_file():  # removed since it was rendered (a page is never listed without one)
            continue
        (stage / rel).parent.mkdir(parents=True, exist_ok=True)
        place(str(out_dir / rel), str(stage / rel))
        staged += 1
    return staged


def _finish(root: Path, shards: list[Shard]) -> None:
    """Write the UI (from a shard's bundle) and the loader, last (`has_index` looks for it), and delete
    what no shard is. A site without article pages gets a loader listing no shards, and no UI."""
    root.mkdir(parents=True, exist_ok=True)
    for name in UI_FILES if shards else ():
        source = root / shards[0].folder / name
        if source.is_file() and (not (root / name).is_file() or (root / name).read_bytes() != source.read_bytes()):
            shutil.copy2(source, root / name)
    (root / LOADER).write_text(loader(shards), encoding="utf-8")
    folders = {shard.folder.rstrip("/") for shard in shards}  # "<lang>/<n>"
    kept = {*(UI_FILES if shards else ()), LOADER} | {folder.split("/")[0] for folder in folders}
    for entry in root.iterdir():
        if entry.name not in kept:
            _remove(entry)
        elif entry.is_dir():
            for inner in entry.iterdir():
                if f"{entry.name}/{inner.name}" not in folders:
                    _remove(inner)


def _make_do(root: Path, shards: list[Shard]) -> None:
    """After a failed run, what the pages load is there all the same: the loader lists the shards whose
    bundle is there (an older one, where the new one failed), and while none is, stand-ins take the place
    of the UI files Pagefind had no bundle to give."""
    present = [shard for shard in shards if (root / shard.folder / "pagefind.js").is_file()]
    if present:
        _finish(root, present)
    else:
        root.mkdir(parents=True, exist_ok=True)
        (root / LOADER).write_text(loader([]), encoding="utf-8")
    for name in UI_FILES:
        if not (root / name).is_file():
            (root / name).write_text(UI_PLACEHOLDER, encoding="utf-8")


def _remove(path: Path) -> None:
    if path.is_dir():
        shutil.rmtree(path, ignore_errors=True)
    else:
        path.unlink(missing_ok=True)


@dataclass
class _Run:
    """One background run; `lock` keeps `stop` and the start of each of its processes apart."""

    thread: threading.Thread | None = None
    process: subprocess.Popen | None = None
    stopped: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)

    def run(self, argv: list[str]) -> tuple[int, str, str] | None:
        """Run one Pagefind to its end, or until `stop` (None)."""
        with self.lock:
            if self.stopped:
                return None
            try:
                self.process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            except OSError as exc:
                return 1, "", str(exc)
        try:
            stdout, stderr = self.process.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            stdout, stderr = self.process.communicate()
        return None if self.stopped else (self.process.returncode, stdout, stderr)


class BackgroundIndex:
    """The preview's search index: Pagefind runs after a build, and the next build does not wait for it.

    `start` stops a run still indexing an older site (out of date, and the new build needs the
    CPU) and indexes the shards out of date, each into a folder beside its bundle, which replaces
    the bundle when its run ends well: a stopped run leaves the bundle it was making whole (and
    those it finished, recorded). `done(warning)` is called, from the run's own thread, for a run
    that ended by itself: None when it indexed. A run started by a build holding the build lock holds
    a share of it until it ends (`build_lock.share`): no other build writes the site meanwhile.
    """

    def __init__(self, warn: Callable[[str], None] = lambda line: None, indexed: Callable[[], None] = lambda: None) -> None:
        self.warn = warn  # gets the line of a run that failed
        self.indexed = indexed  # called when a run has put its index in place
        self._run: _Run | None = None

    def start(self, indexing: Indexing, done: Callable[[str | None], None]) -> None:
        self.stop()
        run = self._run = _Run()
        held = build_lock.share(indexing.state_dir)
        run.thread = threading.Thread(target=self._work, args=(run, indexing, done, held), daemon=True)
        run.thread.start()

    def running(self) -> bool:
        return self._run is not None and self._run.thread.is_alive()

    def stop(self) -> None:
        """Stop the run in progress, if any, and wait until it has ended."""
        run, self._run = self._run, None
        if run is None:
            return
        with run.lock:
            run.stopped = True
            if run.process is not None and run.process.poll() is None:
                run.process.terminate()
        run.thread.join()

    def wait(self) -> None:
        """Wait for the run in progress, if any, to end by itself."""
        if self._run is not None:
            self._run.thread.join()

    def _work(self, run: _Run, indexing: Indexing, done: Callable[[str | None], None], held: int | None) -> None:
        try:
            try:
                warning = index_site(indexing, run.run)
            except OSError as exc:  # a full disk, say: the preview goes on, and the next build indexes
                warning = f"search index not built: {exc.filename or indexing.out_dir}: {exc.strerror}"
            if run.stopped:
                return
            if warning is not None:
                self.warn(warning)
            done(warning)
            if warning is None:
                self.indexed()
        finally:
            build_lock.release(held)


def _start_from(bundle: Path, fresh: Path) -> None:
    """Start `fresh` with the files of `bundle`'s subfolders (fragments, index chunks), linked, not copied.

    Pagefind leaves alone the files of an index that are already there (their names are digests
    of their contents), and writing all the fragments of a big wiki anew took it much longer.
    The files at the top of the bundle (its entry, scripts, metadata) are left out: Pagefind
    writes them, so each one there after the run is that run's (`bundle_check`).
    """
    if not bundle.is_dir():
        return
    for folder, _, files in os.walk(bundle):
        rel = os.path.relpath(folder, bundle)
        os.makedirs(os.path.join(fresh, rel), exist_ok=True)
        for name in files if rel != "." else ():
            place(os.path.join(folder, name), os.path.join(fresh, rel, name))


def _replace(new: Path, bundle: Path) -> None:
    """Put the folder `new` in place of `bundle` (renames: a shard's search is missing for an instant at most)."""
    old = bundle.with_name(OLD + bundle.name)
    shutil.rmtree(old, ignore_errors=True)
    if bundle.exists():
        bundle.rename(old)
    new.rename(bundle)
    shutil.rmtree(old, ignore_errors=True)
