"""Link targets matched by file path and name, as Obsidian matches them (`links: obsidian`, and attachments).

The steps: the exact path from the vault's root (a language's folder, with language folders), then the path
from the linking file's folder, then the file name (case-insensitive, `.md` optional; a target with folders
matches the end of a path). Of several files of one name, the one in the linking file's vault wins, then the
one in the default language's (a note missing in one language falls back to it), then the one in the linking
file's folder, then the shortest path. The index's `file` and `name` tables give files, not groups.
"""

from __future__ import annotations

import posixpath
from typing import Callable

from pipeline.text import lookup_key

FILE = "file:"  # a pseudo group key: exactly this file, whatever the linking article's language
FILE_TABLES = ("file", "name")  # tables whose keys give files (`FILE` + path), not groups


def by_file(index, target: str, folder: str) -> tuple[str | None, list[str]]:
    """(step, [`FILE` + path]) of `target` linked from `folder` in `index` (a LinkIndex), or (None, [])."""
    path = note_path(target.strip())
    vault = index.vault(folder)
    for base in dict.fromkeys([vault] if path.startswith("/") else [vault, folder]):
        found = index.lookup("file", lookup_key(posixpath.normpath(posixpath.join(base, path.lstrip("/")))))
        if found:
            return "path", found
    ending = "/" + lookup_key(path.strip("/"))
    named = [file for file in index.lookup("name", lookup_key(posixpath.basename(path.rstrip("/"))))
             if ("/" + lookup_key(note_path(file[len(FILE) :]))).endswith(ending)]  # fmt: skip
    if named:
        default = index.default_language.lower()  # a missing note falls back to the default language's folder
        vaults = (vault, default)
        return "name", [min(named, key=lambda file: _preference(file[len(FILE) :], folder, vaults, index.vault))]
    return None, []


def note_path(path: str) -> str:
    """A note's path as Obsidian links name it: without `.md` (or `.markdown`)."""
    lowered = path.lower()
    for suffix in (".md", ".markdown"):
        if lowered.endswith(suffix):
            return path[: -len(suffix)]
    return path


def _preference(path: str, folder: str, vaults: tuple[str, str], vault_of: Callable[[str], str]) -> tuple:
    """Obsidian's order among files of one name: the linking file's vault, its folder, then the shortest path; with
    language folders, the default language's vault (`vaults`: the linking file's, the default's) before the others."""
    own = vault_of(path)
    in_folder = posixpath.dirname(path) == folder
    return own != vaults[0], own.lower() != vaults[1], not in_folder, path.count("/"), len(path), path
