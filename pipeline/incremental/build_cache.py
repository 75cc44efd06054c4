"""What a long-lived process (`serve`) keeps from one build to the next, so that it reads again only what changed."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field

from pipeline.content.article import Article
from pipeline.incremental.job_reuse import PlanCache
from pipeline.storage.results import ResultFacts
from pipeline.storage.store import store_identity


@dataclass
class BuildCache:
    """What a long-lived process (`serve`) keeps from one build to the next.

    Captures and results never change once written, so what a build read by capture id or job
    id is still true for the next build of the same store, which reads from SQLite only the
    captures and results it has not seen. It holds what the last build used, nothing older.
    """

    store: tuple = ()  # `store_identity` of the database it was read from
    articles: dict[int, Article] = field(default_factory=dict)  # capture id -> StoredArticle
    facts: ResultFacts = field(default_factory=dict)  # job id -> (digest, reports) of its result
    texts: dict[int, str] = field(default_factory=dict)  # job id -> its result's output JSON, once read
    summaries: dict = field(default_factory=dict)  # what the last build's pages took of their results (page_summaries.py)
    plans: PlanCache = field(default_factory=PlanCache)  # the plan memos it read or wrote

    def open(self, conn: sqlite3.Connection) -> BuildCache:
        """Itself, emptied first when `conn` is not the store it was read from."""
        identity = store_identity(conn)
        if identity != self.store:
            self.store, self.articles, self.facts, self.texts, self.plans = identity, {}, {}, {}, PlanCache()
        return self

    def keep(self, articles: list[Article], jobs: set[int]) -> None:
        self.articles = {article.capture_id: article for article in articles}
        self.facts = {job: fact for job, fact in self.facts.items() if job in jobs}
        self.texts = {job: text for job, text in self.texts.items() if job in jobs}
