"""What passes may know beyond the captures: data files and history.

- Data files in the content root (`redirects.yaml`, `categories.yaml`,
  `citations.yaml`), read once per build (`read_data_files`: the build
  stamp names their bytes, `gather` parses the same bytes) and parsed by
  `safe_yaml` (with its limits); a file that does not parse becomes a
  problem with its line, and the build goes on without it. Each is
  validated here, once, into records (`data_files`), held as plain data.
- Git: the history of the articles (`git_history.py`: commits, renames followed, kept in the state
  folder by HEAD) as `facts["git"]`, and the last commit time of each (`git_times`).
- Capture history: every (time, hash) a path has had, and the whole capture log.
"""

from __future__ import annotations

import hashlib
import pickle
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from pipeline.content import data_files
from pipeline.content.git_history import ASK, GitPlace, read_history
from pipeline.content.capture import current_capture_ids
from pipeline.content.scan import read_inside
from pipeline.content.source import decode
from pipeline.runtime import jsonio, safe_yaml
from pipeline.runtime.records import made
from pipeline.storage.store import plain_rows, store_identity

DATA_FILES = tuple(data_files.VALIDATORS)  # redirects, categories, citations


@dataclass
class Facts:
    data: dict = field(default_factory=dict)  # name -> its YAML, or its records as `data_files.validated`; or None
    facts: dict = field(default_factory=dict)  # git_times, history, and git (a GitLog) in a repository
    problems: list[tuple[str, int, str]] = field(default_factory=list)  # (path, line, message)
    capture_ids: list[int] = field(default_factory=list)  # the current captures, by path
    log: list = field(default_factory=list)  # every Change, oldest first (history and recent-changes pages)


def read_data_files(content_dir: Path) -> dict[str, bytes | None]:
    """name -> the bytes of the data file (None: absent, or not to be read: `scan`)."""
    return {name: read_inside(content_dir, f"{name}.yaml") for name in DATA_FILES}


def gather(
    conn: sqlite3.Connection, content_dir: Path, capture_ids: list[int] | None = None, kept: Path | None = None,
    raw: dict[str, bytes | None] | None = None, place: GitPlace | None | str = ASK,
) -> Facts:
    """Read, once per build, everything passes and pages know beyond the captures themselves.

    `capture_ids`: the current captures when the caller knows them (a capture run just did); `kept`: where
    the capture log is kept between builds (`capture_log`), and the git history beside it; `raw`: the data files as the caller read them
    (`read_data_files`), else read here; `place`: where the content folder is in git, as capture found it
    (`CaptureReport.git`), else asked here.
    """
    ids = current_capture_ids(conn) if capture_ids is None else capture_ids
    result = Facts(capture_ids=ids, log=capture_log(conn, kept))
    raw = read_data_files(content_dir) if raw is None else raw
    for name in DATA_FILES:
        result.data[name] = _parsed(name, raw[name], result.problems)
    git = read_history(Path(content_dir), kept.parent if kept is not None else None, place)
    result.facts["git_times"] = git.times() if git is not None else {}
    if git is not None:
        result.facts["git"] = git
    result.facts["history"] = history_of(result.log)
    return result


def fact_sources(
    conn: sqlite3.Connection, content_dir: Path, commit: str | None, raw: dict[str, bytes | None] | None = None
) -> dict:
    """What `gather` reads, identified without reading all of it: equal sources give equal Facts (`raw`: the
    data files as the caller read them, to give `gather` too; else read here).

    The capture log is append-only, so its newest row names all of it, in its store (a state database made
    anew numbers its rows, and its captures, from 1 again: `store_identity` tells it from the last); git
    times follow from the HEAD commit; data files are named by their bytes. A build compares these with
    the last build's before gathering anything.
    """
    (newest,) = conn.execute("SELECT MAX(id) FROM capture_history").fetchone()
    (attached,) = conn.execute("SELECT MAX(id) FROM attachment_captures").fetchone()  # `Wiki.attachments`
    raw = read_data_files(content_dir) if raw is None else raw
    data = {name: None if raw[name] is None else hashlib.sha256(raw[name]).hexdigest() for name in DATA_FILES}
    return {"store": store_identity(conn), "log": newest, "attachments": attached, "commit": commit, "data": data}


def _parsed(name: str, raw: bytes | None, problems: list) -> object:
    """The data file `name`'s records (`data_files.validated`) from its bytes; None when it has none."""
    if raw is None:
        return None
    path = f"{name}.yaml"
    text, error = decode(raw)
    if text is None:
        problems.append((path, 1, error))
        return None
    try:
        value, node = safe_yaml.load_document(text)
    except safe_yaml.YamlError as exc:
        problems.append((path, exc.line, f"YAML {exc}"))
        return None
    data, found = data_files.validated(name, value, node)
    problems += found
    return data


class Change(NamedTuple):
    """One row of the capture log: a path pointed at new bytes (or was removed) at `time` (a named tuple:
    a build reads every row, each edit adds one)."""

    path: str
    time: str  # ISO 8601, UTC
    sha256: str
    kind: str  # 'file' or 'removal'
    commit: str | None  # git HEAD of the content folder when captured


LOG_KEPT = "capture-log.pickle"  # in the state folder: the capture log, as a build last kept it
LOG_TAIL = 256  # rows read from the store past those kept before the log is kept again


def capture_log(conn: sqlite3.Connection, kept: Path | None = None) -> list[Change]:
    """Every capture-history row, oldest first, with its git commit (for history and recent-changes pages).

    With `kept` (a file of the state folder), the rows a build read before are read back from there and
    the newer ones from the store: history rows never change, and reading them all from
    the store took several times as long as from the file, in every build. It is written again once LOG_TAIL
    rows were added since; one of another store (`store_identity`), or that does not load, is not used.
    """
    log, upto = _stored_log(conn, kept) if kept is not None else ([], 0)
    rows = plain_rows(conn).execute(
        """SELECT h.id, h.path, h.observed_at, c.sha256, c.kind, h.git_commit FROM capture_history h
           JOIN captures c INDEXED BY captures_identity ON c.id = h.capture_id WHERE h.id > ? ORDER BY h.id""", (upto,)
    ).fetchall()  # fmt: skip
    log += made(Change, (row[1:] for row in rows))
    if kept is not None and (len(rows) > LOG_TAIL or (rows and not upto)):
        record = {"store": store_identity(conn), "upto": rows[-1][0], "columns": [list(c) for c in zip(*log)]}
        try:
            jsonio.save_bytes(kept, pickle.dumps(record))
        except OSError:  # a cache (a read-only state folder, another build replacing it): kept another time
            pass
    return log


def _stored_log(conn: sqlite3.Connection, kept: Path) -> tuple[list[Change], int]:
    """The rows kept at `kept` and the id of the last of them, when kept from this store and its row `upto` is
    their last (not a store put back from before); else none."""
    try:
        record = pickle.loads(kept.read_bytes())
        whole = record["store"] == store_identity(conn) and len(record["columns"]) == len(Change._fields)
        log = list(made(Change, zip(*record["columns"]))) if whole else []
        last = conn.execute("SELECT path, observed_at FROM capture_history WHERE id = ?", (record["upto"],)).fetchone()
    except Exception:  # a cache: missing, torn, another version's
        return [], 0
    return (log, record["upto"]) if log and last is not None and tuple(last) == log[-1][:2] else ([], 0)


def history_of(log: list[Change]) -> dict[str, list[tuple[str, str]]]:
    """path -> [(captured_at, sha256), ...] of its file captures, oldest first (the log is oldest first)."""
    history: dict[str, list[tuple[str, str]]] = {}
    for change in log:
        if change.kind == "file":
            history.setdefault(change.path, []).append((change.time, change.sha256))
    return history
