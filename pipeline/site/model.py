"""The article pages of the site, as plain records built from pass results (pure).

`build_model` reads only a `Wiki` (articles, options, data, facts, results),
the capture log and the versions of the passes, so the same inputs always
give the same model. Wiki pages (categories, wanted, recent changes,
history, redirects) are built from it in `pages.py`.
"""

from __future__ import annotations

import functools
import hashlib
import math
import operator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from itertools import compress
from typing import Callable, Iterable, Iterator

from pipeline.content.article import Article
from pipeline.content.facts import Change
from pipeline.incremental.page_summaries import PageSummary, PageSummaries, summary_keys, summary_of
from pipeline.passes.base import Wiki
from pipeline.runtime import records
from pipeline.site.page_links import Backlinks, Link, LinksHere
from pipeline.site.page_data import (
    Frontmatter, PassOutputs, PassResults, article_tags, identity_of, read_each, read_once,
)  # fmt: skip
from pipeline.urls import history_url, normalize_base, shared_urls, tag_url

# The passes whose results an article page shows (mentions reach it through html).
PAGE_PASSES = ("metadata", "headings", "pairing", "citations", "wikilinks", "html")  # named on each page
SUMMARY_PASSES = ("metadata", "wikilinks", "pairing")  # what a page takes of these is its page summary (page_summaries.py)


class PageBody:
    """What an article page shows of its own html and citations results, decoded when it is rendered.

    An edit build renders a handful of pages and digests the rest: a body that comes from stored
    results is digested as the ids of their jobs (a job's result never changes), so the
    results of a page that is not rendered again are never decoded.
    """

    __slots__ = ("identity", "_read", "_value")

    def __init__(self, identity, read: Callable[[], dict]) -> None:
        self.identity, self._read, self._value = identity, read, None

    @property
    def value(self) -> dict:
        if self._value is None:
            self._value = self._read()
        return self._value

    def release(self) -> None:
        """Forget the value read (its page is rendered): read again if asked for again."""
        self._value = None

    def as_json(self):
        return self.identity

    def __reduce__(self):
        # As its identity too when a digest falls back to pickling (what JSON cannot say): the
        # reader is of one build, and the value it reads is the identity's.
        return PageBody, (self.identity, None)


@dataclass(slots=True)  # one per article
class ArticlePage:
    """One article as its page shows it; URLs are site-root-relative."""

    path: str
    capture_id: int
    lang: str
    url: str
    title: str
    short_description: str | None
    body: PageBody  # html, references_html, toc, further_reading: read when the page is rendered
    backlinks: LinksHere  # found when first used
    aliases: list[str]
    category_names: list[str]  # as the article names them; pages.py resolves them
    outdated: dict | None  # the pairing pass's verdict, plus `source_url`
    updated: str | None  # ISO 8601 UTC: last git commit, else when the current bytes were captured
    capture: str  # sha256 of the captured bytes
    passes: PassOutputs  # each pass's output by name; iterated, (pass, version) of each result the page shows
    draft: bool = False
    translations: list[Link] = field(default_factory=list)  # set from pair_paths once every page exists
    pair_paths: list[str] = field(default_factory=list)  # translations, by path (pairing pass)
    categories: list[Link] = field(default_factory=list)  # set by pages.py
    tags: list[Link] | tuple = ()  # its tags' pages (frontmatter `tags:` and inline `#tags`)

    @property
    def history_url(self) -> str:
        return history_url(self.url)

    @property
    def html(self):  # a str, or a StoredField read when the template writes it
        return self.body.value["html"]

    @property
    def references_html(self) -> str:
        return self.body.value["references_html"]

    @property
    def toc(self) -> list[dict]:
        return self.body.value["toc"]

    @property
    def further_reading(self) -> list[dict]:  # references never cited in the text
        return self.body.value["further_reading"]

    @property
    def frontmatter(self) -> Frontmatter:
        """Every key of its frontmatter (`page.frontmatter.author`), decoded when a template reads one; its bytes,
        which a page digest names, are what it is made of."""
        return self.passes.frontmatter()


@dataclass
class Model:
    default_language: str
    languages: list[str]
    articles: list[ArticlePage]  # by path; one per URL
    log: list[Change]
    data: dict
    broken: list[tuple[Link, str]]  # (linking page, target) of every red link
    backlinks: Backlinks  # each page's `backlinks` reads it
    conflicts: list[str] = field(default_factory=list)  # pages that lost their URL to another
    # The digest of every article's path and what other pages show of its page summary (page_digests.py; None: not known).
    summaries_digest: str | None = None
    summary_keys: dict[str, str | None] = field(default_factory=dict)  # article path -> its page summary's key (page_summaries.py)
    # Article path -> (its page summary in the last build, or None: not known; its page summary now), for the page summaries that changed.
    replaced: dict[str, tuple[PageSummary | None, PageSummary]] = field(default_factory=dict)
    weights: dict[str, float] = field(default_factory=dict)  # article path -> its `weight:`/`order:` (navigation.py)
    tags: dict[str, list[str]] = field(default_factory=dict)  # article path -> its tags, for the tagged articles
    # Article path -> its tags in the last build, for the articles whose tags changed since (page_data.article_tags).
    retagged: dict[str, list[str]] = field(default_factory=dict)
    outputs: PassResults | None = None  # every pass's results, which each page's `passes` reads
    _by_path: dict[str, ArticlePage] | None = field(default=None, init=False, repr=False, compare=False)

    def by_path(self) -> dict[str, ArticlePage]:
        """path -> its page; made once (a model's pages do not change once it is made), as several outputs ask."""
        if self._by_path is None:
            self._by_path = {page.path: page for page in self.articles}
        return self._by_path

    def pages_at(self, paths: Iterable[str]) -> list[ArticlePage]:
        """The pages of those of `paths` that have one, in the model's order (by path): after an edit, the pages of
        the changed articles, found without going through every page."""
        pages = self.by_path()
        return [pages[path] for path in sorted(paths) if path in pages]


def languages_of(wiki: Wiki, langs: set[str]) -> list[str]:
    default = wiki.options["default_language"]
    chosen = wiki.options.get("languages") or sorted(langs | {default})
    return [default] + [lang for lang in chosen if lang != default]


def build_model(
    wiki: Wiki, log: list[Change], versions: dict[str, int], summaries: PageSummaries | None = None, last_keys: dict | None = None,
    last_tags: dict[str, list[str]] | None = None,
) -> Model:
    """The model of `wiki`; `summaries` (the last build's, see page_summaries.py) gets the page summaries this one used.

    `last_keys` (article path -> page summary key, of the last build's pages) names the page summaries that changed;
    `last_tags` (article path -> its tags, of the last build's tagged pages; None: not known) the tags of the others.
    """
    default = wiki.options["default_language"]
    metadata = wiki.results.get("metadata", {})
    summaries = PageSummaries() if summaries is None else summaries
    results = [wiki.results.get(name, {}) for name in SUMMARY_PASSES]
    articles = [a for a in wiki.articles if a.capture_id in metadata]
    ids = [a.capture_id for a in articles]
    in_order = _summary_keys(results, ids)
    summarized = summaries.take(in_order, lambda ats: _summaries([ids[at] for at in ats], results))  # in order
    made = dict(zip(ids, summarized))
    paths = [a.path for a in articles]
    keys = dict(zip(paths, in_order))
    replaced = _replaced(paths, in_order, summarized, summaries, last_keys or {})
    tags, retagged = article_tags(metadata, dict(zip(paths, ids)), replaced, last_tags)
    outputs = PassResults(wiki.results)
    # Each article as a link to it: its page's URL, and what its backlinks and red links show.
    links = dict(zip(ids, _links_to(summarized)))
    conflicts = _move_shared(paths, ids, links)  # the URLs moved aside; `_first_at_each_url` adds any still taken twice
    backlinks = Backlinks(articles, links, made)
    broken = [(links[a.capture_id], target) for a in articles for target in made[a.capture_id].broken]
    updated, shown, bodies = _last_updated(wiki, log), _shown(wiki, versions, articles), _Bodies(wiki)
    pages = []
    for article in sorted(articles, key=lambda a: a.path):
        summary = made[article.capture_id]
        passes = PassOutputs(outputs, article, shown.get(article.capture_id, shown[None]))
        page = _page(article, summary, links[article.capture_id].url, bodies.of(article), passes,
                     LinksHere(backlinks, article.path), updated(article.path))  # fmt: skip
        if article.path in tags:
            page.tags = [Link(tag, tag_url(tag, summary.lang, default), summary.lang) for tag in tags[article.path]]
        pages.append(page)
    pages = _first_at_each_url(pages, conflicts)
    _link_translations(pages, links)
    langs = languages_of(wiki, {page.lang for page in pages})
    return Model(default, langs, pages, log, dict(wiki.data), broken, backlinks, conflicts,
                 _summaries_digest(paths, summarized), keys, replaced, _weights(articles), tags, retagged, outputs)  # fmt: skip


def _last_updated(wiki: Wiki, log: list[Change]) -> Callable[[str], str | None]:
    """path -> when its article last changed: its last commit's time where git knows it, else its newest change's
    in the log (path, time, ...)."""
    last_seen = dict(map(operator.itemgetter(0, 1), log))
    git_times = wiki.facts.get("git_times") or {}
    if not git_times:  # outside git: asked of every article, a lookup alone
        return last_seen.get
    return lambda path: iso_time(git_times[path]) if git_times.get(path) else last_seen.get(path)


def _first_at_each_url(pages: list[ArticlePage], conflicts: list[str]) -> list[ArticlePage]:
    """`pages` but those whose URL an earlier one has, each of which is said in `conflicts`."""
    taken: dict[str, str] = {}
    kept = []
    for page in pages:
        if page.url in taken:
            conflicts.append(f"{page.path}: its URL /{page.url} is already {taken[page.url]}'s")
            continue
        taken[page.url] = page.path
        kept.append(page)
    return kept


def _weights(articles: list[Article]) -> dict[str, float]:
    """path -> the number its frontmatter's `weight:` (else `order:`) gives, where it gives one. A stored article's
    frontmatter is decoded only when its JSON holds either key: most hold neither."""
    found = {}
    for article in articles:
        held = getattr(article, "frontmatter_json", None)  # a StoredArticle's; a plain Article's is decoded
        if held is not None and '"weight"' not in held and '"order"' not in held:
            continue
        meta = article.frontmatter or {}
        value = meta.get("weight", meta.get("order"))
        if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
            found[article.path] = float(value)
    return found


def _replaced(paths: list[str], keys: list[str | None], now: list[PageSummary], summaries: PageSummaries, last_keys: dict) -> dict:
    """path -> (the last build's page summary, or None when unknown; the page summary now) of the articles (`paths`, with the key
    and page summary of each now) whose page summary key changed: found comparing the keys, then looked up for those only."""
    last = list(map(last_keys.get, paths))
    changed = [key is None or key != old for key, old in zip(keys, last)]
    return {path: (summaries.known.get(old), summary) for path, old, summary in compress(zip(paths, last, now), changed)}


def _shown(wiki: Wiki, versions: dict[str, int], articles: list[Article]) -> dict:
    """capture id -> (pass, version) of each result its page shows, for the articles lacking one; None: all."""
    # Looked up without decoding any result (a StoredOutputs' keys are its dict's).
    shown = [(name, versions[name], wiki.results[name].keys()) for name in PAGE_PASSES if name in wiki.results]
    ids = {a.capture_id for a in articles}
    lacking = set().union(*(ids.difference(present) for _, _, present in shown))
    passes = {cid: [(name, version) for name, version, present in shown if cid in present] for cid in lacking}
    return {None: [(name, version) for name, version, _ in shown], **passes}


def _summaries_digest(paths: list[str], summaries: list[PageSummary]) -> str:
    """What the pages share of every article's page summary, with its path (the articles' `paths` and `summaries`, in order)."""
    shared = map(operator.attrgetter("shared"), summaries)
    return hashlib.sha256("\n".join(map("{}:{}".format, paths, shared)).encode()).hexdigest()


def _summaries(capture_ids: list[int], results: list) -> list[PageSummary]:
    """The page summaries of the articles `capture_ids`, each made of its SUMMARY_PASSES outputs."""
    return [summary_of(*outputs) for outputs in zip(*(read_each(each, capture_ids) for each in results))]


def _summary_keys(results: list, ids: list[int]) -> list[str | None]:
    """The digests of the results of each capture of `ids` (`-`: none), as one key; None when one is held as
    plain data (tests). StoredOutputs know a result's digest without reading it."""
    held = [outputs if hasattr(outputs, "digest") else None for outputs in results]  # StoredOutputs, else None
    keys = summary_keys(zip(*(_digests(stored, ids) for stored in held)))
    plain = [outputs for stored, outputs in zip(held, results) if stored is None and outputs]
    if plain:
        keys = [None if any(cid in outputs for outputs in plain) else key for cid, key in zip(ids, keys)]
    return keys


def _digests(stored, ids: list[int]) -> list[str]:
    """The digest of the result of each capture of `ids` (`-`: none, or not stored)."""
    if stored is None:
        return ["-"] * len(ids)
    jobs, facts = stored.jobs, stored.facts
    return [facts[jobs[cid]][0] if cid in jobs else "-" for cid in ids]


def _move_shared(paths: list[str], ids: list[int], links: dict[int, Link]) -> list[str]:
    """Give each article whose URL another's is too the URL it is published at instead (`urls.shared_urls`), in
    `links` (capture id -> the link to its page); a warning for each."""
    urls = list(map(operator.attrgetter("url"), links.values()))
    if len(set(urls)) == len(urls):  # most wikis, every build: no URL is two articles'
        return []
    by_path = dict(zip(paths, ids))
    moved = shared_urls({path: links[capture_id].url for path, capture_id in by_path.items()})
    warnings = []
    for path, (url, first) in sorted(moved.items()):
        link = links[by_path[path]]
        warnings.append(f"{path}: its URL /{link.url} is also {first}'s: it is published at /{url}")
        links[by_path[path]] = link._replace(url=url)
    return warnings


def _links_to(summaries: Iterable[PageSummary]) -> Iterator[Link]:
    """The link to each page summary's page (made in C: one for each article)."""
    return records.made(Link, map(operator.attrgetter("title", "url", "lang"), summaries))


def _page(article: Article, summary: PageSummary, url: str, body: PageBody, passes: PassOutputs, backlinks: LinksHere,
          updated: str | None) -> ArticlePage:  # fmt: skip
    """`passes`: its outputs of each pass (page_data.py). Its body is decoded if it is rendered.

    The fields in their order, not by name: pages made with seventeen keywords took twice as long.
    The page summary's lists are the page's (neither changes them)."""
    return ArticlePage(
        article.path, article.capture_id, summary.lang, url, summary.title, summary.short_description, body, backlinks,
        summary.aliases, summary.categories, summary.outdated, updated, article.sha256, passes,  # the fields without defaults
        summary.draft, [], summary.pair_paths, [],  # draft, translations, pair_paths, categories
    )  # fmt: skip


class _Bodies:
    """The body of each article's page, named by its html and citations results (see `page_data.identity_of`)."""

    def __init__(self, wiki: Wiki) -> None:
        self.options = wiki.options
        self.html, self.citations = wiki.results.get("html", {}), wiki.results.get("citations", {})
        self.named = [identity_of(outputs) for outputs in (self.html, self.citations)]  # asked of each page
        self.present = self.html.keys()  # whose `in` calls no Python method

    def of(self, article: Article) -> PageBody:
        if article.capture_id not in self.present:  # its html job failed: the body is rendered here, from the source
            body = self.read(article)
            return PageBody(body, lambda: body)
        html, citations, capture_id = *self.named, article.capture_id  # not a comprehension: a call of its own
        return PageBody([html(capture_id), citations(capture_id)], functools.partial(self.read, article))

    def read(self, article: Article) -> dict:
        output = read_once(self.html, article.capture_id) or fallback_html(article, self.options)
        references = (read_once(self.citations, article.capture_id) or {}).get("references", [])
        return {
            "html": output["html"], "references_html": output.get("references_html", ""), "toc": output.get("toc", []),
            "further_reading": [ref for ref in references if not ref["cited"] and ref["source"] != "list"],
        }  # fmt: skip


def fallback_html(article: Article, options: dict) -> dict:
    """The body rendered without link resolution: a page still shows when its html job failed."""
    from pipeline.markdown import make_parser

    base = normalize_base(options.get("base_url"))
    md = make_parser(raw_html=bool(options.get("raw_html")), base_url=base, default_language=options["default_language"],
                     markdown=options.get("markdown", ""))
    return {"html": md.render(article.body, {"lang": article.lang}), "toc": []}


def _link_translations(pages: list[ArticlePage], links: dict[int, Link]) -> None:
    """Give each translation its page's link (`links`: capture id -> the link to each article's page), drop
    counterparts with no page, point outdated banners at the source."""
    by_path = {page.path: page for page in pages}
    link_of = {page.path: links[page.capture_id] for page in pages}
    for page in pages:
        if page.pair_paths:  # most articles have no translation: no list is made for them
            page.translations = [link_of[path] for path in page.pair_paths if path in link_of]
        if page.outdated:
            source = by_path.get(page.outdated.get("source_path"))
            page.outdated = {**page.outdated, "source_url": source.url if source else None}


def iso_time(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).isoformat(timespec="seconds")
