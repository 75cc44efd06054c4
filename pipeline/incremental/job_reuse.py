"""Reusing the last plan to the next: a pass's jobs for unchanged articles, without `select`.

A pass's `select(article, wiki)` is a pure function of the article and of
the parts of the wiki it reads, which the pass module declares:

- `READS`: what it reads across the wiki: `options`, `data` (the data
  files), `facts`, `sources` (other articles' captures: their text,
  frontmatter, hashes) and the names of passes whose results it reads for
  any article. The paths of the articles count too, unless it names only
  `options`, `data` and `facts`, which are digested whole: a pass that
  reads only options and data files is not replanned when an article is
  added or removed;
- `READS_OWN`: passes whose results it reads for the article itself only,
  and functions `(article, wiki) -> plain data` for what it reads of other
  articles on this article's behalf only (`pairing` reads the hash and
  history of a translation's source, not of every article in a pair).

An entry of READS may also be a function of the wiki returning the part it
reads as plain data, for a part narrower than the names say (`pairing`
names `pairing_sources`, every article's pairing fields, instead of
`sources`); one of READS_OWN, for what it reads of other articles on one
article's behalf (`html` reads the captures and links of the articles an
article embeds: `embedded_parts`).

The planner digests the READS parts into the pass's *read set*. While the read set
is the one the last plan was made in, an article whose capture and own
results (READS_OWN) are unchanged has the slice it had then, so it gets the
job it had then, and planning after an edit selects for the edited article
only. Results are digested by path, not capture: an edit that leaves an
article's title alone leaves the title index, and every slice built from
it, alone. A pass without `READS` reads everything; one without `select`
reads only its capture.

The indexes a pass's selects build from its read set alone (its `KEEP` memo
keys) are kept too, with the read set and the code that built them: the one
select an edit calls then loads the link index instead of building it, and
own digests that read an index (pairing's evidence) load it too.

A read set that changed in results and paths alone (a title, an added article)
still passes on what it can: a pass that declares `AFFECTED` names, from the
indexes it kept of the last read set, the articles whose select may read
something else now, and the others keep their jobs (`reuse_across`). The
read set's parts are recorded for that (options, data and facts must be as
they were), and so is what each select read of the stored indexes, for the
passes that say (`TOUCHES`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import sqlite3
from dataclasses import dataclass, field
from itertools import compress
from operator import eq, not_
from typing import Iterable

from pipeline.content.article import Article
from pipeline.incremental.kept_indexes import load_stored_indexes
from pipeline.passes.base import Wiki
from pipeline.passes.contract import WIKI_PARTS, PassSpec
from pipeline.runtime import jsonio
from pipeline.storage.results import ResultFacts
from pipeline.storage.store import rows_for_ids, write

Digests = dict[str, dict[int, str]]  # pass name -> capture id -> sha256 of the result's JSON


def reads_of(spec: PassSpec) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(READS, READS_OWN) as the planner takes them: everything when the pass did not say."""
    if spec.select is None:
        return (), ()
    if spec.plan.reads is None:
        return WIKI_PARTS + spec.needs, ()
    return spec.plan.reads, spec.plan.reads_own


def read_results(specs: list[PassSpec]) -> set[str]:
    """The passes some select reads the results of: only theirs need digests."""
    names = (name for spec in specs for name in (*reads_of(spec)[0], *reads_of(spec)[1]))
    return {name for name in names if isinstance(name, str) and name not in WIKI_PARTS}


# The parts digested whole: a read set of these alone needs no list of the articles.
ABOUT_NO_ARTICLE = ("options", "data", "facts", "attachments")


def read_set_of(spec: PassSpec, wiki: Wiki, digests: Digests) -> tuple[str, dict[str, str]]:
    """The digest of what the pass reads across the wiki, and the parts it is made of (name -> digest)."""
    reads, _ = reads_of(spec)
    parts = {name: _part(part, wiki, digests) for name, part in sorted((_name(part), part) for part in reads)}
    joined = [f"{spec.name}/{spec.version}/{_settings_digest(spec)}"] + [f"{name}={digest}" for name, digest in parts.items()]
    if any(part not in ABOUT_NO_ARTICLE for part in reads):
        parts["paths"] = _memo_hash(wiki, "paths", lambda: "\n".join(a.path for a in wiki.articles))
        joined.append(parts["paths"])
    return _sha("|".join(joined)), parts


def _settings_digest(spec: PassSpec) -> str:
    """The pass's own options as digested into its read set: a change re-plans it (they are in every job's inputs)."""
    return "" if spec.settings is None else _sha(jsonio.dumps(dataclasses.asdict(spec.settings), sort_keys=True))


def own_digests_of(spec: PassSpec, articles: list[Article], wiki: Wiki, digests: Digests) -> list[str]:
    """The own digest of each article (in order): its READS_OWN parts, joined.

    Computed a part at a time over all articles, not an article at a time: after an edit
    this runs for every pass and article (the number of passes times that of articles) to find the few that changed.
    Several parts are digested into one: joined, html's seven were hundreds of characters an article,
    a memo of megabytes that each edit build read and decoded.
    """
    _, own = reads_of(spec)
    if not own:
        return [""] * len(articles)
    columns = [_own_column(part, articles, wiki, digests) for part in own]
    return columns[0] if len(columns) == 1 else [_sha(",".join(row)) for row in zip(*columns)]


def _own_column(part, articles: list[Article], wiki: Wiki, digests: Digests) -> list[str]:
    if not callable(part):
        of_pass = digests.get(part, {})
        return [of_pass.get(article.capture_id, "-") for article in articles]
    known: dict[str, str] = {}  # most articles read the same few values (html: no embeds, `[]`)
    by_column = getattr(part, "column", None)  # `base.by_column`: made for all articles at once
    values = by_column(articles, wiki) if by_column is not None else [part(article, wiki) for article in articles]
    column = []
    for value in values:
        text = "[]" if value == [] else _canonical(value)
        sha = known.get(text)
        if sha is None:
            sha = known[text] = _sha(text)
        column.append(sha)
    return column


def _name(part) -> str:
    return part if isinstance(part, str) else f"{part.__module__}.{part.__qualname__}"


def _part(part, wiki: Wiki, digests: Digests) -> str:
    if callable(part):
        return _memo_hash(wiki, _name(part), lambda: _canonical(part(wiki)))
    if part == "sources":
        return _memo_hash(wiki, part, lambda: ",".join(str(a.capture_id) for a in wiki.articles))
    if part in ("options", "data", "facts"):
        return _memo_hash(wiki, part, lambda: _canonical(getattr(wiki, part)))
    if part == "attachments":
        return _memo_hash(wiki, part, lambda: "\n".join(f"{path}:{sha}" for path, sha in sorted(wiki.attachments.items())))
    of_pass = digests.get(part, {})
    return _memo_hash(wiki, f"results:{part}", lambda: "\n".join(f"{a.path}:{of_pass.get(a.capture_id, '-')}"
                                                                  for a in wiki.articles))  # fmt: skip


def _canonical(value) -> str:
    try:
        return jsonio.dumps(value, sort_keys=True)
    except (TypeError, ValueError):  # YAML can give what JSON cannot say (a set): its repr is as stable
        return repr(value)


def _memo_hash(wiki: Wiki, name: str, text) -> str:
    return wiki.memo(f"plan_memo.{name}", lambda: _sha(text()))


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


class Memo:
    """capture id -> (own digest, job id) of the last plans made in one read set, held as two dicts.

    Filled from a part's columns without a tuple for each entry, and matched against a plan's
    own digests all at once (`reuse`): an edit build matches every article of each pass.
    """

    __slots__ = ("own_digests", "jobs")

    def __init__(self) -> None:
        self.own_digests: dict[int, str] = {}
        self.jobs: dict[int, int] = {}

    def __bool__(self) -> bool:
        return bool(self.jobs)

    def add(self, captures: Iterable[int], own_digests: Iterable[str], jobs: Iterable[int]) -> None:
        self.own_digests.update(zip(captures, own_digests))
        self.jobs.update(zip(captures, jobs))

    def entries(self, current: set[int] | None = None) -> list[tuple[int, str, int]]:
        """(capture id, own digest, job id) of each entry, of the `current` captures only when given."""
        own_digests, jobs = self.own_digests, self.jobs.items()
        return [(capture, own_digests[capture], job) for capture, job in jobs if current is None or capture in current]

    def reuse(self, ids: list[int], own_digests: list[str], affected: set[int]) -> tuple[dict[int, int], list[int]]:
        """(capture id -> job reused, the places in `ids` of the captures reused none): a capture whose own digest
        (in `owns`, in the order of `ids`) is its entry's gets its job, unless it is `affected`."""
        same = list(map(eq, map(self.own_digests.get, ids), own_digests))  # no entry: None, never an own digest
        if affected:
            same = [found and capture not in affected for found, capture in zip(same, ids)]
        reuse = list(compress(ids, same))
        return dict(zip(reuse, map(self.jobs.__getitem__, reuse))), list(compress(range(len(ids)), map(not_, same)))


@dataclass
class PlanCache:
    """What a long-lived process (`serve`) keeps of the plan memo between builds of one store.

    Each memo row is a fact that never becomes false (in this read set, this capture with these own
    digests has this job: jobs are never deleted), so what a build read or wrote is still true for
    the next, which does not read it again. The store's read set of each pass is still read each time:
    a memo is only used in its own read set, whatever another process planned since. (Stored indexes are
    not held: a select fills them with what it read of one build, which only pickling leaves out.)
    """

    memos: dict[tuple[str, int], tuple[str, Memo]] = field(default_factory=dict)  # pass -> (read set, its memo)

    def cached(self, key: tuple[str, int], read_set: str) -> Memo | None:
        """The memo of pass `key` cached for `read_set` (None: none cached, or one of another read set)."""
        cached_read_set, memo = self.memos.get(key, ("", None))
        return memo if cached_read_set == read_set else None

    def remember(self, spec: PassSpec, read_set: str, entries: list[tuple[int, str, int]], *, fresh: bool) -> None:
        """Hold the entries `save_memo` stored (after their transaction committed), as it stored them."""
        key = (spec.name, spec.version)
        cached = None if fresh else self.cached(key, read_set)
        if cached is None:
            cached = Memo()
            self.memos[key] = (read_set, cached)
        if entries:
            cached.add(*zip(*entries))


def load_memo(
    conn: sqlite3.Connection, spec: PassSpec, read_set: str, cache: PlanCache | None = None,
    results: ResultFacts | None = None, current: set[int] | None = None,
) -> Memo:
    """capture id -> (own digest, job id) of the last plans, when made in `read_set` (else none).

    `results` (job id -> (digest, reports)) gets the digest of each memo job's result, which the
    memo holds: the jobs a plan passes on are those whose results the build then loads. Call it in a
    write transaction: a memo of many parts, or that learned many digests, is packed again into
    one part, keeping only the entries of the `current` captures (when given).
    """
    key = (spec.name, spec.version)
    row = conn.execute("SELECT read_set FROM plan_read_sets WHERE pass_name = ? AND pass_version = ?", key).fetchone()
    if row is None or row[0] != read_set:
        return Memo()
    cached = cache.cached(key, read_set) if cache is not None else None
    if cached is not None:
        return cached
    memo = _read_memo(conn, key, {} if results is None else results, current)
    if cache is not None:
        cache.memos[key] = (read_set, memo)
    return memo


@dataclass
class Across:
    """What the last read set passes on a pass whose read set changed (`reuse_across`)."""

    memo: Memo  # as `load_memo` gives it
    affected: set[int]  # the captures whose selects may read something else now: none of their jobs is reused
    touched: dict[int, frozenset]  # capture id -> what its select read of the KEEP values (`TOUCHES`)


def reuse_across(
    conn: sqlite3.Connection, spec: PassSpec, parts: dict[str, str], wiki: Wiki, results: dict, current: set[int]
) -> Across | None:
    """The memo of the last read set, and the articles whose selects may read something else in this one (the
    pass's `AFFECTED`), when the read sets differ in what results and article paths give alone; else None.

    `parts` is this read set's (`read_set_of`). The last read set's KEEP values are what AFFECTED compares this
    wiki with: without any (built by other code, or never kept) it is not asked; without the one it
    compares (a select builds some, and none may have run) it answers None.
    """
    key = (spec.name, spec.version)
    row = conn.execute(
        "SELECT read_set, parts FROM plan_read_sets WHERE pass_name = ? AND pass_version = ?", key
    ).fetchone()
    if spec.plan.affected is None or row is None or row[1] is None:
        return None
    last = jsonio.loads(row[1])
    if last.keys() != parts.keys() or any(last[name] != parts[name] for name in ABOUT_NO_ARTICLE if name in parts):
        return None
    old = load_stored_indexes(conn, spec, row[0])
    if not old:
        return None
    touched = load_touched(conn, key) if spec.plan.touches else {}
    affected = spec.plan.affected(old, wiki, touched)
    if affected is None:
        return None
    return Across(_read_memo(conn, key, results, current), set(affected), touched)


# A memo is one row per plan that added to it (a part), packed into one row again when it has more
# parts than this, or when a read had to look up more result digests than this (after a cold build,
# every job's: its plan saved them before they ran).
MAX_PARTS = 16
PACK_FOUND = 64


def _read_memo(
    conn: sqlite3.Connection, key: tuple[str, int], results: dict, current: set[int] | None, pack: bool = False
) -> Memo:
    parts = conn.execute(
        "SELECT entries FROM plan_memo WHERE pass_name = ? AND pass_version = ? ORDER BY part", key
    ).fetchall()
    memo = Memo()
    digests: dict[int, tuple] = {}  # job id -> (result digest or None, reports)
    pending: set[int] = set()  # the jobs saved without a result digest: planned before they ran, or failed
    for (entries,) in parts:
        captures, own_digests, jobs, shas, reports = jsonio.loads(entries)
        memo.add(captures, own_digests, jobs)
        digests.update(zip(jobs, zip(shas, reports)))
        pending.update(compress(jobs, map(not_, shas)))  # found without a Python call per job
    unknown = [job for job in pending if digests[job][0] is None]  # not known from a later part either
    found = result_digests(conn, unknown)
    digests.update(found)
    if pack or len(parts) > MAX_PARTS or len(found) > PACK_FOUND:
        touched = load_touched(conn, key)
        conn.execute("DELETE FROM plan_memo WHERE pass_name = ? AND pass_version = ?", key)
        kept = memo.entries(current)
        if kept:
            _add_part(conn, key, kept, digests, touched)
    # Not a failed job (it has no result), nor one another process has yet to run.
    for job in unknown:
        if job not in found:
            del digests[job]
    results.update(digests)
    return memo


def pack_memos(conn: sqlite3.Connection, keys: list[tuple[str, int]]) -> None:
    """Pack the memos of the passes `keys` ((name, version): a plan saved their entries before their jobs
    ran, so without the digests of those jobs' results) with those digests, each in its own transaction:
    a cold build's memos, which the next build would otherwise pack (in its first edit build)."""
    for key in keys:
        with write(conn):
            _read_memo(conn, key, {}, None, pack=True)


def result_digests(conn: sqlite3.Connection, jobs: list[int]) -> dict[int, tuple[str, int]]:
    """job id -> (digest of its result, whether it may report a diagnostic), of those of `jobs` that have one."""
    sql = "SELECT job_id, sha256, reports FROM result_digests WHERE job_id IN ({ids})"
    return {job: (sha, reports) for job, sha, reports in rows_for_ids(conn, sql, jobs)}


def load_touched(conn: sqlite3.Connection, key: tuple[str, int]) -> dict[int, frozenset]:
    """capture id -> what its select read of the pass's KEEP values (`TOUCHES`), for the memo's entries."""
    touched: dict[int, frozenset] = {}
    rows = conn.execute(
        """SELECT touched FROM plan_memo WHERE pass_name = ? AND pass_version = ? AND touched IS NOT NULL
           ORDER BY part""", key,
    )  # fmt: skip
    for (column,) in rows:
        touched.update((capture, frozenset(keys)) for capture, keys in jsonio.loads(column))
    return touched


def save_memo(
    conn: sqlite3.Connection, spec: PassSpec, read_set: tuple[str, dict], entries: list[tuple[int, str, int]], *,
    fresh: bool, digests: dict[int, tuple[str, int]] | None = None, touched: dict | None = None,
) -> None:
    """Record (capture id, own digest, job id) entries made in `read_set` (digest, parts), with the result
    `digests` known (job id -> (digest, reports)) and what their selects read of KEEP values (`touched`);
    `fresh` drops those of another read set."""
    key = (spec.name, spec.version)
    if fresh:
        conn.execute("DELETE FROM plan_memo WHERE pass_name = ? AND pass_version = ?", key)
        conn.execute("INSERT OR REPLACE INTO plan_read_sets (pass_name, pass_version, read_set, parts) VALUES (?, ?, ?, ?)",
                     (*key, read_set[0], jsonio.dumps(read_set[1])))  # fmt: skip
    if entries:
        _add_part(conn, key, entries, digests or {}, touched)


BLOB_CHUNK = 1 << 20  # bytes of a part written at a time


def _add_part(
    conn: sqlite3.Connection, key: tuple[str, int], entries: list, digests: dict[int, tuple], touched: dict | None
) -> None:
    """Store `entries` (capture id, own, job id) as the memo's next part, with the result digests known
    and what each entry's select read of KEEP values, when the pass says (`touched`).

    Written into a zero-filled blob a megabyte at a time: bound as a parameter, a big part (a cold
    build's html memo) was copied three times by SQLite, and was the peak of
    memory of a big cold build.
    """
    captures, own_digests, jobs = (list(column) for column in zip(*entries))
    known = [digests.get(job, (None, None)) for job in jobs]
    data = memoryview(jsonio.encode([captures, own_digests, jobs, [sha for sha, _ in known], [r for _, r in known]]))
    read = jsonio.encode([[c, sorted(touched[c])] for c in captures if c in touched]) if touched else None
    row = conn.execute(
        """INSERT INTO plan_memo (pass_name, pass_version, part, entries, touched) VALUES (?, ?,
               (SELECT ifnull(max(part), -1) + 1 FROM plan_memo WHERE pass_name = ? AND pass_version = ?),
               zeroblob(?), ?)""",
        (*key, *key, len(data), read),
    ).lastrowid
    with conn.blobopen("plan_memo", "entries", row) as blob:
        for start in range(0, len(data), BLOB_CHUNK):
            blob.write(data[start : start + BLOB_CHUNK])
