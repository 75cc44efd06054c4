"""Put the site's files in the output folder: only changed bytes are written, stale files removed.

The previous build's file list is kept in a manifest in the state folder;
a file it lists that this build does not produce is removed (the output of
a deleted article), and nothing else in the output folder is ever touched.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from pipeline import jsonio


@dataclass
class WriteReport:
    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)


class SiteWriter:
    """Writes files one by one as they are rendered, so no build holds the whole site in memory.

    `put` writes a file only where its bytes differ (None: known unchanged, keep
    it); `finish` removes what the previous build wrote and this one did not,
    and records the manifest (with `keys`, what each page was rendered from, and
    the render step's `state`, what the pages were made of).
    """

    def __init__(self, out_dir: Path, manifest: Path) -> None:
        self.out_dir, self.manifest = Path(out_dir), manifest
        self.report = WriteReport()
        self.files: list[str] = []
        self.folders: set[str] = set()  # made already: one mkdir per folder, not per file

    def put(self, rel: str, data: bytes | None) -> None:
        # os calls on strings, not pathlib: a cold build of a big wiki writes tens of thousands of files.
        target = os.path.join(self.out_dir, _safe(rel))
        changed = data is not None and not _same(target, data)
        if changed:
            folder = os.path.dirname(target)
            if folder not in self.folders:
                os.makedirs(folder, exist_ok=True)
                self.folders.add(folder)
            _write(target, data)
        self.record(rel, changed)

    def record(self, rel: str, changed: bool) -> None:
        """Count a file as part of this build (written by this process or by a render process)."""
        self.files.append(rel)
        if changed:
            self.report.written.append(rel)
        else:
            self.report.unchanged += 1

    def finish(self, keys: dict | None = None, state: dict | None = None) -> WriteReport:
        for rel in sorted(set(previous_files(self.manifest, self.out_dir)) - set(self.files)):
            target = self.out_dir / _safe(rel)
            if target.is_file():
                target.unlink()
                self.report.removed.append(rel)
                _prune(target.parent, self.out_dir)
        self.manifest.parent.mkdir(parents=True, exist_ok=True)
        out_dir = str(self.out_dir.resolve())
        # Whole or not at all: a crash mid-write must not lose the list of files to clean.
        jsonio.save(self.manifest, {"out_dir": out_dir, "files": sorted(self.files)})
        jsonio.save(keys_file(self.manifest), {"out_dir": out_dir, "keys": keys or {}, "state": state or {}})
        self.report.written.sort()
        return self.report


def keys_file(manifest: Path) -> Path:
    """Where the page digests live: apart from the file list, which a build with nothing to do reads alone."""
    return manifest.with_name(f"{manifest.stem}-keys.json")


def in_output(out_dir: Path):
    """`rel -> bool`: whether the output folder holds `rel` (on strings, with access(): it runs for
    every page of the last build, and pathlib and stat results cost more than the check)."""
    root = os.path.join(out_dir, "")
    return lambda rel: os.access(root + rel, os.F_OK)


def previous_files(manifest: Path, out_dir: Path) -> list[str]:
    """What the last build wrote into this same output folder (nothing, for another folder)."""
    return [rel for rel in _record(manifest, out_dir).get("files", []) if isinstance(rel, str)]


def previous_keys(manifest: Path, out_dir: Path) -> tuple[dict[str, str], dict]:
    """Page file -> digest of what the last build rendered it from; and the state it recorded with them."""
    record = _record(keys_file(manifest), out_dir)
    keys, state = record.get("keys", {}), record.get("state", {})
    return keys if isinstance(keys, dict) else {}, state if isinstance(state, dict) else {}


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
    readers, and one a crash left half-written differs from its page, so the next build replaces it."""
    try:
        with open(target, "xb") as file:
            file.write(data)
            return
    except FileExistsError:
        pass
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name}.tmp")
    with open(temporary, "wb") as file:
        file.write(data)
    os.replace(temporary, target)


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
