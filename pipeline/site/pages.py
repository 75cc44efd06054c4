"""The wiki's own pages, built from the article model (pure): categories, wanted pages,
recent changes, per-article history (from git where the content folder has it, else the capture log),
translation status and redirects.

Categories come from `categories.yaml` (`categories: [{id, name, scope,
order}]`) when present, matched to an article's `category`/`categories` by id
or name; a category the file does not declare still gets a page, named as
the articles name it. Both data files reach here validated, as the passes
see them (`content/data_files.py`).
"""

from __future__ import annotations

import heapq
import math
import operator
from dataclasses import dataclass, field
from datetime import datetime
from typing import NamedTuple

from pipeline.content.git_history import FileChange, GitLog
from pipeline.content.source import name_lang_slug
from pipeline.site.model import ArticlePage, Model
from pipeline.site.page_links import Link, title_order
from pipeline.text import lookup_key, url_slug
from pipeline.urls import article_url, category_url, lang_prefix, leaves_site

RECENT_LIMIT = 100


@dataclass
class Category:
    id: str
    name: str
    scope: str | None
    order: float
    url: str
    declared: bool
    members: list[Link] = field(default_factory=list)


@dataclass(frozen=True)
class Wanted:
    target: str
    anchor: str  # the id `urls.wanted_url` points at
    linked_from: tuple[Link, ...]


class Revision(NamedTuple):
    """One change of a page as history pages show it: an entry of the capture log, or a file's change in a git
    commit (a named tuple: one per change the wiki ever had)."""

    path: str  # the article's path (of a git change: its path at HEAD, where renames lead)
    time: str
    sha256: str  # the bytes' hash (of a git change: the blob id)
    commit: str | None
    action: str  # created, edited, deleted, renamed
    title: str
    url: str | None  # None when the page is gone
    author: str | None = None  # of a git change: the commit's author and subject
    message: str | None = None
    change: FileChange | None = None  # of a git change: its paths and blob ids (what its diff is made of)


@dataclass(frozen=True)
class Redirect:
    source: str  # site-root-relative URL that redirects
    target: str  # site-root-relative URL, or an absolute URL
    lang: str


def categories(model: Model) -> dict[str, list[Category]]:
    """lang -> its categories (declared ones in their order, then the others by name); sets each page's categories."""
    declared = [{**entry, "order": math.inf if entry["order"] is None else entry["order"], "n": number}
                for number, entry in enumerate(model.data.get("categories") or ())]  # fmt: skip
    lookup = {lookup_key(key): entry for entry in declared for key in (entry["name"], entry["id"])}
    result = {}
    for lang in model.languages:
        found = {
            e["id"]: Category(e["id"], e["name"], e["scope"], e["order"], _category_url(e["id"], lang, model), True)
            for e in sorted(declared, key=lambda e: (e["order"], e["n"]))
        }
        members: set[tuple[str, str]] = set()  # (category id, page url): a set, as a category may list thousands
        idents: dict[str, str] = {}  # category name -> id: thousands of pages name the same few
        shown: dict[str, Link] = {}  # category id -> the link its pages show (a named tuple: shared)
        for page in (p for p in model.articles if p.lang == lang):
            itself = None  # the link to this page its categories list, made for the first
            for name in dict.fromkeys(page.category_names):
                ident = idents.get(name)
                if ident is None:
                    entry = lookup.get(lookup_key(name))
                    ident = idents[name] = entry["id"] if entry else url_slug(name)
                if ident not in found:
                    found[ident] = Category(ident, name, None, math.inf, _category_url(ident, lang, model), False)
                category = found[ident]
                if (ident, page.url) not in members:
                    members.add((ident, page.url))
                    itself = itself or Link(page.title, page.url, lang)
                    category.members.append(itself)
                    if ident not in shown:
                        shown[ident] = Link(category.name, category.url, lang)
                    page.categories.append(shown[ident])
        for category in found.values():
            category.members.sort(key=lambda link: link.title.casefold())
        result[lang] = sorted(found.values(), key=lambda c: (not c.declared, c.order if c.declared else 0, c.name))
    return result


def _category_url(ident: str, lang: str, model: Model) -> str:
    return category_url(ident, lang, model.default_language)


def wanted(model: Model) -> dict[str, list[Wanted]]:
    """lang -> missing targets of red links from pages of that language, with who links to them."""
    groups: dict[str, dict[str, tuple[str, dict[str, Link]]]] = {lang: {} for lang in model.languages}
    for source, target in model.broken:
        key = lookup_key(target)
        _, sources = groups.setdefault(source.lang, {}).setdefault(key, (target, {}))
        sources[source.url] = source
    return {
        lang: [
            Wanted(target, f"wanted-{url_slug(key)}", tuple(sorted(sources.values(), key=lambda l: l.title.casefold())))
            for key, (target, sources) in sorted(entries.items())
        ]
        for lang, entries in groups.items()
    }


def revisions(model: Model, git: GitLog | None = None) -> list[Revision]:
    """Every revision, oldest first: the commits of each file `git` has (renames followed), and the capture log
    of the others (created, edited or deleted), each with the page it belongs to."""
    from_captures = _captured(model, git.lineages if git is not None else {})
    if git is None:
        return from_captures
    return list(heapq.merge(from_captures, _committed(model, git), key=operator.itemgetter(1)))


ACTIONS = {"A": "created", "D": "deleted", "R": "renamed"}  # a git status as a history page says it (else edited)


def _committed(model: Model, git: GitLog) -> list[Revision]:
    """Each file's change in each commit, oldest first, as the revision of the path the file has at HEAD."""
    pages = model.by_path()
    order = {sha: number for number, sha in enumerate(git.commits)}  # newest first
    found = []
    for path, changes in git.lineages.items():
        page = pages.get(path)
        title, url = (page.title, page.url) if page else (path, None)
        for change in changes:
            commit = git.commits[change.commit]
            action = ACTIONS.get(change.status, "edited")
            made = Revision(path, commit.time, change.after or change.before or "", commit.sha, action, title, url,
                            commit.author, commit.message, change)  # fmt: skip
            found.append((order[commit.sha], made))
    found.sort(key=operator.itemgetter(0), reverse=True)
    return [revision for _, revision in found]


def _captured(model: Model, skipped: dict) -> list[Revision]:
    """The capture log as revisions, oldest first, but those of the `skipped` paths."""
    pages = model.by_path()
    seen: dict[str, str] = {}
    result = []
    for change in model.log:
        if change.path in skipped:
            continue
        previous = seen.get(change.path)
        seen[change.path] = change.kind
        action = "deleted" if change.kind == "removal" else "created" if previous in (None, "removal") else "edited"
        page = pages.get(change.path)
        title, url = (page.title, page.url) if page else (change.path, None)
        result.append(Revision(change.path, change.time, change.sha256, change.commit, action, title, url))
    return result


def recent_changes(model: Model, all_revisions: list[Revision]) -> dict[str, list[Revision]]:
    """lang -> its newest revisions first (at most RECENT_LIMIT)."""
    pages = model.by_path()
    result: dict[str, list[Revision]] = {lang: [] for lang in model.languages}
    unfilled = len(result)
    for revision in reversed(all_revisions):
        page = pages.get(revision.path)
        lang = page.lang if page else name_lang_slug(revision.path, model.default_language)[0]
        bucket = result.get(lang)
        if bucket is not None and len(bucket) < RECENT_LIMIT:
            bucket.append(revision)
            if len(bucket) == RECENT_LIMIT:
                unfilled -= 1
                if not unfilled:  # the log only grows: read back no further than every language needs
                    break
    return result


def histories(all_revisions: list[Revision]) -> dict[str, list[Revision]]:
    """path -> every revision of it, newest first."""
    result: dict[str, list[Revision]] = {}
    for revision in reversed(all_revisions):
        result.setdefault(revision.path, []).append(revision)
    return result


def redirects(model: Model, taken: set[str]) -> list[Redirect]:
    """Redirects from frontmatter aliases and `redirects.yaml`; none may replace a page (`taken` URLs)."""
    found: dict[str, Redirect] = {}
    for page in model.articles:
        if not page.aliases:  # most pages: their folder's URL is not made
            continue
        folder = article_url(page.path, "index", page.lang, model.default_language)
        for alias in page.aliases:
            source = site_path(alias) if alias.startswith("/") else f"{folder}{url_slug(alias)}/"
            found.setdefault(source, Redirect(source, page.url, page.lang))
    entries = model.data.get("redirects") or ()
    by_url = {page.url: page for page in reversed(model.articles)} if entries else {}  # a URL's first page
    for entry in entries:
        for redirect in _localized(model, by_url, entry["source"], entry["target"]):
            found.setdefault(redirect.source, redirect)
    return [r for source, r in sorted(found.items()) if source not in taken and source.strip("/")]


def _localized(model: Model, by_url: dict[str, ArticlePage], source: str, target: str) -> list[Redirect]:
    """A `redirects.yaml` entry for the default language, and for each translation of its target page (`by_url`:
    each article page by its URL)."""
    default = model.default_language
    source_url = site_path(source)
    if leaves_site(target, ("http", "https")):  # any other target, `javascript:` too, is a path of the site
        return [Redirect(source_url, target, default)]
    wanted_url = site_path(target) if target.strip("/") else ""
    page = by_url.get(wanted_url)
    found = [Redirect(source_url, page.url if page else wanted_url, default)]
    for translation in page.translations if page else []:
        found.append(Redirect(f"{lang_prefix(translation.lang, default)}{source_url}", translation.url, translation.lang))
    return found


def site_path(path: str) -> str:
    """`/Systems/Old Name` -> `systems/old-name/`: each segment slugged, so no path leaves the site."""
    return "".join(f"{url_slug(part)}/" for part in path.strip().strip("/").split("/") if part.strip())


@dataclass(frozen=True)
class Behind:
    """What an outdated translation lags: its source's changes since the translation's newest (commits, with git),
    and the days between the two."""

    changes: int
    days: int
    lags: str  # the pairing pass's word on what it lags (a revision, a time)


@dataclass
class TranslationStatus:
    """One language's translation status: the articles of other languages it lacks, its outdated translations
    (with their source and what they lag), and those up to date; each list by title."""

    missing: list[Link] = field(default_factory=list)  # the page it lacks, in the language of the wiki's default first
    outdated: list[tuple[Link, Link, Behind]] = field(default_factory=list)  # (translation, source, behind)
    current: list[Link] = field(default_factory=list)


def translation_status(model: Model, histories: dict[str, list[Revision]]) -> dict[str, TranslationStatus]:
    """lang -> its translation status, from each article's translations (a group: a page and its translations)
    and the pairing pass's verdict on each translation."""
    pages = model.by_path()
    result = {lang: TranslationStatus() for lang in model.languages}
    seen: set[str] = set()
    for page in model.articles:
        if page.path in seen:
            continue
        group = [pages[path] for path in (page.path, *page.pair_paths) if path in pages]
        seen.update(member.path for member in group)
        by_lang = {member.lang: member for member in group}
        shown = by_lang.get(model.default_language, page)
        for lang, status in result.items():
            member = by_lang.get(lang)
            if member is None:
                status.missing.append(_link(shown))
            elif member.outdated and member.outdated["source_path"] in pages:
                source = pages[member.outdated["source_path"]]
                status.outdated.append((_link(member), _link(source), _behind(histories, member.path, source.path, member.outdated["lags"])))
            elif len(by_lang) > 1:
                status.current.append(_link(member))
    for status in result.values():
        status.missing.sort(key=title_order)
        status.current.sort(key=title_order)
        status.outdated.sort(key=lambda entry: title_order(entry[0]))
    return result


def _link(page: ArticlePage) -> Link:
    return Link(page.title, page.url, page.lang)


def _behind(histories: dict[str, list[Revision]], path: str, source: str, lags: str) -> Behind:
    """The source's revisions newer than the translation's newest, and the days from that one to the source's newest."""
    own, theirs = histories.get(path) or [], histories.get(source) or []
    since = own[0].time if own else None
    newer = [revision for revision in theirs if since is not None and revision.time > since]
    days = (datetime.fromisoformat(newer[0].time) - datetime.fromisoformat(since)).days if newer else 0
    return Behind(len(newer), max(days, 0), lags)
