"""Links to pages as the site's lists show them (`Link`), and each article's "What links here" (`Backlinks`, one
page's `LinksHere`), found from the page summaries' links."""

from __future__ import annotations

import operator
from itertools import compress, repeat
from typing import NamedTuple

from pipeline.content.article import Article
from pipeline.incremental.page_summaries import PageSummary


class Link(NamedTuple):
    """A link to a page as lists show it. A named tuple: an edit build makes several an article (its page's, its
    categories', its translations'), and a frozen dataclass took much longer to make each."""

    title: str
    url: str
    lang: str | None = None


class Backlinks:
    """Every article's "What links here": the articles linking to it, by title, found when asked.

    An edit build renders a few pages and asks for their lists only: each is found by
    looking through every article's links, in C (quick even in a big wiki),
    where indexing all of them takes many times longer. After `SCANS`
    lists, or when told every page will ask (`index`), the rest come from that index.
    """

    SCANS = 8

    def __init__(self, articles: list[Article], links: dict[int, Link], summaries: dict[int, PageSummary]) -> None:
        self.articles, self.links, self.summaries = articles, links, summaries
        self.asked = 0
        self.indexed: dict[str, list[Link]] | None = None
        self.lists: list[list[str]] | None = None  # the articles' `linked`, in their order, once scanned

    def of(self, path: str) -> list[Link]:
        self.asked += 1
        if self.indexed is None and self.asked > self.SCANS:
            self.index()
        if self.indexed is not None:
            return self.indexed.get(path, [])
        if self.lists is None:  # each article's links, in order, once: each scan then runs in C
            self.lists = [self.summaries[a.capture_id].linked for a in self.articles]
        found = compress(self.articles, map(operator.contains, self.lists, repeat(path)))
        return sorted((self.links[a.capture_id] for a in found if a.path != path), key=title_order)

    def index(self) -> None:
        """Index every article's list now (before a render forks: once, not in each process)."""
        if self.indexed is None:
            self.indexed = backlinks_index(self.articles, self.links, self.summaries)
            # The index is all it needs now: every page summary (with its red links, aliases, ...) can go.
            self.articles, self.links, self.summaries, self.lists = [], {}, {}, None


class LinksHere:
    """One page's "What links here" (a sequence of `Link`s), found the first time it is used."""

    __slots__ = ("_backlinks", "_path", "_found")

    def __init__(self, backlinks: Backlinks, path: str) -> None:
        self._backlinks, self._path, self._found = backlinks, path, None

    @property
    def found(self) -> list[Link]:
        if self._found is None:
            self._found = self._backlinks.of(self._path)
        return self._found

    def __iter__(self):
        return iter(self.found)

    def __len__(self) -> int:
        return len(self.found)

    def __eq__(self, other) -> bool:
        return list(self) == list(other)

    def as_json(self) -> list[Link]:  # a page digest reads the links themselves
        return self.found

    def __reduce__(self):  # as a list when a digest falls back to pickling: the index is one build's
        return list, (self.found,)


def backlinks_index(articles: list[Article], links: dict[int, Link], summaries: dict[int, PageSummary]) -> dict[str, list[Link]]:
    """target path -> the articles linking to it, by title."""
    found: dict[str, dict[str, Link]] = {}
    # Sources taken in title order (stable: ties as they come) fill each target's dict already sorted.
    for article in sorted(articles, key=lambda a: title_order(links[a.capture_id])):
        source, path = links[article.capture_id], article.path
        for target in summaries[article.capture_id].linked:
            if target != path:
                sources = found.get(target)  # not setdefault: it would make a dict for each link
                if sources is None:
                    found[target] = sources = {}
                sources[path] = source
    return {path: list(sources.values()) for path, sources in found.items()}


def title_order(link: Link) -> str:
    return link.title.casefold()
