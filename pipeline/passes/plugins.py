"""The passes installed packages declare: entry points in the group `pipeline.passes`.

Finding them means importing `importlib.metadata` and reading the metadata
of every installed package (a noticeable part of each build, with
many packages). Installing or removing a package changes the folder it goes in,
so the list found is kept in the state folder with the folders Python
imports from and their modification times, and read back while those are
the same: the entry points' modules are imported as `EntryPoint.load` would.
"""

from __future__ import annotations

import functools
import importlib
import os
import re
import sys
from pathlib import Path
from types import ModuleType

from pipeline.runtime import jsonio

ENTRY_POINT_GROUP = "pipeline.passes"
KEPT = "entry-points.json"  # in the state folder
# An entry point's value, as importlib.metadata reads it: `module`, `module:attribute.attribute`, `[extras]`.
_VALUE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?((?P<extras>\[.*\])\s*)?$")


def declared_passes(folder: Path | None = None) -> list[ModuleType]:
    """The objects (pass modules) the installed packages' entry points name, loaded in their order.

    With `folder` (the state folder), the entry points found are kept there for the next process.
    """
    where = _search_path()
    values = _cached(folder, where) if folder is not None else None
    if values is None:
        import importlib.metadata  # only here: the import is most of what finding them costs

        values = [entry.value for entry in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)]
        if folder is not None:
            _keep(folder, where, values)
    return [_load(value) for value in values]


def _search_path() -> list[tuple[str, int]]:
    """Each folder Python imports from, with its modification time (a package added or removed there changes it)."""
    found = []
    for entry in sys.path:
        try:
            found.append((entry, os.stat(entry or ".").st_mtime_ns))
        except OSError:
            found.append((entry, -1))
    return found


def _cached(folder: Path, where: list) -> list[str] | None:
    try:
        record = jsonio.loads((folder / KEPT).read_bytes())
    except (OSError, ValueError):  # a cache: what does not load is found again
        return None
    if not isinstance(record, dict) or record.get("search_path") != [list(pair) for pair in where]:
        return None
    values = record.get("values")
    return values if isinstance(values, list) and all(isinstance(value, str) for value in values) else None


def _keep(folder: Path, where: list, values: list[str]) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        jsonio.save(folder / KEPT, {"search_path": where, "values": values})
    except OSError:  # found again next time
        pass


def _load(value: str):
    match = _VALUE.match(value)
    if match is None:
        raise ImportError(f"entry point {value!r} in {ENTRY_POINT_GROUP} is not `module` or `module:attribute`")
    module = importlib.import_module(match.group("module"))
    return functools.reduce(getattr, filter(None, (match.group("attr") or "").split(".")), module)
