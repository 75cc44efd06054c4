"""Rendered pages kept by digest in the state folder, so an emptied output folder is filled without rendering.

A CI job that restores only the state folder starts with an empty output folder. Every article and history page
whose digest (`render.PageJob.digest`: everything it is rendered from) is the digest of a page some build rendered
is put back from here, hard-linked (copied where the two folders are on different file systems), instead of being
rendered again. An entry is a page's files (the page, then its companion) under its digest: written whole, by a
link or a copy renamed into place, and never changed. The writer replaces a page's file by a new one rather than
writing into it, so an entry linked to an output file keeps its bytes when the page changes; the entry of a digest
no page has any more is removed by the build that replaced it.
"""

from __future__ import annotations

import os
import secrets
import shutil
from dataclasses import dataclass
from typing import Iterable

KEPT_PAGES = "rendered-pages"  # in the state folder


@dataclass(frozen=True)
class KeptFile:
    """A file to put in the output folder from the kept pages, instead of bytes rendered now."""

    path: str


class KeptPages:
    """The kept pages of one state folder: `files` to put a page back, `keep` after rendering it, `forget` stale ones."""

    def __init__(self, folder: str | os.PathLike) -> None:
        self.folder = os.fspath(folder)
        self.any = os.path.isdir(self.folder)  # a cold build's state has none: nothing to look for
        self.folders: set[str] = set()  # made already: one mkdir per folder

    def path(self, key: str, index: int) -> str:
        return f"{self.folder}/{key[:2]}/{key}.{index}"

    def files(self, key: str, count: int) -> list[KeptFile] | None:
        """The `count` kept files of the page whose digest is `key`, or None when one of them is not kept."""
        if not self.any:
            return None
        paths = [self.path(key, index) for index in range(count)]
        return [KeptFile(path) for path in paths] if all(os.access(path, os.F_OK) for path in paths) else None

    def keep(self, key: str, files: list[str]) -> None:
        """Keep the files (paths in the output folder, the page's first) just written for the page digested `key`."""
        folder = f"{self.folder}/{key[:2]}"
        if folder not in self.folders:
            os.makedirs(folder, exist_ok=True)
            self.folders.add(folder)
            self.any = True
        for index, source in enumerate(files):
            path = self.path(key, index)
            try:
                os.link(source, path)
            except FileExistsError:  # kept by an earlier build: the same digest, the same bytes
                pass
            except OSError:  # another file system, or none with hard links: a whole copy, renamed into place
                temporary = f"{path}.{secrets.token_hex(4)}.tmp"
                shutil.copyfile(source, temporary)
                os.replace(temporary, path)

    def forget(self, keys: Iterable[str]) -> None:
        """Remove the entries of the digests `keys` (pages rendered again, or gone)."""
        if not self.any:
            return
        for key in keys:
            for index in range(2):  # a page and its companion, at most
                try:
                    os.unlink(self.path(key, index))
                except FileNotFoundError:
                    break

