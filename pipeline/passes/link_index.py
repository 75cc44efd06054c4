"""The wiki index links resolve against, and the resolution of one target.

Pure: built from the metadata results, the article paths and the redirects
data; a page's heading ids are asked for (`headings_of`) only when a link
names one of its headings, so building the index decodes no headings result.
A page *group* is one page in all its languages (files that differ only by a
language suffix, or that name each other with `paired_with`). Resolution
(`links: wiki`) tries, in order: path (`folder/target`, `.md` optional,
`folder/` meaning the folder's `_index`, `index` or `README`), exact slug, normalized slug (case,
spaces and underscores as hyphens), frontmatter aliases, redirects, titles.
The first step that finds anything decides; more than one group at that step
is an ambiguity. Within a group the page in the linking article's language
wins, otherwise another language is a fallback.

`links: obsidian` matches a target as Obsidian does: the exact path from the
vault's root, then the path from the linking file's folder, then the file
name (case-insensitive, `.md` optional; a target with folders matches the
end of a path), preferring the same folder, then the shortest path; then
redirects. Aliases and titles are not link targets, and there is no
ambiguity: the preferred file wins. With language folders (`es/...`), each
language's folder is a vault of its own, searched first; a file found in
another is a fallback.
"""

from __future__ import annotations

import posixpath
from urllib.parse import unquote
from dataclasses import dataclass, field
from typing import Callable, Iterable, Mapping, NamedTuple

from pipeline.content.source import name_lang_slug
from pipeline.runtime.sharded import Overlay, Sharded
from pipeline.passes.file_names import FILE, FILE_TABLES, by_file, note_path
from pipeline.text import lookup_key
from pipeline.urls import article_url, is_attachment, shared_url_moves

MAX_REDIRECT_HOPS = 5
ATTACHMENT = "attachment:"  # the group of an attachment (an image, a PDF...): itself alone
FOLDER_PAGES = ("_index", "index", "README")  # the file a link to a folder names, the first there is
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
    found: dict[tuple, tuple] = field(default_factory=dict)  # (target, folder, markdown) -> (find's answer, what it read)
    reading: set[str] | None = None  # what the answer being found has read so far
    links: str = "wiki"  # how targets are matched: "wiki" or "obsidian" (the module docstring)
    language_folders: bool = False  # each top-level folder is a language's vault
    vaults: dict[str, int] = field(default_factory=dict)  # with language folders: notes in each top-level folder
    urls: Mapping[str, list[str]] = field(default_factory=dict)  # an article's own URL -> the paths it is (sorted)

    def __getstate__(self) -> dict:
        """Pickled (kept between builds) without what belongs to one build (its heading reader and
        answers), each key's groups as a sorted tuple: a stored index is only read, and tuples
        load several times faster than sets (a noticeable part of an edit build). Its big
        dicts are kept `Sharded`: an edit build's few selects read a few dozen of their keys."""
        tables = {name: _sharded(table, _sorted) for name, table in self.tables.items()}
        shards = {name: Sharded.of(getattr(self, name)) for name in ("groups", "files", "sources", "urls")}
        return {**self.__dict__, **shards, "tables": tables, "headings_of": None, "memo": {}, "reads": {},
                "found": {}, "reading": None}  # fmt: skip

    def add(self, page: Page) -> None:
        self.groups.setdefault(page.group, []).append(page)
        if not page.group.startswith(ATTACHMENT):  # an article: its own URL, and its language folder
            own = self.own_url(page)
            self.urls[own] = sorted([*self.urls.get(own, ()), page.path])  # a new list: a patched index shares them
            if self.language_folders:
                vault = self.vault(page.path)
                self.vaults[vault] = self.vaults.get(vault, 0) + 1
        self.files[page.path] = page
        for table, key in _table_keys(page, self.links == "obsidian"):
            column = self.tables.setdefault(table, {})
            groups, value = column.get(key), _value(table, page)
            if isinstance(groups, set):
                groups.add(value)
            else:  # none yet, or a kept tuple: replaced, never changed in place
                column[key] = {*(groups or ()), value}

    def remove(self, page: Page) -> None:
        """Take `page` out, changing no group's list or key's groups in place (a patched index shares them)."""
        members = [other for other in self.groups[page.group] if other.path != page.path]
        if members:
            self.groups[page.group] = members
        else:
            del self.groups[page.group]
        del self.files[page.path]
        if not page.group.startswith(ATTACHMENT):
            own = self.own_url(page)
            rest = [path for path in self.urls[own] if path != page.path]
            if rest:
                self.urls[own] = rest
            else:
                del self.urls[own]
            if self.language_folders:
                vault = self.vault(page.path)
                self.vaults[vault] -= 1
                if not self.vaults[vault]:
                    del self.vaults[vault]
        obsidian = self.links == "obsidian"
        still = {entry for other in members for entry in _table_keys(other, obsidian) if entry[0] not in FILE_TABLES}
        for table, key in set(_table_keys(page, obsidian)) - still:  # the group keeps the others' keys
            rest = set(self.tables[table][key]) - {_value(table, page)}
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
        if self.links == "obsidian":
            return self._as_obsidian(target, folder)
        if is_attachment(target):  # `[[photo.png]]`: the attachment of that path or name (notes are not in those tables)
            step, files = self._by_file(target, folder)
            if files:
                return step, files
        if "/" in target:
            groups = self._by_path(target, folder)
            if groups:
                return "path", groups
        for step, key in (("exact", target), ("normalized", lookup_key(target)), ("alias", lookup_key(target))):
            groups = self.lookup(step, key)
            if groups:
                return step, self._in_vault(groups, folder)
        groups = self._by_redirect(target)
        if groups:
            return "redirect", groups
        groups = self.lookup("title", lookup_key(target))
        return ("title", self._in_vault(groups, folder)) if groups else (None, [])

    def vault(self, path_or_folder: str) -> str:
        """The language folder a path or folder is in, with language folders ("" without, or at the root)."""
        return path_or_folder.split("/", 1)[0] if self.language_folders else ""

    def own_url(self, page: Page) -> str:
        """The URL an article's own name, folder and language make (`urls.article_url`), before another's is told apart."""
        return article_url(page.path, page.slug, page.lang, self.default_language)

    def number_urls(self, urls: Iterable[str]) -> None:
        """Give the articles whose own URL is one of `urls` the URLs they are published at (`urls.shared_url_moves`:
        the first path keeps it, the others are numbered), as the site's model does."""
        for url in urls:
            paths = self.urls.get(url)
            for path, published in shared_url_moves(url, paths, self.urls).items() if paths else ():
                if self.files[path].url != published:
                    self._publish_at(self.files[path], published)

    def _publish_at(self, page: Page, url: str) -> None:
        """Give `page` another URL: in its group, in place, and in the table of URLs (no list or set changed in place)."""
        moved = self.files[page.path] = page._replace(url=url)
        members = self.groups[page.group] = [moved if other.path == page.path else other for other in self.groups[page.group]]
        table, value, before = self.tables.setdefault("url", {}), _value("url", page), page.url.strip("/")
        if all(other.url.strip("/") != before for other in members):  # no other page of the group has the URL it left
            rest = set(table.get(before, ())) - {value}
            if rest:
                table[before] = rest
            else:
                table.pop(before, None)
        table[url.strip("/")] = {*(table.get(url.strip("/")) or ()), value}

    def elsewhere(self, path: str, folder: str) -> bool:
        """Whether the file at `path` is in another language's folder than `folder`: a file in a folder that holds no
        note (`attachments/` at the root) belongs to every language."""
        vault = self.vault(path)
        return vault != self.vault(folder) and vault in self.vaults

    def _in_vault(self, groups: list[str], folder: str) -> list[str]:
        """Of several groups, those with a page in the linking article's language folder, when some have one."""
        if len(groups) < 2 or not self.language_folders:
            return groups
        vault = self.vault(folder)
        for group in groups:
            self._read(GROUP + group)
        inside = [group for group in groups if any(self.vault(page.path) == vault for page in self.groups[group])]
        return inside or groups

    def _as_obsidian(self, target: str, folder: str) -> tuple[str | None, list[str]]:
        step, files = self._by_file(target, folder)
        if files:
            return step, files
        groups = self._by_redirect(target)
        return ("redirect", groups) if groups else (None, [])

    def _by_file(self, target: str, folder: str) -> tuple[str | None, list[str]]:
        return by_file(self, target, folder)

    def _by_path(self, target: str, folder: str) -> list[str]:
        path = target.strip()
        path = path[:-3] if path.lower().endswith(".md") else path
        # A folder (`guide/`) names its page: `_index`, else `index`, else a `README` as GitHub and MkDocs show it.
        paths = [path + name for name in FOLDER_PAGES] if path.endswith("/") else [path]
        bases = [""] if path.startswith("/") else ["", folder]
        if self.language_folders:  # a path from the root of the article's language folder first
            bases.insert(0, self.vault(folder))
        for base in dict.fromkeys(bases):
            for path in paths:
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
        href = unquote(href)  # `Other%20Note.md` names `Other Note.md`
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
        if not groups and self.links == "obsidian":  # Obsidian finds `[t](Note.md)` by name too
            return self._as_obsidian(href, folder)
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
        by_folder = "/" in target or markdown or self.links == "obsidian" or self.language_folders
        memo_key = (target, lang, folder if by_folder else "", with_headings, markdown)
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
        step, groups = self._find(target, folder, markdown)
        candidates = []
        for group in groups:
            if group == "/":
                candidates.append({"path": "", "lang": lang, "url": "", "fallback": False, "canonical": "/"})
                continue
            if group.startswith(FILE):
                page = self.files[group[len(FILE) :]]
                fallback, group = self.elsewhere(page.path, folder), page.group
            else:
                page, fallback = self.choose(group, lang)
            self._read(GROUP + group)  # the group's pages: which one is chosen, and its canonical slug
            candidate = {"path": page.path, "lang": page.lang, "url": page.url, "fallback": fallback,
                         "canonical": self.canonical(group)}  # fmt: skip
            if group.startswith(ATTACHMENT):
                candidate["attachment"] = True
            elif with_headings:
                candidate["headings"] = list(self.headings_of(page.path))
            candidates.append(candidate)
        return {"step": step, "candidates": candidates}

    def _find(self, target: str, folder: str, markdown: bool) -> tuple[str | None, list[str]]:
        """`find` (`find_href` for a Markdown link), kept for the build apart from the answer's language and
        headings: a `#fragment` link's target is asked for both without its headings (planning's own digests)
        and with them (its select). The keys it read are read again by each answer that uses it."""
        key = (target, folder, markdown)
        if key not in self.found:
            answering, self.reading = self.reading, set()
            try:
                self.found[key] = ((self.find_href if markdown else self.find)(target, folder), frozenset(self.reading))
            finally:
                self.reading = answering
        found, read = self.found[key]
        if self.reading is not None:
            self.reading |= read
        return found


def _table_keys(page: Page, obsidian: bool = True) -> list[tuple[str, str]]:
    """(table, key) of each entry of `page` in the index's lookup tables (Obsidian's with `obsidian`); an
    attachment is found by its path and name only."""
    if page.group.startswith(ATTACHMENT):
        return [("file", lookup_key(page.path)), ("name", lookup_key(posixpath.basename(page.path)))]
    keys = [
        ("path", lookup_key(page.group)),
        ("exact", page.slug),
        ("normalized", lookup_key(page.slug)),
        ("title", lookup_key(page.title)),
        ("url", page.url.strip("/")),
        *(("alias", lookup_key(alias)) for alias in page.aliases),
    ]
    if obsidian:
        file = note_path(page.path)
        keys += [("file", lookup_key(file)), ("name", lookup_key(posixpath.basename(file)))]
    return keys


def _value(table: str, page: Page) -> str:
    """What a table's key gives for `page`: the file itself in Obsidian's tables, else its group."""
    return FILE + page.path if table in FILE_TABLES else page.group


def keys_of(page: Page) -> set[str]:
    """Every key an answer reads (`LinkIndex.resolve`'s `read`) that may find `page` or depend on it."""
    return {key for _, key in _table_keys(page)} | {page.path, GROUP + page.group}


def group_key(path: str) -> str:
    """`guides/setup.es.md` and `guides/setup.md` -> `guides/setup`."""
    folder = posixpath.dirname(path)
    stem = name_lang_slug(path, "")[1]
    return posixpath.join(folder, stem) if folder else stem


def _sharded(table: Mapping, convert: Callable) -> Sharded:
    """A lookup table as kept: each key's groups `convert`ed, where they are not already (a kept one's are)."""
    if isinstance(table, Sharded):
        return table
    return (table if isinstance(table, Overlay) else Overlay(table)).sharded(convert)


def _sorted(groups) -> tuple[str, ...]:
    return tuple(sorted(groups))
