"""The navigation of one language as HTML: made once per build, marked for each page by joining parts made once.

The header and links (the theme's `nav.html`) are rendered once with a slot for the tree. Each section's closed
HTML is made once; a page's tree is those parts joined, but along its own branch, whose sections are
open (`<details open>`) and whose link to the page itself is `aria-current="page"`: the work per page is
the length of its branch, not the size of the wiki. A tree of up to FULL_TREE pages lists every page in every
section (as MkDocs does); a bigger one lists the pages of the open branch only, at most WINDOW of a section
around the page, each closed section linking to its page (else the language's list of all pages).
"""

from __future__ import annotations

import hashlib
from typing import Callable

import orjson
from markupsafe import Markup, escape

from pipeline.site.navigation import Node, Tree
from pipeline.urls import href

FULL_TREE = 400
WINDOW = 30
SLOT = "<!--nav-tree-->"
SKELETON = "^"  # in `LanguageNav.sections`: the digest of the sections alone (`shared`)
INPUTS = "@"  # in `LanguageNav.sections`: the digest of what the tree is made of (`Tree.inputs`), where known


class LanguageNav:
    """One language's navigation, as each page shows it (`for_page`)."""

    def __init__(self, html: str, tree: Tree, base_url: str, labels: dict[str, str], known: dict | None = None) -> None:
        """`known`: the last build's `sections` of this language, which a tree made of the same is not walked for."""
        self.html, self.tree, self.base, self.labels = html, tree, base_url, labels
        self.full = tree.pages <= FULL_TREE
        # Made as pages ask for them, once each: an edit build renders a few pages of a big tree.
        self.closed: dict[int, str] = {}  # id of a section -> its closed HTML
        self.closed_keys: dict[int, str] = {}  # id of a section -> the digest of its closed HTML
        self.items: dict[int, str] = {}  # id of a node -> its <li> (a section's: the link to its page, or "")
        self.positions: dict[int, dict[str | None, int]] = {}  # id of a big section -> URL of a child -> its place
        self.last: tuple[str | None, list] = (None, [])  # the URL of the page whose tree was made last, and that tree
        # Every page no node links to (a history page, a special page) shows one tree, all closed: its HTML and key.
        self.outside: dict[str, str] = {}
        # What every page of the language shows alike: the whole tree when every page lists it; else the frame and
        # the sections (each page's own part is in its own digest: `page_key`).
        self.shared = hashlib.sha256(html.encode() + _shape(tree, pages=self.full)).hexdigest()
        # A big tree as the frame and sections (`shared`) and, for each section by its place among the sections
        # (stable while `shared` is), what it lists of its own pages: all of the tree, and a page's tree changes with
        # the sections on its branch alone (`branch`). Empty for a tree every page lists whole (`shared` names it).
        self.section_ids: dict[str, int] = {}  # place ('0/2') -> id of the section
        self.sections: dict[str, str] = {} if self.full else self._sections(known)

    def _sections(self, known: dict | None) -> dict[str, str]:
        """`sections`, and the tree's `inputs`: the last build's (`known`) while the tree is made of what the last
        was, so that a big tree's sections need not be made (`FolderTree`)."""
        inputs = self.tree.inputs
        if inputs is not None and isinstance(known, dict) and known.get(INPUTS) == inputs:
            return {**known, SKELETON: self.shared}
        found = {SKELETON: self.shared, **self._pages_of(self.tree.nodes, "")}
        return found if inputs is None else {**found, INPUTS: inputs}

    def _pages_of(self, nodes: list[Node], place: str) -> dict[str, str]:
        """Place -> the digest of the pages listed directly in the section there ('': the top), each section among
        them as 0 (a page moved past one is moved), for `nodes` and the sections below them."""
        pages = [0 if node.section else (node.title, node.url) for node in nodes]
        found = {place: hashlib.sha256(orjson.dumps(pages)).hexdigest()[:32]}
        for number, node in enumerate(node for node in nodes if node.section):
            inner = f"{place}/{number}" if place else str(number)
            self.section_ids[inner] = id(node)
            found.update(self._pages_of(self.tree.children(node), inner))
        return found

    def for_page(self, url: str) -> Markup:
        """The navigation with the tree as the page at `url` shows it."""
        made = lambda: self.html.replace(SLOT, _joined(self._tree(url), self._closed), 1)  # noqa: E731
        return Markup(self._once("html", url, made))

    def page_key(self, url: str) -> str:
        """What of the tree the page at `url` shows beyond what every page shows (`shared`): nothing in a tree every
        page lists whole; else the digest of its own tree (its branch, the pages around it), made without its HTML:
        the tree as `for_page` makes it, each closed section (which `shared` names) by the digest of its HTML."""
        if self.full:
            return ""
        made = lambda: hashlib.sha256(_joined(self._tree(url), self._closed_key).encode()).hexdigest()  # noqa: E731
        return self._once("key", url, made)

    def _once(self, kind: str, url: str, make: Callable[[], str]) -> str:
        """What `make` gives for the page at `url`: made once for all the pages outside the tree."""
        if self.tree.links_to(url):
            return make()
        if kind not in self.outside:
            self.outside[kind] = make()
        return self.outside[kind]

    def _tree(self, url: str) -> list[str | Node]:
        """The tree of the page at `url` as pieces of HTML and closed sections (each its Node): walked once for its
        key and its page, which a render asks for one after the other."""
        if self.last[0] != url:
            self.last = (url, ['<ul class="nav-tree">', *self._level(self.tree.nodes, self.branch(url), url), "</ul>"])
        return self.last[1]

    def branch(self, url: str) -> set[int]:
        """The ids of the sections open on the tree of the page at `url` (none: a page outside the tree)."""
        return {id(node) for place in self.tree.places_of(url) for node in place.sections}

    def same_tree(self, url: str, changed: frozenset[int] | None) -> bool:
        """Whether the page at `url` shows the part of the tree it showed, known without walking it: no section on its
        branch is one of `changed` (the ids of those listing other pages than before; None: any part may differ)."""
        return changed is not None and not (self.branch(url) & changed)

    def _level(self, nodes: list[Node], branch: set[int], url: str | None) -> list[str | Node]:
        """The tree's items of `nodes`, those on `branch` open (a closed section: its Node)."""
        parts: list[str | Node] = []
        for node in nodes:
            if not node.section:
                item = self._item(node)
                parts.append(_current(item) if node.url == url else item)
            elif id(node) in branch:
                parts += self._section(node, self._children(node, branch, url), True, url)
            else:
                parts.append(node)
        return parts

    def _children(self, section: Node, branch: set[int] | None, url: str | None) -> list[str | Node]:
        """A section's list: its page first, then its nodes (a window of them around `url` in a big tree)."""
        if branch is None and not self.full:  # closed, in a big tree: its sections, and a link for its pages
            return self.tree.subsections(section) + [self._more(section)]
        nodes = all_nodes = self.tree.children(section)
        if not self.full and len(nodes) > WINDOW:
            at = self._position(section, url)
            start = max(0, min(at - WINDOW // 2, len(nodes) - WINDOW))
            nodes = nodes[start : start + WINDOW]
        inner = self._level(nodes, branch or set(), url)
        return inner + [self._more(section)] if len(nodes) < len(all_nodes) else inner

    def _position(self, section: Node, url: str | None) -> int:
        """Where the child at `url` is in `section` (0: none is): found once per section, not per page."""
        if id(section) not in self.positions:
            positions = {}
            for at, node in enumerate(self.tree.children(section)):
                positions.setdefault(node.url, at)  # the first, as a search from the start finds
            self.positions[id(section)] = positions
        return self.positions[id(section)].get(url, 0)

    def _more(self, section: Node) -> str:
        """A link to every page of a section the tree does not list: its page, else the list of all pages."""
        target = escape(href(section.url or self.labels["all_url"], self.base))
        # No count: a page added anywhere in the section would change every page that shows this link.
        return f'<li class="nav-more"><a href="{target}">{escape(self.labels["section_pages"])}</a></li>'

    def _section(self, node: Node, inner: list[str | Node], opened: bool, url: str | None = None) -> list[str | Node]:
        own = self._item(node)
        own = _current(own) if node.url and node.url == url else own
        state = " open" if opened else ""
        return [f'<li class="nav-section"><details{state}><summary>{escape(node.title)}</summary><ul>{own}', *inner,
                "</ul></details></li>"]  # fmt: skip

    def _closed(self, section: Node) -> str:
        if id(section) not in self.closed:
            self.closed[id(section)] = _joined(self._section(section, self._children(section, None, None), False), self._closed)
        return self.closed[id(section)]

    def _closed_key(self, section: Node) -> str:
        """A closed section in a page's key: the digest of its HTML (a big tree's sections are most of each page's)."""
        if id(section) not in self.closed_keys:
            self.closed_keys[id(section)] = f"<{hashlib.sha256(self._closed(section).encode()).hexdigest()}>"
        return self.closed_keys[id(section)]

    def _item(self, node: Node) -> str:
        if id(node) not in self.items:
            link = f'<li><a href="{escape(href(node.url or "", self.base))}">{escape(node.title)}</a></li>'
            self.items[id(node)] = "" if node.section and not node.url else link
        return self.items[id(node)]


def _joined(parts: list[str | Node], closed: Callable[[Node], str]) -> str:
    """Pieces of a tree as one string, each closed section as `closed` makes it (its HTML, or its digest)."""
    return "".join(part if type(part) is str else closed(part) for part in parts)


def _current(item: str) -> str:
    return item.replace("<a ", '<a aria-current="page" ', 1)


def _shape(tree: Tree, pages: bool = True) -> bytes:
    """The tree as bytes: every title, URL and place (what a page's tree and neighbours are made of); without
    `pages`, its sections only (a big tree's pages are not made for it)."""
    below = tree.children if pages else tree.subsections
    plain = lambda items: [(n.title, n.url, n.section, plain(below(n)) if n.section else [])  # noqa: E731
                           for n in items if pages or n.section]
    return orjson.dumps(plain(tree.nodes))
