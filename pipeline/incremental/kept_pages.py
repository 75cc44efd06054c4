"""The last builds' output files kept in the state folder, so an emptied output folder is filled without rendering.

A CI job that restores only the state folder starts with an empty output folder. Every file a build writes is
kept here, hard-linked (copied where the two folders are on different file systems): an article's or history
page's files under the page's digest (`render.PageJob.digest`: everything it is rendered from) and their names,
every other file under the digest of its bytes. Before a build, the last build's files missing from the output
folder are linked back (`restore`), so the build finds the output folder as the last one left it and renders only
what changed since; a page missing after that whose digest is kept is linked back by the render (`files`).

An entry is written whole (a link, or a copy renamed into place) and never changed: the writer replaces a file by a
new one rather than writing into it, so an entry linked to an output file keeps its bytes when the file changes.
The entries of digests no file has any more are removed by the build that replaced them (`forget`).
"""

from __future__ import annotations

import hashlib
import os
import secrets
import shutil
from dataclasses import dataclass
from typing import Iterable

KEPT_PAGES = "rendered-pages"  # in the state folder
PAGE_FILE = "index.html"  # the name of a page's own file; its other files sit beside it


@dataclass(frozen=True)
class KeptFile:
    """A file to put in the output folder from the kept files, instead of bytes rendered now."""

    path: str


def content_digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class KeptPages:
    """The kept files of one state folder."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = os.fspath(folder)
        # Whether the builds before kept any (a cold build's state has none: nothing to look for). Not changed by what
        # this one keeps: no page is rendered twice in a build, so none looks for its own.
        self.any = os.path.isdir(self.folder)
        self.folders: set[str] = set()  # made already: one mkdir per folder

    def path(self, digest: str, name: str = "") -> str:
        """The entry of a page's file `name` (the page digested `digest`), or of the bytes digested `digest`."""
        return f"{self.folder}/{digest[:2]}/{digest}{'.' + name if name else ''}"

    def files(self, key: str, names: list[str]) -> list[KeptFile] | None:
        """The kept files `names` of the page digested `key`, or None when one of them is not kept."""
        if not self.any:
            return None
        paths = [self.path(key, name) for name in names]
        return [KeptFile(path) for path in paths] if all(os.access(path, os.F_OK) for path in paths) else None

    def keep(self, digest: str, files: list[str], named: bool = True) -> None:
        """Keep `files` (paths in the output folder) just written: a page's, digested `digest`, by their names;
        else one file whose bytes `digest` names. An entry kept already has the same bytes: it stays."""
        folder = f"{self.folder}/{digest[:2]}"
        if folder not in self.folders:
            os.makedirs(folder, exist_ok=True)
            self.folders.add(folder)
        for source in files:
            place(source, self.path(digest, os.path.basename(source) if named else ""), replace=False)

    def forget(self, digests: Iterable[str]) -> None:
        """Remove the entries of `digests`: every file of a page so digested, or the bytes so digested."""
        by_folder: dict[str, set[str]] = {}
        for digest in digests:
            by_folder.setdefault(digest[:2], set()).add(digest)
        if not self.any or not by_folder:
            return
        for prefix, gone in by_folder.items():  # a folder listed once, however many of its entries go
            try:
                names = os.listdir(f"{self.folder}/{prefix}")
            except FileNotFoundError:
                continue
            for name in names:
                if name.split(".", 1)[0] in gone:
                    os.unlink(f"{self.folder}/{prefix}/{name}")

    def restore(self, out_dir: str, missing: list[str], keys: dict[str, str], hashes: dict[str, str]) -> bool:
        """Link back into `out_dir` the last build's files `missing` from it: a page's by its folder's page digest
        (`keys`: page file -> digest), any other by its bytes' (`hashes`). False, with what was linked left in
        place, as soon as one is not kept."""
        if not self.any:
            return False
        for rel in missing:
            folder, name = os.path.split(rel)
            key = keys.get(f"{folder}/{PAGE_FILE}" if folder else PAGE_FILE)
            entry = self.path(key, name) if key is not None else None
            if entry is None or not os.access(entry, os.F_OK):
                entry = self.path(hashes[rel]) if rel in hashes else None
            if entry is None:
                return False
            target = os.path.join(out_dir, rel)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            try:
                place(entry, target)
            except FileNotFoundError:  # not kept after all
                return False
        return True


def place(source: str, target: str, replace: bool = True) -> None:
    """Put the file `source` at `target` whole: a hard link, or a copy where none can be made (another file system),
    written beside it and renamed into place. A file at `target` is replaced (in one rename: a reader sees the old
    file or the new one), or with `replace` False left as it is."""
    try:
        os.link(source, target)
        return
    except FileExistsError:
        if not replace:
            return
    except OSError:  # another file system, or one without hard links
        pass
    folder, name = os.path.split(target)
    temporary = os.path.join(folder, f".{name}.{secrets.token_hex(4)}.tmp")
    try:
        os.link(source, temporary)
    except OSError:
        shutil.copyfile(source, temporary)
    os.replace(temporary, target)
