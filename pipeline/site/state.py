"""What the pages of a build were made of, kept for the next: so an edit renders its own pages only.

An article's page and its history page show three kinds of things: what
its seed says (title, URL, categories, translations: seeds.py), what
other articles' seeds say (its backlinks, its translations' titles) and
what is the article's own (its capture, html and citations results, when
it changed, its revisions, and the one part of its seed no other page
shows: its outdated-translation banner). Every wiki page but the lists of
changes and of all pages is made of seeds, data files and settings alone.

So a build digests the first two kinds once for the whole site (`shared`:
every article's path and what other pages show of its seed, the data
files, the languages, each language's navigation and settings, the
theme, the code), and the third per article (`own`). When `shared` is the last build's, the pages that
can differ are the changed articles' own two, the lists of changes and of
all pages, and the sitemap, whose only article-owned part is the day each
page last changed: the render step renders those and keeps every other
file of the last build as it is, without planning or digesting its pages.
Anything else (a title, a link, a new article, a data file, a template)
changes `shared`, and every page is planned and digested as before.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from dataclasses import dataclass, field

import orjson

from pipeline import jsonio
from pipeline.plan_memo import code_digest
from pipeline.site.model import ArticlePage, Model

OWN_LENGTH = 32  # hex digits of an own digest kept: 128 bits


@dataclass(frozen=True)
class SiteState:
    """`shared`: the digest of what every page may show of the whole wiki (None: not known, nothing is patched).
    `own`: article path -> its sitemap day and the digest of what only its pages show, as `day|digest`."""

    shared: str | None = None
    own: dict[str, str] = field(default_factory=dict)
    pages: int = 0  # the counts of the build that rendered this state
    redirects: int = 0


def site_state(model: Model, salts: dict[str, str], histories: dict[str, list]) -> SiteState:
    """The state of the pages `model` makes; `salts` is each language's digest of navigation, settings and theme."""
    shared = None
    if model.seeds_digest is not None:  # the code too: pages are made by the whole package (URLs, slugs, Markdown)
        code = code_digest(__name__)
        shared = digest((code, model.seeds_digest, model.default_language, model.languages, model.data, salts))
    own = {page.path: f"{(page.updated or '')[:10]}|{_own(page, histories.get(page.path, []))}" for page in model.articles}
    return SiteState(shared, own)


def _own(page: ArticlePage, revisions: list) -> str:
    """What an article's page and history page show that no other page may (its body by the jobs of its results,
    its outdated banner)."""
    return digest((page.capture, page.body.identity, page.updated, page.passes, page.outdated, revisions))[:OWN_LENGTH]


def kept_state(record: dict) -> SiteState | None:
    """The state a build recorded (its fields), or None when the record is not one (another version's, broken)."""
    try:
        state = SiteState(**record)
    except TypeError:
        return None
    well_formed = isinstance(state.shared, str) and isinstance(state.own, dict)
    return state if well_formed and isinstance(state.pages, int) and isinstance(state.redirects, int) else None


def changed_articles(last: SiteState | None, now: SiteState) -> set[str] | None:
    """The articles whose pages alone changed since `last`; None when every page must be planned again:
    no last state, a shared part changed, or a changed article's sitemap day did (the sitemap lists all pages)."""
    if last is None or now.shared is None or last.shared != now.shared:
        return None
    changed = {path for path, own in now.own.items() if last.own.get(path) != own}
    if any(last.own.get(path, "").split("|")[0] != now.own[path].split("|")[0] for path in changed):
        return None
    return changed


def digest(material) -> str:
    """sha256 of `material` as orjson writes it: dataclasses field by field, in order, and a
    lazy field as its identity (2.5x faster than pickling a page record). What orjson cannot
    write is pickled, in fast mode so that equal values give equal bytes. Page records hold
    no sets, whose order could vary between runs."""
    try:
        data = orjson.dumps(material, default=jsonio.as_json, option=orjson.OPT_NON_STR_KEYS)
    except TypeError:
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=5)
        pickler.fast = True
        pickler.dump(material)
        data = buffer.getvalue()
    return hashlib.sha256(data).hexdigest()
