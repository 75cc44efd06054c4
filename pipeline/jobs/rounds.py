"""Every round of a build's passes: planned (`plan.py`), drained by the workers (`worker.py`), its results
handed to the next round.

Passes run in rounds: a round's jobs can only be fingerprinted once the
results of the passes it needs exist, so each round is planned, worked, and
its results read before the next is planned.
"""

from __future__ import annotations

import sqlite3
import time

from pipeline.config import Config
from pipeline.content.article import Article
from pipeline.content.attachments import attachment_hashes
from pipeline.content.capture import current_capture_ids, load_articles
from pipeline.content.facts import Facts
from pipeline.incremental.job_reuse import Digests, read_results
from pipeline.jobs.context import BuildContext
from pipeline.jobs.plan import failed_jobs, load_results, plan_round
from pipeline.jobs.report import ProcessReport
from pipeline.jobs.worker import run_plan
from pipeline.passes.base import Wiki
from pipeline.passes.contract import PassSpec
from pipeline.passes.options import wiki_options
from pipeline.passes.registry import rounds
from pipeline.runtime.libc import give_back_memory
from pipeline.storage.results import ResultFacts


def plan_captures(conn: sqlite3.Connection, config: Config, specs: list[PassSpec]) -> int:
    """Create the jobs of the first round (passes that read only their capture); return how many."""
    articles = load_articles(conn, current_capture_ids(conn))
    wiki = Wiki(options=wiki_options(config, specs, [article.path for article in articles]), articles=articles,
                attachments=attachment_hashes(conn))  # fmt: skip
    first = rounds(specs)[0]
    return plan_round(conn, first, articles, wiki, max_attempts=config.jobs.max_attempts, now=time.time()).new_jobs


def run_rounds(context: BuildContext, gathered: Facts) -> ProcessReport:
    """Plan and drain every round for the current captures (with the context's cache, reading only what it lacks;
    with its helper worker, the small rounds worked in the build's helper process)."""
    conn, config, specs, workers, progress = context.conn, context.config, context.specs, context.workers, context.progress
    report = ProcessReport(problems=gathered.problems)
    known = context.cache.open(conn) if context.cache is not None else None
    wiki = _wiki_of(context, gathered, known.articles if known is not None else None)
    articles = wiki.articles
    digests: Digests = {name: {} for name in read_results(specs)}  # only the results some select reads
    paths = {article.capture_id: article.path for article in articles}
    used: set[int] = set()
    # Results known by job id: the memos' (read with them) and, in a long-lived process, the last builds'.
    facts: ResultFacts = known.facts if known is not None else {}
    texts: dict[int, str] = known.texts if known is not None else {}
    waiting = lambda held: progress.stage(f"waiting for {held} jobs another process holds")  # noqa: E731
    planned_rounds = rounds(specs)
    for number, round_specs in enumerate(planned_rounds, start=1):
        plan = plan_round(
            conn, round_specs, articles, wiki, max_attempts=config.jobs.max_attempts, now=time.time(), workers=workers,
            digests=digests, cache=known and known.plans, results=facts,
        )  # fmt: skip
        wiki.forget()  # the indexes selects built for this round: tens of MB no later round reads
        # Small rounds are not worth the start-up of worker processes.
        count = workers if len(plan.created) > 200 else 1
        if known is None:  # a command line's build: what no later select reads need not stay (pages read theirs)
            release_outputs(wiki, planned_rounds[number:])
            if count > 1:  # the workers forked next start from this process's pages; else they are used again
                give_back_memory()  # (given back after an edit's rounds instead, the workers fault far more pages in)
        report.add_plan([(paths[capture_id], name) for capture_id, name in plan.created], plan.new_jobs, plan.reused)
        progress.stage(", ".join(spec.name for spec in round_specs), len(plan.created))
        used.update(plan.job_ids())  # the build's jobs so far: the earlier rounds' have all ended
        report.work.add(run_plan(conn, config, specs, count, used, waiting=waiting, helper_worker=context.helper_worker))
        progress.advance(len(plan.created))
        lazy = {spec.name: spec.lazy_fields for spec in round_specs}
        wiki.results.update(load_results(conn, plan, digests, lazy, facts, texts))
        report.failures += failed_jobs(conn, plan)
    report.wiki = wiki
    if known is not None:
        known.keep(articles, used)
    return report


def _wiki_of(context: BuildContext, gathered: Facts, ahead: dict[int, Article] | None) -> Wiki:
    """The wiki the selects read: the current articles (those in `ahead` not read again) without their texts, which
    few selects read (they are left in the store), and the facts gathered."""
    articles = load_articles(context.conn, gathered.capture_ids, text=False, known=ahead)
    options = wiki_options(context.config, context.specs, [article.path for article in articles])
    return Wiki(options=options, articles=articles, data=gathered.data, facts=gathered.facts,
                attachments=attachment_hashes(context.conn))  # fmt: skip


def release_outputs(wiki: Wiki, later_rounds: list[list[PassSpec]]) -> None:
    """Let go of the outputs selects read, but those the passes of `later_rounds` need: after a
    cold build's last plan, a lot of JSON, mostly mentions and links outputs no page shows."""
    needed = {name for specs in later_rounds for spec in specs for name in spec.needs}
    for name, outputs in wiki.results.items():  # a build's are all StoredOutputs (`load_results`)
        if name not in needed:
            outputs.release()
