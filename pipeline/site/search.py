"""Full-text search: Pagefind indexes the written site, one index per `<html lang>`.

The `pagefind[bin]` package ships the binary, so indexing needs no network
and the search works from any static host, or offline from the folder.
Only the article body (`data-pagefind-body`) is indexed.

A build indexes before it returns (`index_site`). The preview indexes in the
background (`BackgroundIndex`): at 10,000 articles Pagefind takes longer
than the rebuild, and an edit made meanwhile must not wait for an index of
pages it is about to change.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

BUNDLE = "pagefind"
NEXT = ".pagefind-next"  # beside the index: where a background run writes, to replace the index whole
OLD = ".pagefind-old"
TIMEOUT = 600


def pagefind(out_dir: Path, bundle: Path) -> list[str]:
    """The command indexing `out_dir` into the folder `bundle`."""
    return [sys.executable, "-m", "pagefind", "--site", str(out_dir), "--output-path", str(bundle), "--silent"]


def index_site(out_dir: Path) -> str | None:
    """Index `out_dir` into `out_dir/pagefind/`; None when done, else one line saying why not.

    What a background run left beside the index when its process was killed goes first: the
    output folder is published."""
    for leftover in (NEXT, OLD):
        shutil.rmtree(Path(out_dir) / leftover, ignore_errors=True)
    try:
        done = subprocess.run(pagefind(out_dir, Path(out_dir) / BUNDLE), capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"search index not built: {exc}"
    return verdict(done.returncode, done.stdout, done.stderr)


def verdict(returncode: int, stdout: str, stderr: str) -> str | None:
    """None for a run that indexed, else one line saying why it did not."""
    if returncode == 0:
        return None
    last = (stderr.strip() or stdout.strip() or f"exit status {returncode}").splitlines()[-1]
    if "No module named pagefind" in last or "Could not find" in last:
        return "search index not built: the Pagefind binary is missing (pip install 'pagefind[bin]')"
    return f"search index not built: {last}"


def has_index(out_dir: Path) -> bool:
    return (Path(out_dir) / BUNDLE / "pagefind-ui.js").is_file()


@dataclass
class _Run:
    """One background run; `lock` keeps `stop` and the start of its process apart."""

    thread: threading.Thread | None = None
    process: subprocess.Popen | None = None
    stopped: bool = False
    lock: threading.Lock = field(default_factory=threading.Lock)


class BackgroundIndex:
    """The preview's search index: Pagefind runs after a build, and the next build does not wait for it.

    `start` stops a run still indexing an older site (out of date, and the new build needs the
    CPU) and runs Pagefind into a folder beside the index (`NEXT`), which replaces the index when
    the run ends well: a stopped run leaves the old index whole. `done(warning)` is called, from
    the run's own thread, for a run that ended by itself: None when it indexed.
    """

    def __init__(
        self, warn: Callable[[str], None] = lambda line: None, command: Callable[[Path, Path], list[str]] = pagefind
    ) -> None:
        self.warn = warn  # gets the line of a run that failed
        self.command = command  # (site folder, bundle folder) -> argv; tests stand in a slow indexer
        self._run: _Run | None = None

    def start(self, out_dir: Path, done: Callable[[str | None], None]) -> None:
        self.stop()
        run = self._run = _Run()
        run.thread = threading.Thread(target=self._work, args=(run, Path(out_dir), done), daemon=True)
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

    def _work(self, run: _Run, out_dir: Path, done: Callable[[str | None], None]) -> None:
        bundle, fresh, warning = out_dir / BUNDLE, out_dir / NEXT, None
        shutil.rmtree(fresh, ignore_errors=True)
        _seed(bundle, fresh)
        with run.lock:
            if not run.stopped:
                try:
                    run.process = subprocess.Popen(
                        self.command(out_dir, fresh), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
                    )  # fmt: skip
                except OSError as exc:
                    warning = f"search index not built: {exc}"
        if run.process is not None:
            try:
                stdout, stderr = run.process.communicate(timeout=TIMEOUT)
            except subprocess.TimeoutExpired:
                run.process.kill()
                stdout, stderr = run.process.communicate()
            warning = verdict(run.process.returncode, stdout, stderr)
        if run.stopped or warning is not None:
            shutil.rmtree(fresh, ignore_errors=True)
        if run.stopped:
            return
        if warning is None:
            _replace(fresh, bundle)
        else:
            self.warn(warning)
        done(warning)


def _seed(bundle: Path, fresh: Path) -> None:
    """Start `fresh` as a copy of `bundle`, its subfolders' files linked, not copied.

    Pagefind leaves alone the files of an index that are already there (their names are digests
    of their contents), and writing all 13,000 fragments of a 10k wiki anew took it 24 s instead
    of 14. Only the files at the top of the bundle are rewritten in place; they are copied.
    """
    if not bundle.is_dir():
        return
    for folder, _, files in os.walk(bundle):
        rel = os.path.relpath(folder, bundle)
        os.makedirs(os.path.join(fresh, rel), exist_ok=True)
        for name in files:
            source, target = os.path.join(folder, name), os.path.join(fresh, rel, name)
            if rel == "." or not _linked(source, target):
                shutil.copy2(source, target)


def _linked(source: str, target: str) -> bool:
    try:
        os.link(source, target)
        return True
    except OSError:  # a file system without hard links
        return False


def _replace(new: Path, bundle: Path) -> None:
    """Put the folder `new` in place of `bundle` (renames: a page's search is missing for an instant at most)."""
    old = bundle.with_name(OLD)
    shutil.rmtree(old, ignore_errors=True)
    if bundle.exists():
        bundle.rename(old)
    new.rename(bundle)
    shutil.rmtree(old, ignore_errors=True)
