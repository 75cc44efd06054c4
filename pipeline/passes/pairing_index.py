"""The pairing index: every article's pairing fields, who claims whom, and who groups with whom.

Pure: built from the articles' `paired_with` (resolved against the content's
paths), the group the strategy gives each (suffix stem or key value), and
the language and URL of their metadata results. The pairing pass keeps it
between builds (its `KEEP`) and compares it with the last read set's to find
the articles a change reaches (`reached`).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import NamedTuple

from pipeline.content.article import Article
from pipeline.content.source import name_lang_slug
from pipeline.passes.base import Wiki, frontmatter_field, known_as
from pipeline.runtime.records import made
from pipeline.urls import article_url


class Entry(NamedTuple):
    """What the index knows of one article (a named tuple: quick to unpickle, see `link_index.Page`)."""

    path: str
    lang: str
    url: str
    paired_with: str | None  # as written
    target: str | None  # `paired_with` resolved to a content path
    group: str | None  # suffix stem or key value, per strategy


@dataclass
class Index:
    entries: dict[str, Entry] = field(default_factory=dict)  # path -> its entry (whose path it is)
    claims: dict[str, list[str]] = field(default_factory=dict)  # target path -> paths naming it
    groups: dict[str, list[str]] = field(default_factory=dict)  # group -> member paths
    sources: dict[str, object] = field(default_factory=dict)  # path -> its metadata result's digest

    def __getstate__(self) -> dict:
        """Pickled (kept between builds) with its entries as columns, made named tuples again in C when loaded
        (`records.made`): faster to load than unpickled one by one, in each edit build."""
        return {**self.__dict__, "entries": [list(column) for column in zip(*self.entries.values())]}

    def __setstate__(self, state: dict) -> None:
        columns = state["entries"]
        entries = dict(zip(columns[0], made(Entry, zip(*columns)))) if columns else {}
        self.__dict__.update(state, entries=entries)


def build_index(wiki: Wiki, options: dict, old: Index | None = None) -> Index:
    """Every article's pairing fields, and who claims or groups with whom; the entries of `old` (the last
    read set's, with the same options) kept where an article's metadata and claim are as they were.

    Built from what READS names alone (kept between builds: `KEEP`): the hashes of
    articles, which an edit changes, are read apart (`_shas`).
    """
    index = Index()
    metadata = wiki.results.get("metadata", {})
    for article, claim in zip(wiki.articles, claims_of(wiki, options)):
        digest = index.sources[article.path] = known_as(metadata, article.capture_id)
        same = old is not None and digest is not None and old.sources.get(article.path) == digest
        entry = old.entries.get(article.path) if same else None
        if entry is None or entry[3:] != claim:
            entry = _entry(article, metadata.get(article.capture_id) or {}, claim, options["default_language"])
        index.entries[article.path] = entry
        target, group = entry.target, entry.group
        if target:
            index.claims.setdefault(target, []).append(article.path)
        if group is not None:
            index.groups.setdefault(group, []).append(article.path)
    for members in (*index.claims.values(), *index.groups.values()):
        members.sort()
    return index


def _entry(article: Article, meta: dict, claim: tuple, default_language: str) -> Entry:
    lang = meta.get("lang") or article.lang
    url = article_url(article.path, meta.get("slug") or article.slug, lang, default_language)
    return Entry(article.path, lang, url, *claim)


OWN_CLAIMS = "pairing.own_claims"  # the memo of what each capture claims alone (the pass KEEPs it BY_CAPTURE)


def claims_of(wiki: Wiki, options: dict) -> list[tuple[str | None, str | None, str | None]]:
    """(`paired_with` as written, the path it names, group) of each article, in wiki order."""

    def claims() -> list:
        paths = {a.path for a in wiki.articles}
        # capture id -> (paired_with as written, group): what the capture alone gives, kept from build to build,
        # so that an edit decodes the frontmatter of the edited article alone (many articles name a pair).
        known = wiki.memo(OWN_CLAIMS, dict)
        found = []
        for article in wiki.articles:
            own = known.get(article.capture_id)
            if own is None:
                own = known[article.capture_id] = _own_claim(article, options)
            raw, group = own
            found.append((raw, resolve(article.path, raw, paths) if raw else None, group))
        return found

    return wiki.memo("pairing.claims", claims)


def _own_claim(article: Article, options: dict) -> tuple[str | None, str | None]:
    raw = frontmatter_field(article, "paired_with")  # most articles' frontmatter is not decoded
    return (raw.strip() if isinstance(raw, str) and raw.strip() else None), group_of(article, options)


def resolve(path: str, value: str, paths: set[str]) -> str:
    """The content path `value` names from `path`: folder-relative first, then root-relative."""
    if "/" in value or value.startswith("."):
        nearest = posixpath.normpath(posixpath.join(posixpath.dirname(path), value))
    else:  # a name beside the article, the usual value: joined as normpath would (content paths are normal)
        folder = path.rpartition("/")[0]
        nearest = f"{folder}/{value}" if folder else value
    if nearest in paths:  # the usual case, found without making the others (a build resolves thousands)
        return nearest
    tries = [nearest, posixpath.normpath(value.lstrip("/"))]
    if not value.lower().endswith(".md"):
        tries += [t + ".md" for t in tries]
    return next((t for t in tries if t in paths), tries[0])


def group_of(article: Article, options: dict) -> str | None:
    if options["pairing"] == "suffix":
        folder = posixpath.dirname(article.path)
        return posixpath.join(folder, name_lang_slug(article.path, options["default_language"])[1])
    if options["pairing"] == "key":
        value = frontmatter_field(article, options["pairing_key"])
        return str(value).strip() or None if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    return None


def candidates(me: Entry, index: Index, strategy: str) -> list[str]:
    """The paths this article may be paired with (never itself)."""
    found = [me.target] if me.target in index.entries else []
    if strategy == "paired_with" and not found:
        found = index.claims.get(me.path, [])
    elif strategy != "paired_with" and me.group is not None:
        # The strategy's group first: where a `paired_with` disagrees, the group gives the translation.
        found = index.groups[me.group] + [p for p in found if p not in index.groups[me.group]]
    return [p for p in found if p != me.path]


def reached(before: Index, now: Index, articles: list[Article]) -> list[int]:
    """The capture ids of `articles` whose pairing may read something else in `now` than in `before`:
    those an entry that changed (added, removed or other) shares a path, claimed path or group with.

    An article reads its own entry, the entry at its claimed path, the entries claiming its path or
    claiming the same path, and those of its group; an entry that changed has, before or after, the
    path or the claimed path or the group through which one of those reads reaches it.
    """
    was, now_entries = before.entries, now.entries
    changed = [entry for path in was.keys() | now_entries.keys() if was.get(path) != now_entries.get(path)
               for entry in (was.get(path), now_entries.get(path)) if entry is not None]  # fmt: skip
    paths = {path for entry in changed for path in (entry.path, entry.target) if path}
    groups = {entry.group for entry in changed if entry.group is not None}
    own = (now_entries[article.path] for article in articles)
    return [article.capture_id for article, entry in zip(articles, own)
            if {entry.path, entry.target} & paths or entry.group in groups]
