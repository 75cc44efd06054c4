"""Put the site's files in the output folder: only changed bytes are written, stale files removed.

The previous build's file list is kept in a manifest in the state folder;
a file it lists that this build does not produce is removed (the output of
a deleted article), and nothing else in the output folder is ever touched.

A build may be stopped while it writes (Ctrl-C, a killed process): what it
leaves must never be taken for a finished build's output. So each file a
build writes is named in a journal beside the manifest before it is
written, until the manifest lists it. The next build takes the journal's
files for the last build's too (so the page of an article deleted since does
not stay in the folder for good, nor a temporary file), and their keys for
unknown: it renders those pages again, and, since what the site is made of
is no longer what the last state says, it plans and digests every page.

Before anything else, the writer puts `MARKER` in the output folder: the sign
that `pipeline` writes this folder (`output.refuse_foreign`). Its name starts
with a dot, as no file of the site's does, so no build lists or removes it.
"""

from __future__ import annotations

import itertools
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TextIO

from pipeline.incremental.kept_pages import KeptPages, content_digest, place
from pipeline.runtime import jsonio

MARKER = ".pipeline-site"
MARKER_TEXT = "This folder is the output of `pipeline build`, which replaces the files it wrote here on each build.\n"


@dataclass
class WriteReport:
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    linked: int = 0  # of `written`, the files put back from kept pages (`link`)


class SiteWriter:
    """Writes files one by one as they are rendered, so no build holds the whole site in memory.

    `put` writes a file only where its bytes differ (None: known unchanged, keep
    it); `finish` removes what the previous build wrote and this one did not,
    and records the manifest (with `keys`, what each page was rendered from, and
    the render step's `state`, what the pages were made of).
    """

    def __init__(
        self, out_dir: Path, manifest: Path, before_writing: Callable[[], None] = lambda: None,
        last: LastRecord | None = None, kept: KeptPages | None = None,
    ) -> None:
        """`before_writing` is called before the first file is written or removed (once in each process that writes);
        `last`: what the last build recorded (`last_render`), when the caller read it; `kept`: where every
        file written is kept (`incremental/kept_pages.py`), a page's by the render, any other here by its bytes."""
        self.out_dir, self.manifest = Path(out_dir), manifest
        self.before_writing = before_writing
        self.report = WriteReport()
        self.files: list[str] = []
        self.folders: set[str] = set()  # made already: one mkdir per folder, not per file
        self.writing = False
        self._previous: list[str] | None = None
        self.copies: dict[str, str] = {}  # file -> digest of the bytes copied there (`copy`)
        self.kept = kept
        self.hashes: dict[str, str] = {}  # file kept by its bytes -> their digest
        # Before the journal is opened, as `last_render` says.
        last = last_render(manifest, self.out_dir) if last is None else last
        self.last_copies, self.last_hashes = last.copies, last.hashes
        # What builds stopped before this one wrote (their temporary files too may be left), then the journal,
        # opened here, before any render process is forked: each appends to it, a line at a time.
        self.stopped = journaled_files(manifest, self.out_dir)
        self.journal = _open_journal(manifest, self.out_dir, self.stopped)
        mark(self.out_dir)

    def previous(self) -> list[str]:
        """What the last build wrote into this output folder (`previous_files`), read once for the render and finish."""
        if self._previous is None:
            self._previous = previous_files(self.manifest, self.out_dir)
        return self._previous

    def put(self, rel: str, data: bytes | None, kept: bool = True) -> None:
        """Write `data` at `rel` unless the file there holds it (None: known to); with `kept`, keep it by its bytes
        (a page's files are kept by the page's digest instead: `render.PageJob.write`)."""
        # os calls on strings, not pathlib: a cold build of a big wiki writes tens of thousands of files.
        target = self.path(rel)
        changed = data is not None and not _same(target, data)
        if changed:
            self._prepare(rel, target)
            _write(target, data)
        if kept and data is not None and self.kept is not None:
            self.hashes[rel] = content_digest(data)
            self.kept.keep(self.hashes[rel], [target], named=False)
        self.record(rel, changed)

    def _prepare(self, rel: str, target: str) -> None:
        """Before `rel` is written at `target`: the first write's start, the journal's line, the folder."""
        self._start_writing()
        self._journal(rel)
        folder = os.path.dirname(target)
        if folder not in self.folders:
            os.makedirs(folder, exist_ok=True)
            self.folders.add(folder)

    def copy(self, rel: str, source: str | os.PathLike, digest: str) -> None:
        """Copy the file `source` (whose bytes `digest` names) to `rel`, streamed, unless the last build copied
        those bytes there and the file is still there, of its size: a big file is neither read nor held."""
        target = os.path.join(self.out_dir, _safe(rel))
        try:
            unchanged = self.last_copies.get(rel) == digest and os.path.getsize(target) == os.path.getsize(source)
        except OSError:
            unchanged = False
        if not unchanged:
            self._prepare(rel, target)
            temporary = _temporary(target)
            shutil.copyfile(source, temporary)  # in the kernel where it can (copy_file_range), else in chunks
            os.replace(temporary, target)
        self.copies[rel] = digest
        if self.kept is not None:
            self.hashes[rel] = digest
            self.kept.keep(digest, [target], named=False)
        self.record(rel, not unchanged)

    def link(self, rel: str, source: str) -> None:
        """Put the file `source` (a kept page: `incremental/kept_pages.py`) at `rel`, hard-linked where it can be."""
        target = self.path(rel)
        self._prepare(rel, target)
        place(source, target)
        self.report.linked += 1
        self.record(rel, True)

    def path(self, rel: str) -> str:
        """Where the file `rel` is."""
        return os.path.join(self.out_dir, _safe(rel))

    def _start_writing(self) -> None:
        if not self.writing:  # each forked render process too
            self.writing = True
            self.before_writing()

    def _journal(self, rel: str) -> None:
        self.journal.write(rel + "\n")  # line-buffered: in the file before the file it names exists

    def record(self, rel: str, changed: bool) -> None:
        """Count a file as part of this build (written by this process or by a render process)."""
        self.files.append(rel)
        if changed:
            self.report.written.append(rel)
        else:
            self.report.unchanged += 1

    def keep(self, rels: list[str]) -> None:
        """Count the last build's files `rels` as this build's, unchanged: a patched build keeps nearly all."""
        self.files += rels
        self.report.unchanged += len(rels)

    def finish(self, keys: dict | None = None, state: dict | None = None) -> WriteReport:
        self.journal.close()
        journaled = journaled_files(self.manifest, self.out_dir)
        # A stopped build's files, and the temporary files of those it was replacing (see `_write`): this build,
        # which got here, left none.
        made = {*self.previous(), *journaled, *map(_temporary, self.stopped)}
        current = set(self.files)
        for rel in sorted(made - current):
            target = self.out_dir / _safe(rel)
            if target.is_file():
                self._start_writing()
                target.unlink()
                self.report.removed.append(rel)
                _prune(target.parent, self.out_dir)
        self.manifest.parent.mkdir(parents=True, exist_ok=True)
        out_dir = str(self.out_dir.resolve())
        # Whole or not at all: a crash mid-write must not lose the list of files to clean.
        jsonio.save(self.manifest, {"out_dir": out_dir, "files": sorted(self.files)})
        record = {"out_dir": out_dir, "keys": keys or {}, "state": state or {}, "copies": self.copies,
                  "hashes": self._hashes(current)}  # fmt: skip
        jsonio.save(keys_file(self.manifest), record)
        journal_file(self.manifest).unlink(missing_ok=True)  # the render processes' lines too: all listed now
        self.report.written.sort()
        return self.report

    def _hashes(self, current: set[str]) -> dict[str, str]:
        """The digest of each file of this build kept by its bytes: those it put, and the last build's it kept; the
        entries of the digests no file has any more go."""
        last = self.last_hashes
        hashes = {rel: digest for rel, digest in last.items() if rel in current and rel not in self.hashes}
        hashes.update(self.hashes)
        if self.kept is not None:
            self.kept.forget(set(last.values()) - set(hashes.values()))
        return hashes


def mark(out_dir: Path) -> None:
    """Make the output folder, with its marker, unless it has one already."""
    marker = out_dir / MARKER
    if not marker.exists():
        out_dir.mkdir(parents=True, exist_ok=True)
        marker.write_text(MARKER_TEXT, encoding="utf-8")


def journal_file(manifest: Path) -> Path:
    """Where the files a build writes are named as it writes them, until its manifest lists them."""
    return manifest.with_name(f"{manifest.stem}-written.txt")


def keys_file(manifest: Path) -> Path:
    """Where the page digests live: apart from the file list, which a build with nothing to do reads alone."""
    return manifest.with_name(f"{manifest.stem}-keys.json")


def in_output(out_dir: Path):
    """`rel -> bool`: whether the output folder holds `rel` (on strings, with access(): it runs for
    every page of the last build, and pathlib and stat results cost more than the check)."""
    root = os.path.join(out_dir, "")
    return lambda rel: os.access(root + rel, os.F_OK)


def missing_files(out_dir: Path, rels: list[str]) -> list[str]:
    """Those of `rels` inside the output folder that it does not hold: looked up from the folder's descriptor where
    the system can, so the kernel walks each path below the folder only (a build with nothing to do waits for
    this, over every file of the last site), not the folder's own path again each time."""
    if os.access not in os.supports_dir_fd:
        return [rel for rel in itertools.filterfalse(in_output(out_dir), rels) if inside(rel)]
    try:
        folder = os.open(out_dir, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:  # no folder: none is there
        return [rel for rel in rels if inside(rel)]
    try:
        return [rel for rel in rels if not os.access(rel, os.F_OK, dir_fd=folder) and inside(rel)]
    finally:
        os.close(folder)


def previous_files(manifest: Path, out_dir: Path) -> list[str]:
    """What the last build wrote into this same output folder (nothing, for another folder)."""
    return [rel for rel in _record(manifest, out_dir).get("files", []) if isinstance(rel, str)]


def journaled_files(manifest: Path, out_dir: Path) -> list[str]:
    """The files named in the journal of this output folder: those this build wrote, and those
    builds stopped before it wrote."""
    try:
        lines = journal_file(manifest).read_text(encoding="utf-8").splitlines()
    except (OSError, ValueError):  # missing, or not text (a damaged disk): nothing to go on
        return []
    if not lines or lines[0] != str(Path(out_dir).resolve()):
        return []
    return [rel for rel in dict.fromkeys(lines[1:]) if inside(rel)]


def _open_journal(manifest: Path, out_dir: Path, journaled: list[str]) -> TextIO:
    """The journal, to append to; begun again (its first line the output folder) when it names
    no file of this folder (`journaled`, what it names): missing, empty, another folder's, or damaged."""
    path = journal_file(manifest)
    if not journaled:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{Path(out_dir).resolve()}\n", encoding="utf-8")
    return open(path, "a", encoding="utf-8", buffering=1)


@dataclass(frozen=True)
class LastRecord:
    """What the last build recorded of its files (`last_render`)."""

    keys: dict[str, str] = field(default_factory=dict)  # page file -> the digest of what it was rendered from
    state: dict = field(default_factory=dict)  # what the pages were made of (`page_digests.SiteState`)
    copies: dict[str, str] = field(default_factory=dict)  # copied file -> the digest of its bytes (`SiteWriter.copy`)
    hashes: dict[str, str] = field(default_factory=dict)  # file kept by its bytes -> their digest (`SiteWriter.put`)


def last_render(manifest: Path, out_dir: Path) -> LastRecord:
    """What the last build recorded (one read of a file naming every page).

    Not what it recorded of the files a build stopped since touched (they may hold anything), nor the state
    (what the site is made of is no longer known): call it before this build's writer opens the journal."""
    record = _record(keys_file(manifest), out_dir)
    found = {name: record.get(name, {}) for name in ("keys", "state", "copies", "hashes")}
    found = {name: value if isinstance(value, dict) else {} for name, value in found.items()}
    touched = set(journaled_files(manifest, out_dir))
    if touched:
        found = {name: {rel: value for rel, value in files.items() if rel not in touched}
                 for name, files in found.items() if name != "state"}  # fmt: skip
    return LastRecord(**found)


def _record(manifest: Path, out_dir: Path) -> dict:
    try:
        record = jsonio.loads(manifest.read_bytes())
    except (OSError, ValueError):
        return {}
    if not isinstance(record, dict) or record.get("out_dir") != str(Path(out_dir).resolve()):
        return {}
    return record


def _safe(rel: str) -> str:
    """A relative path that stays inside the output folder (URLs come from content: never trust them)."""
    parts = rel.split("/")
    if not rel or rel.startswith("/") or ".." in parts:
        raise ValueError(f"refusing to write outside the output folder: {rel!r}")
    return rel


def inside(rel: str) -> bool:
    """Whether `rel` is a path inside the output folder (as `_safe` takes it)."""
    try:
        return bool(_safe(rel))
    except ValueError:  # an empty line, or one not ours
        return False


def _same(target: str, data: bytes) -> bool:
    try:
        if os.stat(target).st_size != len(data):
            return False
        with open(target, "rb") as file:
            return file.read() == data
    except OSError:
        return False


def _write(target: str, data: bytes) -> None:
    """An existing file is replaced atomically, so a reader of the site (the preview server) sees
    the old page or the new one, never half of one. A new file is written in place: it had no
    readers, and one a crash left half-written differs from its page, so the next build replaces it.
    A failed write names its file (a full disk fails the write of the bytes, which names none)."""
    try:
        try:
            with open(target, "xb") as file:
                file.write(data)
                return
        except FileExistsError:
            pass
        temporary = _temporary(target)
        with open(temporary, "wb") as file:
            file.write(data)
        os.replace(temporary, target)
    except OSError as exc:
        if exc.filename is not None:
            raise
        raise OSError(exc.errno, exc.strerror, target) from None


def _temporary(path: str) -> str:
    folder, name = os.path.split(path)
    return f"{folder}/.{name}.tmp" if folder else f".{name}.tmp"


def _prune(folder: Path, out_dir: Path) -> None:
    """Remove folders left empty, up to (not including) the output folder."""
    out_dir = out_dir.resolve()
    folder = folder.resolve()
    while folder != out_dir and out_dir in folder.parents:
        try:
            folder.rmdir()
        except OSError:
            return
        folder = folder.parent
