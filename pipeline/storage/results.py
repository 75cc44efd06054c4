"""Results as a build reads them from the store: outputs read when used, fields left in the store.

`StoredOutputs` is one pass's results, each known by its digest and
read and decoded when used; a lazy field (a pass's LAZY_FIELDS, kept in
`result_fields` beside the output) is a `StoredField` until it is used. A job
input may name such a field (`{"$stored": [job, field]}`): `resolve_stored`
reads it back, as a `text_refs.StoredText` when it is a text, and a page kept as a
recipe on another result's text (`{"$filled": ...}`) is made again when read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Callable, Iterator

from pipeline.runtime import jsonio
from pipeline.storage.store import plain_rows, reader, rows_for_ids
from pipeline.storage.text_refs import FILLED, STORED, StoredText, fill


class StoredField:
    """A field of a result, left in the store until it is used (`str()` reads a text field).

    A page's HTML is most of what a big wiki's results weigh; the site reads it
    page by page instead of holding all of it, and a select hands one on to a
    job as its identity (`as_json`; the worker reads it). Each process opens its own
    connection (forked render processes must not share one). It pickles, and
    compares, as its identity: a job's result never changes, so that is all a
    page digest needs.
    """

    __slots__ = ("db", "job_id", "field")

    def __init__(self, db: str, job_id: int, field: str) -> None:
        self.db, self.job_id, self.field = db, job_id, field

    def __str__(self) -> str:
        value = stored_value(self.db, self.job_id, self.field)
        return value if isinstance(value, str) else ""

    __html__ = __str__  # Jinja's `|safe` and Markup take it as the HTML it holds

    def __reduce__(self):
        return StoredField, (self.db, self.job_id, self.field)

    def as_json(self) -> dict:
        """What a job input holds in its place (`resolve_stored` reads it back): the identity, not the text."""
        return {STORED: [self.job_id, self.field]}

    def __eq__(self, other) -> bool:
        return isinstance(other, StoredField) and self.__reduce__() == other.__reduce__()

    def __hash__(self) -> int:
        return hash((self.db, self.job_id, self.field))


def stored_value(db: str, job_id: int, field: str):
    """A result's field, decoded (None when it has none); a text made of another's is made again."""
    connection = reader(db)
    row = connection.execute(
        "SELECT value FROM result_fields WHERE job_id = ? AND field = ?", (job_id, field)
    ).fetchone()
    if row is not None:
        value = jsonio.loads(row[0])
    else:  # a result from before v5 holds its lazy fields in its output
        row = connection.execute("SELECT output FROM processing_results WHERE job_id = ?", (job_id,)).fetchone()
        value = jsonio.loads(row[0]).get(field) if row else None
    if isinstance(value, dict) and FILLED in value:
        source_job, source_field, start, end, fills = value[FILLED]
        return fill(stored_value(db, source_job, source_field) or "", fills, start, end)
    return value


def resolve_stored(value, db: str):
    """`value` (decoded JSON) with every field of another result a select put in it read from the store.

    A pass may hand another pass's lazy field on (html gets the links pass's
    HTML and holes): the job input holds the field's identity, not its value,
    and the worker reads it; a text comes back as a `StoredText` that
    remembers where it is held.
    """
    if isinstance(value, dict):
        if len(value) == 1 and STORED in value:
            job_id, field = value[STORED]
            held = stored_value(db, job_id, field)
            return StoredText(held, (job_id, field)) if isinstance(held, str) else held
        return {key: resolve_stored(item, db) for key, item in value.items()}
    if isinstance(value, list):
        return [resolve_stored(item, db) for item in value]
    return value


ResultFacts = dict[int, tuple]  # job id -> (sha256 of its result's JSON, whether it may report a diagnostic)


REPORTS_READ_AT_ONCE = 1000
OUTPUTS_READ_AT_ONCE = 1000  # outputs read by one statement by `StoredOutputs.read_each`
OUTPUTS_OF_JOBS = "SELECT job_id, output FROM processing_results WHERE job_id IN ({ids})"  # (`rows_for_ids`)


def stored_diagnostics(
    db: str, reporting: list[tuple[int, int]], texts: Mapping[int, str]
) -> Iterator[tuple[int, list]]:
    """(capture id, diagnostics) of the `reporting` results (capture id, job id), a chunk at a time: from the
    output when it is one of `texts` (job id -> output JSON, read before), else from `result_diagnostics`, else
    (diagnostics nested deeper, an older version's JSON SQLite could not read) from the output."""
    for start in range(0, len(reporting), REPORTS_READ_AT_ONCE):
        chunk = reporting[start : start + REPORTS_READ_AT_ONCE]
        asked = [job_id for _, job_id in chunk if job_id not in texts]
        sql = "SELECT job_id, diagnostics FROM result_diagnostics WHERE job_id IN ({ids})"
        kept = dict(rows_for_ids(reader(db), sql, asked))
        read = dict(rows_for_ids(reader(db), OUTPUTS_OF_JOBS, [job_id for job_id in asked if job_id not in kept]))
        for capture_id, job_id in chunk:
            if job_id in kept:
                yield capture_id, jsonio.loads(kept[job_id])
            else:
                yield capture_id, jsonio.loads(texts.get(job_id) or read[job_id]).get("diagnostics", [])


class StoredOutputs(Mapping):
    """One pass's results (capture id -> output), read from the store and decoded when used.

    A build knows every result by its digest (`result_digests`) and reads an output only
    when something uses it: an edit build uses the outputs of three
    passes of eight. Decoded, the results of a big wiki weigh several times their
    JSON and are millions of objects, so an output is held
    as its JSON and decoded at each read (microseconds): callers never share one
    another's. Lazy fields come back as a `StoredField`.

    Held as columns, not an object per result: `jobs` (capture id -> the job of its result),
    `facts` (job id -> (digest, reports), of these jobs and maybe others) and `texts` (job id
    -> output JSON read so far), the last two shared by every pass of a build. An edit build
    knows every result (one per pass and article), and an object for each cost it noticeably.
    """

    ONE_BY_ONE = 32  # outputs read one at a time before the rest of the pass's are read at once

    def __init__(
        self, db: str, lazy: tuple[str, ...] = (), jobs: dict[int, int] | None = None, facts: ResultFacts | None = None,
        texts: dict[int, str] | None = None,
    ) -> None:
        """`jobs` is taken as it is (not copied): each of its jobs must have its facts in `facts`."""
        self.db, self.lazy = db, lazy
        self.jobs: dict[int, int] = {} if jobs is None else jobs
        self.facts: ResultFacts = {} if facts is None else facts
        self.texts: dict[int, str] = {} if texts is None else texts
        self.learned: list[tuple[str, int, bool]] = []  # (text, job id, whether its output holds it), not yet kept
        self._reads = 0

    def add(self, capture_id: int, job_id: int, sha256: str, reports: bool) -> None:
        self.jobs[capture_id] = job_id
        self.facts[job_id] = (sha256, reports)

    def __getitem__(self, capture_id: int) -> dict:
        job_id = self.jobs[capture_id]
        if job_id not in self.texts:
            self._reads += 1
            self._read([job_id] if self._reads <= self.ONE_BY_ONE else list(self.jobs.values()))
        return self._decoded(job_id, self.texts[job_id])

    def read_once(self, capture_id: int) -> dict:
        """The output, decoded, without holding its JSON: for a reader that uses each output once
        (a page: the html and citations outputs of a big wiki are tens of megabytes of JSON)."""
        job_id = self.jobs[capture_id]
        text = self.texts.get(job_id)
        if text is None:
            sql = "SELECT output FROM processing_results WHERE job_id = ?"
            text = reader(self.db).execute(sql, (job_id,)).fetchone()[0]
        return self._decoded(job_id, text)

    def read_each(self, capture_ids: list[int]) -> Iterator[dict]:
        """`read_once` of each of `capture_ids` (each has an output) in turn, read a batch at a time: a cold
        build's page summaries read three outputs of every article, a statement each took a third of the time."""
        for start in range(0, len(capture_ids), OUTPUTS_READ_AT_ONCE):
            jobs = [self.jobs[capture_id] for capture_id in capture_ids[start : start + OUTPUTS_READ_AT_ONCE]]
            unread = [job_id for job_id in jobs if job_id not in self.texts]
            read = dict(rows_for_ids(reader(self.db), OUTPUTS_OF_JOBS, unread))
            for job_id in jobs:
                yield self._decoded(job_id, read[job_id] if job_id in read else self.texts[job_id])

    def _decoded(self, job_id: int, output: str) -> dict:
        decoded = jsonio.loads(output)
        decoded.update({field: StoredField(self.db, job_id, field) for field in self.lazy})
        return decoded

    def _read(self, job_ids: list[int]) -> None:
        unread = [job_id for job_id in job_ids if job_id not in self.texts]
        self.texts.update(rows_for_ids(reader(self.db), OUTPUTS_OF_JOBS, unread))

    def release(self) -> None:
        """Let go of the outputs read so far: the next use of each reads it again."""
        for job_id in self.jobs.values():
            self.texts.pop(job_id, None)
        self._reads = 0

    def __contains__(self, capture_id) -> bool:
        return capture_id in self.jobs  # without reading

    def get(self, capture_id, default=None):  # Mapping's goes through a KeyError for each absent one
        return self[capture_id] if capture_id in self.jobs else default

    def keys(self):
        return self.jobs.keys()  # whose `in` needs no call back into Python

    def identities(self) -> Callable[[int], list | None]:
        """capture id -> its result as a digest names it, without reading it: its store and job (a job's result
        never changes), or None without a result. One function, called for each page."""
        db, jobs = self.db, self.jobs
        return lambda capture_id: [db, jobs[capture_id]] if capture_id in jobs else None

    def digest(self, capture_id: int) -> str:
        """The sha256 of the output's JSON, known without reading it."""
        return self.facts[self.jobs[capture_id]][0]

    def diagnostics(self) -> Iterator[tuple[int, list]]:
        """(capture id, diagnostics) of each result that may report one (known without reading any)."""
        return stored_diagnostics(self.db, self.reporting(), self.texts)

    def reporting(self) -> list[tuple[int, int]]:
        """(capture id, job id) of each result that may report a diagnostic."""
        facts = self.facts
        return [(capture_id, job_id) for capture_id, job_id in self.jobs.items() if facts[job_id][1]]

    def mentioning(self, text: str, read: bool = True) -> list[int]:
        """The capture ids whose output's JSON contains `text`, found without decoding any; their outputs
        are read, to be used (unless not `read`). Whether an output holds a text never changes: the store knows
        it of the outputs a build searched before (`result_mentions`), and searches the others itself (those not
        read yet stay there); what it finds is in `learned` until `keep_mentions` writes it."""
        facts = dict(plain_rows(reader(self.db)).execute(
            "SELECT job_id, present FROM result_mentions WHERE text = ?", (text,)))  # fmt: skip
        unknown = [job_id for job_id in self.jobs.values() if job_id not in facts]
        unread = [job_id for job_id in unknown if job_id not in self.texts]
        sql = "SELECT job_id FROM processing_results WHERE instr(output, ?) > 0 AND job_id IN ({ids})"
        found = {job_id for job_id, in rows_for_ids(reader(self.db), sql, unread, (text,))}
        for job_id in unknown:
            facts[job_id] = job_id in found or text in self.texts.get(job_id, "")
            self.learned.append((text, job_id, facts[job_id]))
        hits = [capture_id for capture_id, job_id in self.jobs.items() if facts[job_id]]
        if read:
            self._read([self.jobs[capture_id] for capture_id in hits])
        return hits

    def field_values(self, name: str) -> dict[int, object]:
        """capture id -> the value of each output's top-level field `name` (None: it has none), taken out by
        SQLite from the outputs not read: none is decoded here, nor held."""
        unread = {job_id: capture_id for capture_id, job_id in self.jobs.items() if job_id not in self.texts}
        sql = "SELECT job_id, json_extract(output, ?) FROM processing_results WHERE job_id IN ({ids})"
        rows = rows_for_ids(reader(self.db), sql, list(unread), (f"$.{name}",))
        values = {unread[job_id]: value for job_id, value in rows}
        texts = self.texts
        values.update((capture_id, jsonio.loads(texts[job_id]).get(name)) for capture_id, job_id in self.jobs.items()
                      if job_id in texts)  # fmt: skip
        return values

    def __iter__(self) -> Iterator[int]:
        return iter(self.jobs)

    def __len__(self) -> int:
        return len(self.jobs)


def keep_mentions(conn: sqlite3.Connection, results) -> None:
    """Write what the `StoredOutputs` among `results` learned of their outputs' texts (in the caller's transaction)."""
    for outputs in results:
        learned = getattr(outputs, "learned", None)
        if learned:
            conn.executemany("INSERT OR IGNORE INTO result_mentions VALUES (?, ?, ?)", learned)
            learned.clear()
