"""The wiki's own pages, built from the article model (pure): categories, wanted pages,
recent changes, per-article history and redirects.

Categories come from `categories.yaml` (`categories: [{id, name, scope,
order}]`) when present, matched to an article's `category`/`categories` by id
or name; a category the file does not declare still gets a page, named as
the articles name it. Both data files reach here validated, as the passes
see them (`content/data_files.py`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import NamedTuple

from pipeline.content.source import name_lang_slug
from pipeline.site.model import ArticlePage, Link, Model
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
    """One entry of the capture log as history pages show it (a named tuple: one per change the wiki ever had)."""

    path: str
    time: str
    sha256: str
    commit: str | None
    action: str  # created, edited, deleted
    title: str
    url: str | None  # None when the page is gone


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


def revisions(model: Model) -> list[Revision]:
    """The capture log as revisions, oldest first: created, edited or deleted, with the page they belong to."""
    pages = model.by_path()
    seen: dict[str, str] = {}
    result = []
    for change in model.log:
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
    for revision in reversed(all_revisions):
        page = pages.get(revision.path)
        lang = page.lang if page else name_lang_slug(revision.path, model.default_language)[0]
        bucket = result.get(lang)
        if bucket is not None and len(bucket) < RECENT_LIMIT:
            bucket.append(revision)
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
        folder = article_url(page.path, "index", page.lang, model.default_language)
        for alias in page.aliases:
            source = site_path(alias) if alias.startswith("/") else f"{folder}{url_slug(alias)}/"
            found.setdefault(source, Redirect(source, page.url, page.lang))
    for entry in model.data.get("redirects") or ():
        for redirect in _localized(model, entry["source"], entry["target"]):
            found.setdefault(redirect.source, redirect)
    return [r for source, r in sorted(found.items()) if source not in taken and source.strip("/")]


def _localized(model: Model, source: str, target: str) -> list[Redirect]:
    """A `redirects.yaml` entry for the default language, and for each translation of its target page."""
    default = model.default_language
    source_url = site_path(source)
    if leaves_site(target, ("http", "https")):  # any other target, `javascript:` too, is a path of the site
        return [Redirect(source_url, target, default)]
    wanted_url = site_path(target) if target.strip("/") else ""
    page = _page_at(model, wanted_url)
    found = [Redirect(source_url, page.url if page else wanted_url, default)]
    for translation in page.translations if page else []:
        found.append(Redirect(f"{lang_prefix(translation.lang, default)}{source_url}", translation.url, translation.lang))
    return found


def site_path(path: str) -> str:
    """`/Systems/Old Name` -> `systems/old-name/`: each segment slugged, so no path leaves the site."""
    return "".join(f"{url_slug(part)}/" for part in path.strip().strip("/").split("/") if part.strip())


def _page_at(model: Model, url: str) -> ArticlePage | None:
    return next((page for page in model.articles if page.url == url), None)
