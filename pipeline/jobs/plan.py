"""Planning: which jobs must exist for the current captures, keyed by exact inputs.

For each current capture and each pass of a round, the planner asks the pass
which slice of the wiki it reads (`select`), stores each part of that slice
once by its hash (`job_inputs`), and fingerprints capture + slice. A job pass
with that identity either exists already (its result is reused) or is created;
a capture's new job passes of the round make one `pending` job, which runs them
all. Changing anything outside a pass's slice therefore re-runs nothing.
Where nothing a pass reads has changed since the last plan, that plan passes on
its jobs and `select` is not called at all (`incremental/job_reuse.py`).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
import sys
from dataclasses import dataclass, field
from functools import partial
from operator import itemgetter
from typing import Callable

from pipeline.content.article import Article
from pipeline.incremental.job_reuse import (
    Digests, PlanCache, reuse_across, load_memo, own_digests_of, result_digests, save_memo, read_set_of,
)
from pipeline.incremental.kept_indexes import load_by_capture, load_stored_indexes, save_by_capture, save_stored_indexes
from pipeline.jobs.job_rows import insert_jobs, store_inputs
from pipeline.jobs.queue import PASS_ERROR
from pipeline.passes.base import Wiki
from pipeline.passes.contract import PassSpec
from pipeline.runtime import jsonio
from pipeline.runtime.forks import fork_map
from pipeline.storage.results import ResultFacts, StoredOutputs, keep_mentions
from pipeline.storage.store import db_path, write


MIN_JOBS_PER_PROCESS = 4000  # below this, forking costs more than planning in one process
# A kept memo that entries were made again in (`Wiki.made`) is kept again once there are this many: each build in
# the same read set makes those again, and keeping a memo of every article at each edit would cost more.
KEEP_AGAIN = 64


@dataclass
class Plan:
    """The job passes of one round: pass name -> capture id -> job pass id (its result's key: "job id" below
    and in the result tables, where a job ran one pass before schema v17).

    By pass, then capture: a round's job passes (one per pass and article) are looked up and handed on a pass
    at a time, with no key made for each.
    """

    jobs: dict[str, dict[int, int]] = field(default_factory=dict)
    created: list[tuple[int, str]] = field(default_factory=list)  # (capture id, pass name) of new job passes
    new_jobs: int = 0  # the jobs made to run them: one per capture that has some

    @property
    def reused(self) -> int:
        return sum(map(len, self.jobs.values())) - len(self.created)

    def job_ids(self) -> list[int]:
        return [job for jobs in self.jobs.values() for job in jobs.values()]


class _Hasher:
    """Canonical JSON (UTF-8) and its sha256, computed once per shared object.

    Keeping a reference to every object seen pins its id(), so a freed object's
    id can never be reused by a different one while it is in the cache. `sweep`
    unpins what only the cache still holds (an article's own slice, never seen
    again): pinning every slice of a big wiki's round held a lot of memory.
    """

    SWEEP_EVERY = 500  # jobs

    def __init__(self) -> None:
        self.seen: dict[int, tuple[object, str, str]] = {}

    def sweep(self) -> None:
        # 2 references: the cache's tuple and getrefcount's argument; anything more is a live holder.
        self.seen = {key: hit for key, hit in self.seen.items() if sys.getrefcount(hit[0]) > 2}

    def __call__(self, value) -> tuple[bytes, str]:
        hit = self.seen.get(id(value))
        if hit is None:
            text = jsonio.compact(jsonio.encode(value, sort_keys=True))
            hit = (value, text, hashlib.sha256(text).hexdigest())
            self.seen[id(value)] = hit
        return hit[1], hit[2]


def fingerprint(article: Article, input_shas: dict[str, str]) -> str:
    """The capture hash alone when a pass reads nothing else; else a hash over both."""
    if not input_shas:
        return article.sha256
    names = ",".join(f"{name}={sha}" for name, sha in sorted(input_shas.items()))
    return hashlib.sha256(f"{article.sha256}|{names}".encode()).hexdigest()


def plan_round(
    conn: sqlite3.Connection, specs: list[PassSpec], articles: list[Article], wiki: Wiki, *, max_attempts: int,
    now: float, workers: int = 1, digests: Digests | None = None, cache: PlanCache | None = None,
    results: ResultFacts | None = None,
) -> Plan:
    """Create the missing jobs of `specs` for `articles`; return every job of the round.

    `digests` (of the results so far) let the last plan pass on its jobs (`job_reuse`); `cache`,
    kept by a long-lived process, holds the memos it read or wrote before. `results` (job id ->
    (digest, reports)) gets the results of the memos read, for `load_results` to take as known.
    """
    plan = Plan()
    results = {} if results is None else results
    with write(conn):
        reuse = _reuse(conn, specs, articles, wiki, digests or {}, cache, results)
        rows, existing, touched = _slices(reuse, wiki, workers, digests or {}, partial(store_inputs, conn))
        keep_mentions(conn, wiki.results.values())  # what the read sets, own digests and selects searched for
        for spec in specs:  # the indexes built this round: by selects, own digests or AFFECTED
            built = {key: value for key, value in wiki.memos(spec.plan.keep).items()
                     if key not in reuse.loaded[spec.name] or wiki.entries_made(key) >= KEEP_AGAIN}  # fmt: skip
            if built:
                save_stored_indexes(conn, spec, reuse.read_sets[spec.name][0], built)
            if spec.plan.keep_by_capture:
                save_by_capture(conn, spec, wiki, reuse.by_capture[spec.name], reuse.current)
        missing = insert_jobs(conn, rows, existing, max_attempts, now)
        plan.created = [(capture_id, name) for capture_id, name, *_ in missing]
        plan.new_jobs = len({capture_id for capture_id, *_ in missing})
        plan.jobs = reuse.jobs
        for row in rows:
            plan.jobs[row[1]][row[0]] = existing[row[:4]]
        # The memo holds the results of the jobs it names that have one: those that existed (after
        # a title change, most of a read set's), not those just made.
        made = {existing[row[:4]] for row in missing}
        done = result_digests(conn, [job for job in (existing[row[:4]] for row in rows) if job not in made])
        # Let go of the rows first: a memo written whole (a cold build's for
        # html) is the round's last big allocation, and was its peak of memory.
        del rows, missing, existing
        saved = reuse.save(conn, plan.jobs, done, touched, results)
    if cache is not None:  # only once they are in the store: a transaction rolled back names jobs that never were
        for spec, read_set, entries, fresh in saved:
            cache.remember(spec, read_set, entries, fresh=fresh)
    return plan


@dataclass
class _Reused:
    """What the last plans pass on this round: jobs, and each pass's read set and own digests to record."""

    specs: list[PassSpec]
    articles: list[Article]
    read_sets: dict[str, tuple[str, dict]] = field(default_factory=dict)  # pass -> its read set (digest, parts)
    fresh: set[str] = field(default_factory=set)  # the passes whose read set is not the last plan's
    own_digests: dict[str, list[str]] = field(default_factory=dict)  # pass -> the own digest of each article, in order
    # The passes with nothing to reuse (a fresh read set, no memo to pass on): their own digests, which only the memo
    # saved keeps, are made with their slices, in the processes that make those (`_slices`).
    with_slices: list[PassSpec] = field(default_factory=list)
    jobs: dict[str, dict[int, int]] = field(default_factory=dict)  # pass -> capture id -> job id reused
    missed: dict[str, list[int]] = field(default_factory=dict)  # pass -> where its jobs not reused are in `articles`
    loaded: dict[str, set[str]] = field(default_factory=dict)  # pass -> the KEEP memos loaded into the wiki
    by_capture: dict[str, dict[str, int]] = field(default_factory=dict)  # pass -> KEEP_BY_CAPTURE memo -> size loaded
    current: set[int] = field(default_factory=set)  # the capture ids of `articles`
    touched: dict[str, dict] = field(default_factory=dict)  # pass -> what the last read set's selects read (TOUCHES)

    def todo(self) -> list[tuple[Article, PassSpec]]:
        """The jobs not reused, as (article, pass), article by article (and in pass order within one):
        a worker's batch then holds several passes of one article, so a parse cached in the worker
        process serves all of them."""
        missing = sorted((at, order) for order, spec in enumerate(self.specs) for at in self.missed[spec.name])
        return [(self.articles[at], self.specs[order]) for at, order in missing]

    def save(
        self, conn: sqlite3.Connection, jobs: dict[str, dict[int, int]], done: dict, touched: dict, known: ResultFacts
    ) -> list[tuple]:
        """Record the memo entries this round made, with the results `done` (job id -> (digest, reports)) or
        `known` (job id -> (digest, reports)) and what their selects read (`touched`: pass -> capture id -> keys);
        return them as (spec, read-set digest, entries, fresh). A fresh read set's memo holds every article's."""
        saved = []
        for spec in self.specs:
            name, own_digests, fresh = spec.name, self.own_digests[spec.name], spec.name in self.fresh
            at_all = range(len(self.articles)) if fresh else self.missed[name]
            new = ((self.articles[at].capture_id, own_digests[at]) for at in at_all)
            entries = [(cid, own, jobs[name][cid]) for cid, own in new]
            digests = {**_digests_known(entries, known), **done} if fresh else done
            read = {**self.touched.get(name, {}), **touched.get(name, {})} if spec.plan.touches else None
            save_memo(conn, spec, self.read_sets[name], entries, fresh=fresh, digests=digests, touched=read)
            saved.append((spec, self.read_sets[name][0], entries, fresh))
        return saved


def _digests_known(entries: list[tuple[int, str, int]], known: ResultFacts) -> ResultFacts:
    """job id -> (result digest, reports) of the entries' jobs whose results a memo read named (reused jobs)."""
    return {job: known[job] for _, _, job in entries if job in known}


def _reuse(
    conn: sqlite3.Connection, specs: list[PassSpec], articles: list[Article], wiki: Wiki, digests,
    cache: PlanCache | None, results: dict | None,
) -> _Reused:
    reuse = _Reused(specs, articles)
    ids = [article.capture_id for article in articles]
    current = reuse.current = set(ids)
    for spec in specs:
        if spec.plan.keep_by_capture:  # before the read set, which may read them (pairing's claims)
            by_capture = load_by_capture(conn, spec, wiki)
            wiki.load_memos(by_capture)
            reuse.by_capture[spec.name] = {key: len(values) for key, values in by_capture.items()}
        read_set = reuse.read_sets[spec.name] = read_set_of(spec, wiki, digests)
        memo, affected = load_memo(conn, spec, read_set[0], cache, results, current), set()
        if not memo:
            reuse.fresh.add(spec.name)
            across = reuse_across(conn, spec, read_set[1], wiki, results, current)
            if across is not None:  # a read set changed in a few articles' results: the others keep their jobs
                memo, affected, reuse.touched[spec.name] = across.memo, across.affected, across.touched
        # Before the own digests, which may read a stored index (pairing's evidence reads its index).
        loaded = load_stored_indexes(conn, spec, read_set[0]) if spec.plan.keep else {}
        wiki.load_memos(loaded)
        reuse.loaded[spec.name] = set(loaded)
        if not memo:  # every article's job is new: its own digests are only recorded
            reuse.with_slices.append(spec)
            reuse.jobs[spec.name], reuse.missed[spec.name] = {}, list(range(len(articles)))
            continue
        own_digests = reuse.own_digests[spec.name] = own_digests_of(spec, articles, wiki, digests)
        reuse.jobs[spec.name], reuse.missed[spec.name] = memo.reuse(ids, own_digests, affected)
    return reuse


def _slices(
    reuse: _Reused, wiki: Wiki, workers: int, digests: Digests, store: Callable[[list, dict], dict]
) -> tuple[list, dict, dict]:
    """Every job's row (identity and inputs), the job passes of those rows that exist (identity -> id), and what
    the selects read of KEEP values (pass -> capture id -> keys, for the passes that say: `TOUCHES`), computed by
    `workers` processes; and the own digests of the passes with nothing to reuse (`_Reused.with_slices`), into
    `reuse`. Each process's input blobs go to `store` (its rows, its blobs -> the rows' passes that exist) as
    they arrive."""
    todo = reuse.todo()
    shares = max(1, min(workers, len(todo) // MIN_JOBS_PER_PROCESS))
    if shares > 1:  # build the shared indexes (and searches) before forking, so no process builds them again
        for article, spec in {spec.name: (article, spec) for article, spec in todo if spec.select}.values():
            spec.select(article, wiki)
        for spec in reuse.with_slices:
            own_digests_of(spec, reuse.articles[:1], wiki, digests)
    parent = os.getpid()
    # Every share in a forked process, each one's inputs stored as it arrives: this process grows by the rows alone
    # (making them here, and then holding every input, was a cold build's peak of memory).
    parts = fork_map(lambda share: (_slices_of(todo[share::shares], wiki),
                                    _own_digests_of(todo[share::shares], reuse.with_slices, wiki, digests, parent)),
                     list(range(shares)), lambda part: _stored(part, store), here=False)  # fmt: skip
    rows = [None] * len(todo)
    existing: dict[tuple, int] = {}
    touched: dict[str, dict] = {}
    owns: dict[str, dict[int, str]] = {}
    for share, ((share_rows, share_existing, share_touched), (share_owns, made)) in enumerate(parts):
        rows[share::shares] = share_rows  # back in `todo` order, whatever process computed a row
        existing.update(share_existing)
        for name, read in share_touched.items():
            touched.setdefault(name, {}).update(read)
        for name, column in share_owns.items():
            owns.setdefault(name, {}).update(column)
        for key, (entries, count) in made.items():  # kept by the next plans: made in a forked process
            wiki.add_entries(key, entries, count)
    for spec in reuse.with_slices:
        reuse.own_digests[spec.name] = [owns[spec.name][article.capture_id] for article in reuse.articles]
    return rows, existing, touched


def _stored(part: tuple, store: Callable[[list, dict], dict]) -> tuple:
    """A share's part of `_slices` with its blobs handed to `store` and let go: (rows, existing, touched) in place
    of (rows, blobs, touched)."""
    (rows, blobs, touched), owns = part
    return (rows, store(rows, blobs), touched), owns


def _own_digests_of(
    todo: list[tuple[Article, PassSpec]], specs: list[PassSpec], wiki: Wiki, digests: Digests, parent: int
) -> tuple[dict[str, dict[int, str]], dict[str, tuple[dict, int]]]:
    """pass -> capture id -> own digest, of the `specs` for their articles in `todo`; and (in a process forked from
    `parent`) the entries those digests made in the passes' KEEP memos (`Wiki.entry`), with how many: the parent
    keeps them for the next plans."""
    keep = {key for spec in specs for key in spec.plan.keep}
    before = {key: wiki.entries_made(key) for key in keep}
    owns = {}
    for spec in specs:
        articles = [article for article, each in todo if each is spec]
        owns[spec.name] = dict(zip((article.capture_id for article in articles),
                                   own_digests_of(spec, articles, wiki, digests)))  # fmt: skip
    if os.getpid() == parent:
        return owns, {}
    made = {key: wiki.entries_made(key) - count for key, count in before.items()}
    return owns, {key: (wiki.memos([key])[key], count) for key, count in made.items() if count}


def _slices_of(todo: list[tuple[Article, PassSpec]], wiki: Wiki) -> tuple[list, dict, dict]:
    hasher, blobs, rows, touched = _Hasher(), {}, [], {}
    for number, (article, spec) in enumerate(todo, start=1):
        if number % hasher.SWEEP_EVERY == 0:
            hasher.sweep()
        slice_ = spec.inputs_of(article, wiki)
        if spec.plan.touches is not None:
            touched.setdefault(spec.name, {})[article.capture_id] = list(spec.plan.touches(article, wiki))
        shas = {}
        for name, value in slice_.items():
            text, sha = hasher(value)
            blobs[sha] = text
            shas[name] = sha
        inputs = jsonio.dumps(shas, sort_keys=True)
        rows.append((article.capture_id, spec.name, spec.version, fingerprint(article, shas), inputs))
    return rows, blobs, touched


def load_results(
    conn: sqlite3.Connection, plan: Plan, digests: Digests | None = None,
    lazy: dict[str, tuple[str, ...]] | None = None, known: ResultFacts | None = None,
    texts: dict[int, str] | None = None,
) -> dict[str, StoredOutputs]:
    """pass name -> capture id -> output, for the jobs of `plan` that have a result (read when used).

    Each result of a pass named in `digests` leaves its digest there too (for the next round's plan),
    taken from `result_digests`: no output is read here. The `lazy` fields of a pass (pass name ->
    fields) stay in the store: the output holds a `StoredField` for each, read when used. The digest of
    an output without its lazy fields covers them by the job id (a job's result never changes).
    `known` (job id -> (digest, reports), from this store) is used instead of reading those facts
    again, and gets the ones read; `texts` (job id -> output JSON) holds the outputs read, and may
    be a long-lived process's, which keeps them for its next build.
    """
    digests = {} if digests is None else digests
    known = {} if known is None else known
    texts = {} if texts is None else texts
    lazy = {name: fields for name, fields in (lazy or {}).items() if fields}
    db = db_path(conn)
    asked = [job_id for job_id in plan.job_ids() if job_id not in known]
    known.update(result_digests(conn, asked))
    missing = {job_id for job_id in asked if job_id not in known}  # failed jobs: they have no result
    results: dict[str, StoredOutputs] = {}
    for name, jobs in plan.jobs.items():
        if missing:  # else the plan's own dict is the pass's (a job per article), not copied
            jobs = {capture_id: job_id for capture_id, job_id in jobs.items() if job_id not in missing}
        outputs = StoredOutputs(db, lazy.get(name, ()), jobs, known, texts)
        if jobs:
            results[name] = outputs
        if name in digests:
            digests[name].update(_digests_of(outputs, name in lazy))
    return results


def _digests_of(outputs: StoredOutputs, lazy: bool):
    """(capture id, digest) of each result: its JSON's, or with lazy fields left out, its job's and that, joined
    (a job's result never changes). Made by loops in C: one per article, in each pass some select reads."""
    jobs = outputs.jobs
    digests = map(itemgetter(0), map(outputs.facts.__getitem__, jobs.values()))
    return zip(jobs.keys(), map("{}|{}".format, jobs.values(), digests) if lazy else digests)


def failed_jobs(conn: sqlite3.Connection, plan: Plan) -> list[tuple[str, str, str]]:
    """(path, pass name, last error) of the passes of `plan` whose job ended failed with no result for them.

    The failed jobs are found by the status index and kept when they are the plan's: asking for each
    of the plan's jobs (in chunks) took longer, in every build. A pass's error is its last failure's;
    a job made before passes failed apart (schema v17) has only its own.
    """
    rows = conn.execute(
        f"""SELECT p.id, p.capture_id, p.pass_name, c.path, {PASS_ERROR}
           FROM processing_jobs j JOIN job_passes p ON p.job_id = j.id JOIN captures c ON c.id = j.capture_id
           WHERE j.status = 'failed' AND NOT EXISTS (SELECT 1 FROM processing_results r WHERE r.job_id = p.id)"""
    )
    return [(path, name, error) for pass_id, capture_id, name, path, error in rows
            if plan.jobs.get(name, {}).get(capture_id) == pass_id]  # fmt: skip
