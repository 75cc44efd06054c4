"""Which folder a build may write the site into, and the marker that says `pipeline` wrote one.

A build writes, replaces and removes files in its output folder, so it
refuses one that would put the site where it destroys or publishes what it
must not: the content folder or the state folder (or a folder holding
either, or inside either), `/`, the home folder. It also refuses a
non-empty folder that `pipeline` did not write, unless forced (`--force`):
one holding `writer.MARKER` (written before the first file of a site), or one the
state folder's manifest or journal names (written by a version before the
marker). The marker's name starts with a dot, as no page's does: it is never
one of the site's files, so no build removes it.
"""

from __future__ import annotations

import os
from pathlib import Path

from pipeline.errors import UserError, require_folder
from pipeline.site.writer import MARKER, journaled_files, previous_files


def refuse_unsafe(out_dir: Path, content_dir: Path, state_dir: Path) -> None:
    """Raise UserError when `out_dir` is `/`, the home folder, or is, holds or lies inside the content or
    the state folder (compared as real paths: a symlink is the folder it leads to)."""
    out = Path(out_dir).resolve()
    if out == Path(out.anchor):
        raise UserError(f"{out_dir}: refusing to write the site into the root folder; give --out a folder of its own")
    if out == _home():
        raise UserError(f"{out_dir}: refusing to write the site into the home folder; give --out a folder of its own")
    for name, folder in (("content", content_dir), ("state", state_dir)):
        other = Path(folder).resolve()
        where = "is" if out == other else "holds" if out in other.parents else ""
        where = where or ("is inside" if other in out.parents else "")
        if where:
            raise UserError(f"{out_dir}: the output folder {where} the {name} folder {folder}; choose another --out")
    require_folder(out_dir, "output")


def refuse_foreign(out_dir: Path, manifest: Path, force: bool = False) -> None:
    """Raise UserError when `out_dir` holds anything but has no marker and is not the folder the state's
    `manifest` (or its journal) names, unless `force`."""
    if force or is_ours(out_dir, manifest):
        return
    try:
        with os.scandir(out_dir) as entries:
            empty = next(entries, None) is None
    except FileNotFoundError:
        return
    if not empty:
        raise UserError(
            f"{out_dir}: the output folder holds files pipeline did not write (it has no {MARKER}); "
            "build into an empty or new folder, or pass --force to write into this one"
        )  # fmt: skip


def is_ours(out_dir: Path, manifest: Path) -> bool:
    """Whether `pipeline` wrote `out_dir`: it holds the marker, or the last build of this state wrote into it."""
    if os.path.exists(os.path.join(out_dir, MARKER)):
        return True
    return bool(previous_files(manifest, out_dir) or journaled_files(manifest, out_dir))


def _home() -> Path | None:
    try:
        return Path.home().resolve()
    except (RuntimeError, KeyError):  # no HOME, and no user entry to find it in
        return None
