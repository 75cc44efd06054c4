"""The wiki index links resolve against, and the resolution of one target.

Pure: built from the metadata results, the article paths and the redirects
data; a page's heading ids are asked for (`headings_of`) only when a link
names one of its headings, so building the index decodes no headings result.
A page *group* is one page in all its languages (files that differ only by a
language suffix, or that name each other with `paired_with`). Resolution
tries, in order: path (`folder/target`, `.md` optional, `folder/` meaning the
folder's `_index`), exact slug, normalized slug (case, spaces and underscores
as hyphens), frontmatter aliases, redirects, titles. The first step that
finds anything decides; more than one group at that step is an ambiguity.
Within a group the page in the linking article's language wins, otherwise
another language is a fallback.
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Callable, Mapping, NamedTuple

from pipeline.content.source import name_lang_slug
from pipeline.runtime.sharded import Overlay, Sharded
from pipeline.text import lookup_key
from pipeline.urls import article_url

MAX_REDIRECT_HOPS = 5
FILE = "file:"  # a pseudo group key: exactly this file, whatever the linking article's language
GROUP = "group:"  # what an answer read of a group's pages, among the keys it read


class Page(NamedTuple):
    """One article as links find it. A named tuple: a stored index holds one per article, and tuples
    unpickle faster than frozen dataclasses."""

    path: str
    slug: str
    title: str
    aliases: tuple[str, ...]
    lang: str
    url: str
    group: str


@dataclass
class LinkIndex:
    """Lookup tables from link targets to page groups; `resolve` memoizes its answers."""

    default_language: str
    headings_of: Callable[[str], list[str]] | None  # path -> the page's heading ids, asked for link targets only
    # Dicts; once kept (unpickled), the big ones are `Sharded` (read-only), and each key's groups a tuple.
    groups: Mapping[str, list[Page]] = field(default_factory=dict)
    tables: dict[str, Mapping[str, set[str] | tuple[str, ...]]] = field(default_factory=dict)
    redirects: dict[str, str] = field(default_factory=dict)
    files: Mapping[str, Page] = field(default_factory=dict)
    sources: Mapping[str, object] = field(default_factory=dict)  # path -> digest of the record its page was made from
    partners: dict[str, str] = field(default_factory=dict)  # path -> the file its `paired_with` names
    memo: dict[tuple, dict] = field(default_factory=dict)
    reads: dict[tuple, frozenset[str]] = field(default_factory=dict)  # memo key -> what its answer read
    reading: set[str] | None = None  # what the answer being found has read so far

    def __getstate__(self) -> dict:
        """Pickled (kept between builds) without what belongs to one build (its heading reader and
        answers), each key's groups as a sorted tuple: a stored index is only read, and tuples
        load several times faster than sets (a noticeable part of an edit build). Its big
        dicts are kept `Sharded`: an edit build's few selects read a few dozen of their keys."""
        tables = {name: _sharded(table, _sorted) for name, table in self.tables.items()}
        shards = {name: Sharded.of(getattr(self, name)) for name in ("groups", "files", "sources")}
        return {**self.__dict__, **shards, "tables": tables, "headings_of": None, "memo": {}, "reads": {},
                "reading": None}  # fmt: skip

    def add(self, page: Page) -> None:
        self.groups.setdefault(page.group, []).append(page)
        self.files[page.path] = page
        for table, key in _table_keys(page):
            column = self.tables.setdefault(table, {})
            groups = column.get(key)
            if isinstance(groups, set):
                groups.add(page.group)
            else:  # none yet, or a kept tuple: replaced, never changed in place
                column[key] = {*(groups or ()), page.group}

    def remove(self, page: Page) -> None:
        """Take `page` out, changing no group's list or key's groups in place (a patched index shares them)."""
        members = [other for other in self.groups[page.group] if other.path != page.path]
        if members:
            self.groups[page.group] = members
        else:
            del self.groups[page.group]
        del self.files[page.path]
        still = {entry for other in members for entry in _table_keys(other)}  # the group keeps these keys
        for table, key in set(_table_keys(page)) - still:
            rest = set(self.tables[table][key]) - {page.group}
            if rest:
                self.tables[table][key] = rest
            else:
                del self.tables[table][key]

    def _read(self, key: str) -> None:
        if self.reading is not None:
            self.reading.add(key)

    def lookup(self, table: str, key: str) -> list[str]:
        self._read(key)
        return sorted(self.tables.get(table, {}).get(key, ()))

    def find(self, target: str, folder: str) -> tuple[str | None, list[str]]:
        """(step, group keys) for `target` linked from an article in `folder`."""
        if "/" in target:
            groups = self._by_path(target, folder)
            if groups:
                return "path", groups
        for step, key in (("exact", target), ("normalized", lookup_key(target)), ("alias", lookup_key(target))):
            groups = self.lookup(step, key)
            if groups:
                return step, groups
        groups = self._by_redirect(target)
        if groups:
            return "redirect", groups
        groups = self.lookup("title", lookup_key(target))
        return ("title", groups) if groups else (None, [])

    def _by_path(self, target: str, folder: str) -> list[str]:
        path = target.strip()
        path = path + "_index" if path.endswith("/") else path
        path = path[:-3] if path.lower().endswith(".md") else path
        bases = [""] if path.startswith("/") else ["", folder]
        for base in bases:
            key = lookup_key(posixpath.normpath(posixpath.join(base, path.lstrip("/"))))
            self._read(key)
            if key in self.tables.get("path", {}):
                return self.lookup("path", key)
        return []

    def _by_redirect(self, target: str) -> list[str]:
        key = lookup_key(target.strip("/"))
        for _ in range(MAX_REDIRECT_HOPS):
            destination = self.redirects.get(key)
            if destination is None:
                return []
            to = destination.strip("/")
            groups = self.lookup("url", to) or self._by_path(to, "") or self.lookup("exact", to.rsplit("/", 1)[-1])
            if groups:
                return groups
            key = lookup_key(to)
        return []

    def find_href(self, href: str, folder: str) -> tuple[str | None, list[str]]:
        """(step, group keys) for a Markdown link destination, relative to `folder` unless it starts with '/'."""
        if href.startswith("/"):
            key = href.strip("/")
            if not key:
                return "url", ["/"]  # the home page always exists
            groups = self.lookup("url", key) or self._by_path(key, "")
            return ("url", groups) if groups else (None, [])
        joined = posixpath.normpath(posixpath.join(folder, href))
        self._read(joined)
        if joined in self.files:  # a link to one file names that language's page, e.g. `guide.es.md`
            return "path", [FILE + joined]
        groups = self._by_path("/" + joined + ("/" if href.endswith("/") else ""), "")
        if not groups:
            groups = self.lookup("url", joined.strip("/"))
        return ("path", groups) if groups else (None, [])

    def canonical(self, group: str) -> str:
        """How a link names the group plainly: its slug, or its path when the slug is shared."""
        slug = self.groups[group][0].slug
        return slug if self.lookup("exact", slug) == [group] else group

    def choose(self, group: str, lang: str) -> tuple[Page, bool]:
        """The group's page in `lang`, else (as a fallback) the default language's, else the first."""
        pages = sorted(self.groups[group], key=lambda p: p.path)
        for wanted in (lang, self.default_language):
            for page in pages:
                if page.lang == wanted:
                    return page, wanted != lang
        return pages[0], True

    def resolve(
        self, target: str, lang: str, folder: str, with_headings: bool, markdown: bool = False,
        read: set[str] | None = None,
    ) -> dict:
        """Plain data: the step that found `target` and, per group, the page chosen for `lang`; `read`
        gets the keys the answer read (`keys_of` a page that changed names those it may answer with).

        The same dict object comes back for the same question, so plans hash it once.
        """
        memo_key = (target, lang, folder if "/" in target or markdown else "", with_headings, markdown)
        if memo_key not in self.memo:
            self.reading = set()
            try:
                self.memo[memo_key] = self._answer(target, lang, folder, with_headings, markdown)
            finally:
                self.reads[memo_key], self.reading = frozenset(self.reading), None
        if read is not None:
            read |= self.reads[memo_key]
        return self.memo[memo_key]

    def _answer(self, target: str, lang: str, folder: str, with_headings: bool, markdown: bool) -> dict:
        step, groups = self.find_href(target, folder) if markdown else self.find(target, folder)
        candidates = []
        for group in groups:
            if group == "/":
                candidates.append({"path": "", "lang": lang, "url": "", "fallback": False, "canonical": "/"})
                continue
            if group.startswith(FILE):
                page, fallback = self.files[group[len(FILE) :]], False
                group = page.group
            else:
                page, fallback = self.choose(group, lang)
            self._read(GROUP + group)  # the group's pages: which one is chosen, and its canonical slug
            candidate = {"path": page.path, "lang": page.lang, "url": page.url, "fallback": fallback,
                         "canonical": self.canonical(group)}  # fmt: skip
            if with_headings:
                candidate["headings"] = list(self.headings_of(page.path))
            candidates.append(candidate)
        return {"step": step, "candidates": candidates}


def _table_keys(page: Page) -> list[tuple[str, str]]:
    """(table, key) of each entry of `page` in the index's lookup tables."""
    return [
        ("path", lookup_key(page.group)),
        ("exact", page.slug),
        ("normalized", lookup_key(page.slug)),
        ("title", lookup_key(page.title)),
        ("url", page.url.strip("/")),
        *(("alias", lookup_key(alias)) for alias in page.aliases),
    ]


def keys_of(page: Page) -> set[str]:
    """Every key an answer reads (`LinkIndex.resolve`'s `read`) that may find `page` or depend on it."""
    return {key for _, key in _table_keys(page)} | {page.path, GROUP + page.group}


def group_key(path: str) -> str:
    """`guides/setup.es.md` and `guides/setup.md` -> `guides/setup`."""
    folder = posixpath.dirname(path)
    stem = name_lang_slug(path, "")[1]
    return posixpath.join(folder, stem) if folder else stem


def build_index(
    records: list[dict], redirects, default_language: str, headings_of: Callable[[str], list[str]],
    sources: dict[str, object] | None = None,
) -> LinkIndex:
    """An index of `records` ({path, slug, title, aliases, lang, paired_with}); `headings_of(path)`
    gives a page's heading ids; `sources` (path -> a digest of its record) lets `patch_index` tell
    which records changed."""
    index = LinkIndex(default_language=default_language, headings_of=headings_of, sources=dict(sources or {}))
    paths = {record["path"] for record in records}
    for record in records:
        index.add(_page(record, paths, default_language, index.partners))
    index.redirects = redirect_table(redirects)
    return index


def patch_index(
    old: LinkIndex, sources: dict[str, object], record_of: Callable[[str], dict], headings_of: Callable
) -> LinkIndex:
    """What `build_index` makes of the records now, made from `old` (as kept: unpickled, and built with
    the same redirects): the pages whose records changed (their digests in `sources`, every record's
    now, in order, differ), came or went, or whose `paired_with` names a record that came or went, are
    made again from `record_of(path)`. `old` is left as it was."""
    came, went = sources.keys() - old.sources.keys(), old.sources.keys() - sources.keys()
    differs = {path: digest for path, digest in sources.items() if old.sources.get(path) != digest}
    redo = differs.keys() | went
    redo |= {path for path, other in old.partners.items() if other in came or other in went}
    # Over the stored index's tables: what changes is set beside them, and pickled again with the shards it falls in.
    tables = {name: Overlay(table) for name, table in old.tables.items()}
    index = LinkIndex(old.default_language, headings_of, Overlay(old.groups), tables, old.redirects,
                      Overlay(old.files), Overlay(old.sources), dict(old.partners))  # fmt: skip
    index.sources.update(differs)
    for path in went:
        del index.sources[path]
    regrouped = set()
    for path in redo:
        index.partners.pop(path, None)
        if path in index.files:
            regrouped.add(index.files[path].group)
            index.remove(index.files[path])
    order = {path: number for number, path in enumerate(sources)}
    for path in sorted(redo - went, key=order.__getitem__):
        page = _page(record_of(path), sources, old.default_language, index.partners)
        index.groups[page.group] = list(index.groups.get(page.group, ()))  # its own list, not old's
        index.add(page)
        regrouped.add(page.group)
    for group in regrouped & index.groups.keys():  # in record order, as a build adds them
        index.groups[group].sort(key=lambda page: order[page.path])
    return index


def changed_pages(old: LinkIndex, new: LinkIndex) -> list[Page]:
    """The pages, in `old` and in `new`, at each path where the two differ: where `new` is `old` patched,
    only the paths it set or removed are compared."""
    files = new.files
    paths = files.touched() if isinstance(files, Overlay) and files.base is old.files else old.files.keys() | files.keys()
    return [page for path in paths if old.files.get(path) != files.get(path)
            for page in (old.files.get(path), files.get(path)) if page is not None]  # fmt: skip


def _sharded(table: Mapping, convert: Callable) -> Sharded:
    """A lookup table as kept: each key's groups `convert`ed, where they are not already (a kept one's are)."""
    if isinstance(table, Sharded):
        return table
    return (table if isinstance(table, Overlay) else Overlay(table)).sharded(convert)


def _sorted(groups) -> tuple[str, ...]:
    return tuple(sorted(groups))


def _page(record: dict, paths, default_language: str, partners: dict[str, str]) -> Page:
    """The record's page, in the group of the file its `paired_with` names when that is a record too
    (noted in `partners`), else in its own."""
    path, group = record["path"], group_key(record["path"])
    partner = record.get("paired_with")
    if partner:
        other = partners[path] = posixpath.normpath(posixpath.join(posixpath.dirname(path), partner))
        if other in paths and other != path:
            group = group_key(other)
    url = article_url(path, record["slug"], record["lang"], default_language)
    return Page(path, record["slug"], record["title"], tuple(record["aliases"]), record["lang"], url, group)


def redirect_table(redirects: list[dict] | None) -> dict[str, str]:
    """Lookup key of each `source` (its whole path and its last segment) -> `target`, from the redirects
    `redirects.yaml` holds, validated (`content/data_files.py`); a whole path wins over another's last
    segment, and of two last segments the first."""
    table: dict[str, str] = {}
    for redirect in redirects or ():
        table[lookup_key(redirect["source"].strip().strip("/"))] = redirect["target"]
    for redirect in redirects or ():
        table.setdefault(lookup_key(redirect["source"].strip().strip("/").rsplit("/", 1)[-1]), redirect["target"])
    return table
