"""What a pass keeps between builds besides its plan memo (`kept_memos`): values its selects build.

- `KEEP` values (indexes) are built from the pass's read set alone, or hold what a
  pass derived from an article and checks against what it reads before using it
  again (wikilinks' fragment targets, html's embedded parts): kept with the
  read set and the code that built them, loaded by a build in the same read set
  (and by `reuse_across`, to compare the last read set's with this one's).
- `KEEP_BY_CAPTURE` values are dicts of capture id -> what the pass derives
  from that capture alone and the options (pairing's claims), filled as
  they are used: kept with the options and the code whatever the read set, so
  that after an edit only the edited article's entry is derived again.
  Kept again when they gained an entry, with the current captures' only.

Both are caches, pickled: what does not load is built again.
"""

from __future__ import annotations

import hashlib
import pickle
import sqlite3

from pipeline.incremental.code_digest import code_digest
from pipeline.passes.base import Wiki
from pipeline.passes.contract import PassSpec
from pipeline.runtime import jsonio


def load_stored_indexes(conn: sqlite3.Connection, spec: PassSpec, read_set: str) -> dict:
    """memo key -> value of the KEEP memos `spec` built in `read_set`, by this code (else nothing)."""
    return _load(conn, spec, _index_stamp(spec, read_set), spec.plan.keep)


def save_stored_indexes(conn: sqlite3.Connection, spec: PassSpec, read_set: str, values: dict) -> None:
    """Keep `values` (memo key -> value built in `read_set`) in place of those of another read set."""
    _save(conn, spec, _index_stamp(spec, read_set), values)


def load_by_capture(conn: sqlite3.Connection, spec: PassSpec, wiki: Wiki) -> dict[str, dict]:
    """memo key -> the KEEP_BY_CAPTURE dicts `spec` kept with the options of `wiki`, by this code (else nothing)."""
    return _load(conn, spec, _options_stamp(spec, wiki), spec.plan.keep_by_capture)


def save_by_capture(
    conn: sqlite3.Connection, spec: PassSpec, wiki: Wiki, sizes: dict[str, int], current: set[int]
) -> None:
    """Keep the KEEP_BY_CAPTURE dicts of `wiki` that grew from their `sizes` when loaded (memo key -> entries;
    none when not loaded), with the entries of the `current` captures only."""
    grown = {key: {capture: value for capture, value in values.items() if capture in current}
             for key, values in wiki.memos(spec.plan.keep_by_capture).items() if len(values) != sizes.get(key)}  # fmt: skip
    if grown:
        _save(conn, spec, _options_stamp(spec, wiki), grown)


def _load(conn: sqlite3.Connection, spec: PassSpec, stamp: str, keys: tuple[str, ...]) -> dict:
    rows = conn.execute(
        "SELECT key, value FROM kept_memos WHERE pass_name = ? AND pass_version = ? AND read_set = ?",
        (spec.name, spec.version, stamp),
    )
    kept = {}
    for key, value in rows:
        if key in keys:  # one the pass no longer keeps is not unpickled
            try:
                kept[key] = pickle.loads(value)
            except Exception:  # a cache: what does not load is built again
                continue
    return kept


def _save(conn: sqlite3.Connection, spec: PassSpec, stamp: str, values: dict) -> None:
    conn.executemany(
        "INSERT OR REPLACE INTO kept_memos VALUES (?, ?, ?, ?, ?)",
        [(spec.name, spec.version, key, stamp, pickle.dumps(value, protocol=5)) for key, value in values.items()],
    )


def _index_stamp(spec: PassSpec, read_set: str) -> str:
    # A value pickled by other code may unpickle into an object this code misreads: the code is part of its read set.
    return _sha(f"{read_set}|{code_digest(spec.module)}")


def _options_stamp(spec: PassSpec, wiki: Wiki) -> str:
    """What a KEEP_BY_CAPTURE value is kept with: the options (what a capture gives may depend on them) and the code."""
    return _index_stamp(spec, "by capture|" + _sha(jsonio.dumps(wiki.options, sort_keys=True)))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()
