"""The wiki's navigation per language, as pure functions of the model: the tree of sections and pages, and each
page's place in it (its breadcrumbs, its previous and next pages within its section).

The tree comes from, first to last: `nav:` in wiki.yaml (MkDocs' shape: a path, `title: path`, `title: URL` or
`title: [items]`; each language shows the translations of the pages named, and leaves out the pages not
named), else the folders of the articles' URLs (a folder's `_index.md` or `index.md` is its section's page),
else the categories (in categories.yaml's order; a page in two is in both), else the pages alone. Pages not in
a folder or category sit at the top. Siblings are ordered by `weight:` (or `order:`) frontmatter, then title; a
folder by its page's weight, else the `order` categories.yaml gives the category of the same id.
The language's home page is not in the tree: the site name and "Main page" lead there.

A tree of folders (`FolderTree`) is made as it is asked for: its sections at once, each section's pages when a page
shows them. An edit build renders a few pages of a tree of thousands, and while the tree is made of what the last
build's was (its `inputs`), the sidebar takes the last build's digests of its sections (`sidebar.LanguageNav`).
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass, field
from functools import cached_property
from typing import Iterable

import orjson

from pipeline.incremental.code_digest import code_digest
from pipeline.site.model import ArticlePage, Model
from pipeline.site.page_links import Link
from pipeline.text import url_slug
from pipeline.urls import home_url, lang_prefix, leaves_site, page_folder


@dataclass(eq=False, slots=True)  # compared by identity: a tree holds each section once; slots: one per page
class Node:
    """A section (`children`, its page's `url` or None) or a page (an article's URL, or a URL leaving the site)."""

    title: str
    url: str | None
    section: bool = False
    children: list[Node] = field(default_factory=list)
    article: bool = True  # its URL is an article's page (not: a category's section, a `nav:` URL leaving the site)


@dataclass(slots=True)  # one per page
class Place:
    """Where a page sits: the sections above it (outermost first), the pages of its section in order, and where it is
    among them."""

    sections: tuple[Node, ...]
    pages: list[Node]  # each a page (a section's own page first)
    at: int


@dataclass
class Tree:
    """One language's navigation: its top-level nodes, and each page's places (the first is its own)."""

    lang: str
    home: str  # the language's home page URL
    nodes: list[Node]
    places: dict[str, list[Place]]  # page URL -> every place it has (a page in two categories has two)
    pages: int = 0  # pages in the tree, at any depth (a page in two categories counted twice)
    problems: list[str] = field(default_factory=list)  # `nav:` entries naming no article
    # The digest of what the tree is made of, where it is known without making the tree (a `FolderTree`'s): while it
    # is the last build's, so is the tree.
    inputs: str | None = None

    def places_of(self, url: str) -> list[Place]:
        """Every place of the page at `url` (none: no node links to it)."""
        return self.places.get(url, [])

    def children(self, section: Node) -> list[Node]:
        """A section's nodes, in order."""
        return section.children

    def subsections(self, section: Node) -> list[Node]:
        """The sections among a section's nodes, in order."""
        return [node for node in section.children if node.section]

    def links_to(self, url: str) -> bool:
        """Whether a node of the tree links to `url`."""
        return url in self._linked

    @cached_property
    def _linked(self) -> set[str]:
        return {node.url for node in self.nodes if not node.section} | self.places.keys()

    def trail(self, page: ArticlePage) -> list[Link]:
        """The breadcrumbs of `page`: its language's home, the sections above it (a section without a page has
        no URL) and the page itself."""
        home = Link("", self.home, self.lang)
        found = self.places_of(page.url)
        above = [node for node in found[0].sections if node.url != page.url] if found else []
        return [home, *(Link(node.title, node.url or "", self.lang) for node in above), Link(page.title, page.url, self.lang)]

    def neighbours(self, url: str) -> tuple[Link | None, Link | None]:
        """The pages before and after the page at `url` within its (first) section."""
        found = self.places_of(url)
        if not found:
            return None, None
        pages, at = found[0].pages, found[0].at
        before, after = (pages[at - 1] if at > 0 else None), (pages[at + 1] if at + 1 < len(pages) else None)
        return (Link(before.title, before.url) if before else None), (Link(after.title, after.url) if after else None)


def trees(model: Model, nav: list, categories: dict[str, list]) -> dict[str, Tree]:
    """lang -> its tree. `nav`: wiki.yaml's (validated by config.py); `categories`: `pages.categories(model)`."""
    result = {}
    for lang in model.languages:
        home = home_url(lang, model.default_language)
        pages = [page for page in model.articles if page.lang == lang and page.url != home]
        problems: list[str] = []
        if nav:
            nodes = _named(nav, lang, model, problems)
        elif any(_folders(page, lang, model.default_language) for page in pages):
            result[lang] = FolderTree.of(pages, lang, home, model, categories.get(lang, []))  # places made as asked
            continue
        else:
            nodes = _category_tree(pages, model.weights, categories.get(lang, []))
        places: dict[str, list[Place]] = {}
        total = _place(nodes, (), None, places)
        result[lang] = Tree(lang, home, nodes, places, total, problems)
    return result


def _place(nodes: list[Node], above: tuple[Node, ...], section: Node | None, places: dict) -> int:
    """Record the place of every page below `nodes` (children of `section`); return how many pages."""
    own = [section] if section is not None and section.url and section.article else []
    pages = own + [node for node in nodes if not node.section and node.article]
    for at, node in enumerate(pages):
        places.setdefault(node.url, []).append(Place(above, pages, at))
    count = 0
    for node in nodes:
        if node.section:
            count += _place(node.children, (*above, node), node, places) + (1 if node.url and node.article else 0)
        else:
            count += 1
    return count


def _order(weight: float | None, title: str) -> tuple:
    return (math.inf if weight is None else weight, title.casefold())


def _folders(page: ArticlePage, lang: str, default: str) -> list[str]:
    """The folders of a page's URL, below its language's: `es/guides/setup/` -> ['guides']."""
    rel = page.url[len(lang_prefix(lang, default)) :]
    return rel.strip("/").split("/")[:-1] if rel else []


class FolderTree(Tree):
    """A tree of the folders of the pages' URLs (a page at a folder's URL is that folder's page), made as it is asked
    for: its sections and the pages at the top at once, a section's pages and their places when first asked (an edit
    build renders a few pages of a big tree); `inputs` is known without either."""

    def __init__(
        self, lang: str, home: str, start: int, sections: dict[str, Node], leaves: dict[str, list],
        subsections: dict[str, list], weights: dict[str, float], urls: set[str], inputs: str,
    ) -> None:
        super().__init__(lang, home, [], {}, len(urls), [], inputs)
        self.start = start  # where a page's URL goes on below its language's
        self.sections = sections  # folder below the language ('a/b') -> its section
        self.folders = {id(node): folder for folder, node in sections.items()}
        self.leaves = leaves  # folder ('': the top) -> its pages but its own (ArticlePages)
        self.orders = subsections  # folder -> (order, section) of its sections
        self.weights, self.urls = weights, urls
        self.made: set[str] = set()  # the folders whose sections' children are made
        self.listed: dict[str, tuple[list[Node], dict[str, int]]] = {}  # folder -> its pages as a place lists them
        self.nodes = self._nodes("")

    @classmethod
    def of(cls, pages: list[ArticlePage], lang: str, home: str, model: Model, categories: list) -> FolderTree:
        """The tree of `pages` (a language's, but its home page)."""
        start = len(lang_prefix(lang, model.default_language))
        declared = {category.id: category for category in categories if category.declared}
        sections: dict[str, Node] = {}
        orders: dict[str, tuple] = {}  # folder -> its section's order among its siblings
        leaves: dict[str, list[ArticlePage]] = {"": []}
        rels = [page.url[start:] for page in pages]
        folders = [rel.rstrip("/") for rel in rels]
        parents = [folder.rpartition("/")[0] for folder in folders]  # 'a/b/c/' -> 'a/b'
        for page, parent in zip(pages, parents):
            if parent not in leaves:
                _add_sections(parent, page, lang, declared, sections, orders, leaves)
        weights = model.weights
        for page, rel, folder, parent in zip(pages, rels, folders, parents):
            if folder in sections and rel == f"{folder}/":  # the folder's page: its title and weight are the section's
                section, weight = sections[folder], weights.get(page.path)
                section.url, section.title = page.url, page.title
                if weight is not None or orders[folder][0] == math.inf:
                    orders[folder] = _order(weight, page.title)
            else:
                leaves[parent].append(page)
        subsections: dict[str, list] = {folder: [] for folder in leaves}
        for folder, section in sections.items():  # after the pages of its parent, as they sort on equal orders
            subsections[folder.rpartition("/")[0]].append((orders[folder], section))
        made_of = [code_digest(), lang, model.default_language, [(c.id, c.name, c.order) for c in declared.values()],
                   rels, [page.title for page in pages], [page.path for page in pages], weights]  # fmt: skip
        inputs = hashlib.sha256(orjson.dumps(made_of)).hexdigest()
        return cls(lang, home, start, sections, leaves, subsections, weights, {page.url for page in pages}, inputs)

    def children(self, section: Node) -> list[Node]:
        folder = self.folders.get(id(section))
        if folder is not None and folder not in self.made:
            section.children = self._nodes(folder)
        return section.children

    def subsections(self, section: Node) -> list[Node]:
        folder = self.folders.get(id(section))
        if folder is None or folder in self.made:
            return super().subsections(section)
        return [node for _, node in sorted(self.orders[folder], key=_first)]  # stable: as they sort among the pages

    def _nodes(self, folder: str) -> list[Node]:
        """The nodes of the section of `folder` ('': the top), in order: its pages and its sections."""
        self.made.add(folder)
        weights = self.weights
        leaves = self.leaves[folder]
        ordered = [(_order(weights.get(page.path), page.title), Node(page.title, page.url)) for page in leaves]
        ordered += self.orders[folder]
        ordered.sort(key=_first)
        return [node for _, node in ordered]

    def places_of(self, url: str) -> list[Place]:
        if url not in self.places:
            self.places[url] = self._place_of(url) if url in self.urls else []
        return self.places[url]

    def links_to(self, url: str) -> bool:
        return url in self.urls

    def _place_of(self, url: str) -> list[Place]:
        """The place of a page of the tree: in its folder's section, or (a folder's own page) first in its own."""
        rel = url[self.start :]
        folder = rel.rstrip("/")
        if not (folder in self.sections and rel == f"{folder}/"):
            folder = folder.rpartition("/")[0]
        if folder not in self.listed:
            section = self.sections.get(folder)  # None: the top
            nodes = self.children(section) if section is not None else self.nodes
            own = [section] if section is not None and section.url else []
            pages = own + [node for node in nodes if not node.section]
            self.listed[folder] = (pages, {node.url: at for at, node in enumerate(pages)})
        pages, at = self.listed[folder]
        parts = folder.split("/") if folder else []
        above = tuple(self.sections["/".join(parts[:n])] for n in range(1, len(parts) + 1))
        return [Place(above, pages, at[url])]


def _first(pair: tuple) -> tuple:
    return pair[0]


def _add_sections(parent: str, page: ArticlePage, lang: str, declared: dict, sections: dict, orders: dict,
                  children: dict) -> None:  # fmt: skip
    """The sections of the folders of `parent` (outermost first) not made yet, named as written in the page's path
    (never by its URL), else by their name; a declared category of the same id names and orders its folder."""
    folder, written = "", page_folder(page.path, lang).split("/")
    for at, name in enumerate(parent.split("/")):
        folder = f"{folder}/{name}" if folder else name
        if folder not in sections:
            category = declared.get(name)
            shown = written[at] if at < len(written) and url_slug(written[at]) == name else name
            sections[folder] = Node(category.name if category else _folder_title(shown), None, True)
            orders[folder] = _order(category.order if category else None, sections[folder].title)
            children[folder] = []


def _folder_title(name: str) -> str:
    """`how-to` -> `How to`, `Deep Folder` as it is: a folder without a page is named by its name as written."""
    words = name.replace("-", " ").replace("_", " ").strip()
    return words[:1].upper() + words[1:] if words else name


def _category_tree(pages: list[ArticlePage], weights: dict[str, float], categories: list) -> list[Node]:
    """A section for each category with pages (in their order), its pages by weight then title; the pages in no
    category after them."""
    by_url = {page.url: page for page in pages}
    ordered = lambda links: sorted(links, key=lambda link: _order(weights.get(by_url[link.url].path), link.title))  # noqa: E731
    nodes = []
    for category in categories:
        members = [link for link in category.members if link.url in by_url]
        if members:
            children = [Node(link.title, link.url) for link in ordered(members)]
            nodes.append(Node(category.name, category.url, True, children, article=False))
    alone = [Link(page.title, page.url) for page in pages if not page.categories]
    return nodes + [Node(link.title, link.url) for link in ordered(alone)]


def _named(items: Iterable, lang: str, model: Model, problems: list[str]) -> list[Node]:
    """The nodes of `nav:` items for `lang`: each page named by its path, shown as its translation in `lang` (left out
    when it has none); a title given names the page in the language of the file named only."""
    by_path = model.by_path()
    nodes = []
    for item in items:
        title, value = next(iter(item.items())) if isinstance(item, dict) else (None, item)
        if isinstance(value, list):
            children = _named(value, lang, model, problems)
            if children:
                nodes.append(Node(str(title), None, True, children))
        elif leaves_site(value, ("http", "https")):
            nodes.append(Node(str(title or value), value, article=False))
        else:
            path = value.strip().lstrip("/").removeprefix("./")
            page = by_path.get(path)
            if page is None:
                problems.append(f"wiki.yaml: nav: no article at {value!r}")
                continue
            shown = page if page.lang == lang else next((t for t in page.translations if t.lang == lang), None)
            if shown is not None:
                nodes.append(Node(str(title) if title and shown is page else shown.title, shown.url))
    return nodes

