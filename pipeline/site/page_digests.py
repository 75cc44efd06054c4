"""What the pages of a build were made of, kept for the next: so an edit renders its own pages only.

An article's page and its history page show three kinds of things: what
its page summary says (title, URL, categories, translations: page_summaries.py), what
other articles' page summaries say (its backlinks, its translations' titles) and
what is the article's own (its capture, html and citations results, when
it changed, its revisions, and the one part of its page summary no other page
shows: its outdated-translation banner). Every wiki page but the home pages
and the lists of changes is made of page summaries, data files and settings alone
(a list of pages shows each one's title and URL).

So a build digests the first two kinds once for the whole site (`shared`:
every article's path and what other pages show of its page summary, the data
files, the languages, each language's navigation and settings, the
theme, the code), and names the third per article (`own`: by what
identifies what it is made of, where it can). When `shared` is the last build's, the pages that
can differ are the changed articles' own two, the home pages and the lists
of changes, and the sitemap, whose only article-owned part is the day each
page last changed: the render step renders those and keeps every other
file of the last build as it is, without planning or digesting its pages.

When only page summaries changed (`base`, the rest of `shared`, is the last
build's), and only in what keeps every page where it was and every list of
pages as long (a title, a short description, links: not a slug, language,
draft mark, alias, category or translation), the pages that can differ
besides are those showing a changed page summary: the article's own, the pages its
links reach, before or after ("What links here"), its translations' (their
language switcher) and the wiki pages (lists of titles, red links), unless
all that changed is which articles its links reach, which no list shows. The
last build's page summary of each page is found by its key (`summaries`). A new
article (page summaries changing as above besides) shows on its own pages, those its
links reach, its translations', the wiki pages and the sitemap: every page
is planned (the sitemap and the redirects list them all), those pages
rendered, and every other article's two kept as the last build left them.
Anything else (an article gone, a moved page, a data file, a template)
plans and digests every page as before.
"""

from __future__ import annotations

import hashlib
import io
import pickle
from dataclasses import dataclass, field

import orjson

from pipeline.incremental.code_digest import code_digest
from pipeline.runtime import jsonio
from pipeline.site.model import ArticlePage, Model

OWN_LENGTH = 32  # hex digits of an own digest kept: 128 bits


@dataclass(frozen=True)
class SiteState:
    """`shared`: the digest of what every page may show of the whole wiki (None: not known, nothing is patched).
    `own`: article path -> its sitemap day and the name of what only its pages show (`_own`), as `day|name`.
    `base`: `shared` without the page summaries; `summaries`: article path -> its page summary's key (page_summaries.py; empty: not
    known)."""

    shared: str | None = None
    own: dict[str, str] = field(default_factory=dict)
    base: str | None = None
    summaries: dict[str, str] = field(default_factory=dict)
    pages: int = 0  # the counts of the build that rendered this state
    redirects: int = 0
    # Each emitter without `emit_changed` -> {"files": what it put, "pages": how many were pages}: what it no longer
    # puts goes, where the last build's other files are kept (`emitting.py`).
    emitted: dict[str, dict] = field(default_factory=dict)
    tags: dict[str, list[str]] | None = None  # article path -> its tags, for the tagged articles (None: not known)
    # lang -> its navigation tree, where it is too big for every page to list it whole, as the digests of its
    # sections and of what each lists (`sidebar.LanguageNav.sections`): a change there digests the pages under the
    # sections that changed (every page where the sections themselves did), rather than rendering every page again.
    sections: dict[str, dict[str, str]] = field(default_factory=dict)


def site_state(model: Model, salts: dict[str, str], histories: dict[str, list]) -> SiteState:
    """The state of the pages `model` makes; `salts` is each language's digest of navigation, settings and theme."""
    shared = base = None
    if model.summaries_digest is not None:  # the code too: pages are made by the whole package (URLs, slugs, Markdown)
        # Which tag pages exist (a tag page made or gone plans every page: the sitemap lists them, and a file no
        # emitter puts after an edit is kept); what each lists is the tags emitter's to put again.
        tag_pages = sorted({(link.lang, link.url) for page in model.articles if page.tags for link in page.tags})
        base = digest((code_digest(), model.default_language, model.languages, model.data, salts, tag_pages))
        shared = digest((base, model.summaries_digest))
    keys = model.summary_keys
    own = {page.path: f"{(page.updated or '')[:10]}|{_own(page, histories.get(page.path, ()), keys.get(page.path))}"
           for page in model.articles}  # fmt: skip
    unnamed = model.outputs.unnamed_keys([page.capture_id for page in model.articles]) if model.outputs else None
    if unnamed:  # the results of passes nothing above names (a custom pass's, which a template may show)
        own = {path: f"{name}:{jobs}" for (path, name), jobs in zip(own.items(), unnamed)}
    summaries = keys if None not in keys.values() else {}
    return SiteState(shared, own, base, summaries, tags=dict(model.tags))


def _own(page: ArticlePage, revisions: list, summary_key: str | None) -> str:
    """What an article's page and history page show that no other page may: its capture, its body (its html and
    citations results), when it changed, the results it names, its outdated banner and its revisions.

    Where its results are stored (and so its page summary has a key), named without digesting any of it: by its bytes'
    hash (not its capture's id: a state database made anew numbers its captures from 1 again), the jobs of its
    body, which never change, its page summary's key (the outdated banner is the page summary's), how many results it has, and
    how many revisions and the newest one's time (a path's revisions only grow, and show the page summary's title).
    Digesting each page's took an edit build longer than naming it. Else (plain data) digested.
    """
    identity = page.body.identity
    html, citations = identity if type(identity) is list and len(identity) == 2 else ("", "")  # each [store, job]
    stored = (html is None or type(html) is list) and (citations is None or type(citations) is list)
    if summary_key is not None and stored:
        jobs = f"{html[1] if html else '-'}:{citations[1] if citations else '-'}"  # None: no result
        # (a store made anew has captured every file again since; a git history is named by its newest commit)
        newest = f"{revisions[0].time}{revisions[0].commit or ''}" if revisions else ""
        return f"{page.capture[:16]}:{jobs}:{summary_key}:{page.updated}:{len(page.passes)}:{len(revisions)}:{newest}"
    # The revisions as plain tuples, the JSON they are written as: orjson writes a named tuple through a Python call.
    material = (page.capture, identity, page.updated, page.passes, page.outdated, list(map(tuple, revisions)))
    return digest(material)[:OWN_LENGTH]


def recorded_state(record: dict) -> SiteState | None:
    """The state a build recorded (its fields), or None when the record is not one (another version's, broken)."""
    try:
        state = SiteState(**record)
    except TypeError:
        return None
    well_formed = isinstance(state.shared, str) and isinstance(state.own, dict) and isinstance(state.summaries, dict)
    counted = isinstance(state.pages, int) and isinstance(state.redirects, int) and _emitted(state.emitted)
    tagged = state.tags is None or isinstance(state.tags, dict)
    return state if well_formed and counted and tagged and isinstance(state.sections, dict) else None


def _emitted(record) -> bool:
    """Whether `record` reads as `SiteState.emitted`: per emitter, the files it put and how many pages."""
    return isinstance(record, dict) and all(
        isinstance(entry, dict) and isinstance(entry.get("files"), list) and isinstance(entry.get("pages"), int)
        for entry in record.values()
    )  # fmt: skip


@dataclass(frozen=True)
class Patch:
    """What a build plans again, keeping the last build's other files as they are."""

    articles: set[str]  # the articles whose page and history page are rendered
    lists: bool  # every wiki page (a page summary changed: lists show titles and red links), else those showing own parts
    every: bool = False  # every page planned (articles were added), the other articles' kept as they are


def patch(last: SiteState | None, now: SiteState, model: Model) -> Patch | None:
    """What changed since `last`; None when every page must be rendered again: no last state, a shared part
    changed beyond page summaries that keep every page in place, or, no article added, a changed article's sitemap
    day did (the sitemap lists all pages, and is made again when one is)."""
    if last is None or now.shared is None:
        return None
    added = now.own.keys() - last.own.keys()
    shown = set()
    lists = False
    if last.shared != now.shared:
        showing = _showing_changed_summaries(last, now, model, added)
        if showing is None:
            return None
        shown, lists = showing
    changed = {path for path, own in now.own.items() if last.own.get(path) != own}
    if not added and any(last.own[path].split("|")[0] != now.own[path].split("|")[0] for path in changed):
        return None
    return Patch(changed | shown, lists or bool(added), every=bool(added))


# What a changed page summary must keep for every page to stay where it is and every list of pages as long.
PLACING = ("slug", "lang", "draft", "aliases", "categories", "pair_paths")
# What of a page summary no list of pages shows: the pages its links reach (their "What links here" does), and the
# banner of its own page.
UNLISTED = {"linked": (), "outdated": None, "shared": ""}


def _showing_changed_summaries(
    last: SiteState, now: SiteState, model: Model, added: set[str]
) -> tuple[set[str], bool] | None:
    """The articles whose pages show a page summary that changed, and whether the lists of pages (titles, red links)
    may show one too, when only page summaries changed and none moved a page, or articles were `added` (their page summaries
    have no last one). A link made or unmade to an article that exists changes no list: only the pages it
    reaches, before and after."""
    if now.base is None or last.base != now.base or not last.own.keys() <= now.own.keys() or not last.summaries:
        return None
    changed = [(path, old, new) for path, (old, new) in model.replaced.items() if old is None or old.shared != new.shared]
    if any(path not in added and (old is None or [getattr(old, f) for f in PLACING] != [getattr(new, f) for f in PLACING])
           for path, old, new in changed):  # fmt: skip
        return None
    translated = {}  # path -> the articles whose language switcher shows it
    for page in model.articles:
        for pair in page.pair_paths:
            translated.setdefault(pair, []).append(page.path)
    shown = set()
    for path, old, new in changed:
        # A page's "What links here" shows each article linking to it by title and URL (the URL is made of
        # PLACING fields, unchanged here): under the same title, only the pages its links reach now and not
        # before, or before and not now, show the change.
        if old is None:  # added
            reached = set(new.linked)
        elif old.title == new.title:
            reached = set(old.linked) ^ set(new.linked)
        else:
            reached = {*old.linked, *new.linked}
        shown |= {path, *reached, *translated.get(path, ())}
    lists = any(old is None or old._replace(**UNLISTED) != new._replace(**UNLISTED) for _, old, new in changed)
    return shown & now.own.keys(), lists


def digest(material) -> str:
    """sha256 of `material` as orjson writes it: dataclasses field by field, in order, and a
    lazy field as its identity (faster than pickling a page record). What orjson cannot
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
