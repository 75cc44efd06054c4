"""The content root's data files `redirects.yaml`, `categories.yaml` and `citations.yaml`, validated once
into typed records.

Each file is read once per build by `facts`; here its YAML value becomes `Redirect`s, `Category`s
or `Citation`s, and every entry that breaks a rule becomes a problem (path, line, message) and is
left out (or, for an optional field of the wrong type, given its default), so the link index, the
passes and the site's pages see the same entries and a bad one is reported once. Passes and the
site read the records as plain data (`plain`): without their lines, so that a comment or blank
line added to a data file changes no job's read set.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable, Iterator

import yaml

from pipeline.text import lookup_key

Problem = tuple[str, int, str]  # (path, line, message), as `facts.Facts.problems`
NOT_REDIRECTS = "is not a list of redirects (`- from: ...` and `to: ...`) or a mapping from -> to"
NOT_CITATIONS = "is not a list of citations (`- id: ...`) or a mapping from id to entry"


@dataclass(frozen=True)
class Redirect:
    source: str  # the `from` path, as written
    target: str  # the `to`: a path of the site, or a URL (only http and https ones leave the site: `site/pages.py`)
    line: int


@dataclass(frozen=True)
class Category:
    id: str
    name: str  # the id when the entry names none
    scope: str | None
    order: float | None  # None: listed after the categories that give one
    line: int


@dataclass(frozen=True)
class Citation:
    id: str  # as markers name it: `id: 1` is `[^1]`
    text: str  # its `text`, else its `title`, else its id
    url: str | None
    line: int


@dataclass
class _Problems:
    """The problems found in one data file."""

    path: str
    problems: list[Problem]

    def problem(self, line: int, message: str) -> None:
        self.problems.append((self.path, line, message))


def redirects(value: object, node: yaml.Node | None, path: str = "redirects.yaml") -> tuple[list, list[Problem]]:
    """The `Redirect`s of `redirects: [{from, to}]`, a list of such entries, or a mapping from -> to; the first
    of several entries from one path (as links match it: `lookup_key`) wins."""
    found = _Problems(path, [])
    records: list[Redirect] = []
    first: dict[str, int] = {}  # lookup key of a `from` -> the line it was first given at
    for source, target, line in _redirect_entries(value, node, found):
        key = lookup_key(source.strip().strip("/")) if isinstance(source, str) else ""
        if not key:
            found.problem(line, f"a redirect's `from` is not a path: {_shown(source)}")
        elif not isinstance(target, str) or not target.strip():
            found.problem(line, f"the redirect from {_shown(source)} has no `to` path or URL")
        elif key in first:
            found.problem(line, f"a redirect from {_shown(source)} is already given at line {first[key]}")
        else:
            first[key] = line
            records.append(Redirect(source, target, line))
    return records, found.problems


def _redirect_entries(value: object, node: yaml.Node | None, found: _Problems) -> list[tuple[object, object, int]]:
    """(from, to, line) of each entry of `redirects.yaml`'s value, whatever their types."""
    if isinstance(value, dict) and "redirects" in value:
        value, node = value["redirects"], _value_node(node, "redirects")
    if isinstance(value, dict):
        return [(source, target, line) for (source, target), line in _items(value, node)]
    if not isinstance(value, list):
        if value is not None:
            found.problem(_line(node), NOT_REDIRECTS)
        return []
    entries = []
    for entry, line in _items(value, node):
        if isinstance(entry, dict):
            entries.append((entry.get("from"), entry.get("to"), line))
        else:
            found.problem(line, "a redirect entry is not a mapping with `from` and `to`")
    return entries


def categories(value: object, node: yaml.Node | None, path: str = "categories.yaml") -> tuple[list, list[Problem]]:
    """The `Category`s of `categories: [{id, name, scope, order}]` (other keys of the file and of an entry are
    the author's) or of the file as a list; the first of several entries with one id wins."""
    found = _Problems(path, [])
    if isinstance(value, dict):
        value, node = value.get("categories"), _value_node(node, "categories")
    if not isinstance(value, list):
        if value is not None:
            found.problem(_line(node), "`categories` is not a list of `- id: ...` entries")
        return [], found.problems
    records: list[Category] = []
    entries = [(_category_id(entry), entry, line) for entry, line in _items(value, node)]
    for ident, entry, line in _first_of_each("category", entries, found):
        shown = f"the category {_shown(ident)}"
        name = _field(entry, "name", str, "text", found, line, shown) or ident
        order = _field(entry, "order", (int, float), "a number", found, line, shown)
        scope = _field(entry, "scope", str, "text", found, line, shown)
        records.append(Category(ident, name.strip(), scope, order, line))
    return records, found.problems


def _category_id(entry: object) -> str | None:
    ident = entry.get("id") if isinstance(entry, dict) else None
    return (ident.strip() or None) if isinstance(ident, str) else None


def citations(value: object, node: yaml.Node | None, path: str = "citations.yaml") -> tuple[list, list[Problem]]:
    """The `Citation`s of a list of `{id, text, url}` entries (`title` for a missing `text`), of a mapping from
    id to entry (or to its text), or of a single key holding the list (`citations: [...]`); the first of several
    entries with one id wins."""
    found = _Problems(path, [])
    records: list[Citation] = []
    for ident, entry, line in _first_of_each("citation", _citation_entries(value, node, found), found):
        shown = f"the citation {_shown(ident)}"
        text, title, url = [clean_text(_field(entry, key, str, "text", found, line, shown))
                            for key in ("text", "title", "url")]  # fmt: skip
        records.append(Citation(ident, text or title or ident, url, line))
    return records, found.problems


def _citation_entries(value: object, node: yaml.Node | None, found: _Problems) -> list[tuple[str | None, dict, int]]:
    """(id, entry, line) of each entry of `citations.yaml`'s value (id None when it names none)."""
    if isinstance(value, dict) and len(value) == 1 and isinstance(next(iter(value.values())), list):
        (key,) = value
        value, node = value[key], _value_node(node, key)
    if isinstance(value, list):
        return [(entry_id(entry.get("id")) if isinstance(entry, dict) else None, entry, line)
                for entry, line in _items(value, node)]  # fmt: skip
    if not isinstance(value, dict):
        found.problem(_line(node), NOT_CITATIONS)
        return []
    entries = []
    for (key, entry), line in _items(value, node):
        entry = {"text": entry} if isinstance(entry, str) else entry
        if isinstance(entry, dict):
            entries.append((entry_id(entry.get("id", key)), entry, line))
        else:
            found.problem(line, f"the citation {_shown(key)} is not a mapping (`text`, `url`) or a text")
    return entries


def entry_id(value: object) -> str | None:
    """A reference id as text, as markers name it (`id: 1` is `[^1]`), of `citations.yaml` and of frontmatter
    `references:` alike; None for anything that cannot name one."""
    if isinstance(value, bool) or not isinstance(value, (str, int, float)):
        return None
    return str(value).strip() or None


def clean_text(value: object) -> str | None:
    """A text field stripped; None when it is blank, missing or not text."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def _first_of_each(kind: str, entries: list[tuple[str | None, dict, int]], found: _Problems) -> Iterator[tuple]:
    """(id, entry, line) of each entry whose id no entry before gave; a problem for each other one (`kind`:
    what an entry is, as problems name it)."""
    first: dict[str, int] = {}
    for ident, entry, line in entries:
        if ident is None:
            found.problem(line, f"a {kind} entry has no `id`")
        elif ident in first:
            found.problem(line, f"the {kind} {_shown(ident)} is already given at line {first[ident]}")
        else:
            first[ident] = line
            yield ident, entry, line


def _field(entry: dict, key: str, kind, described: str, found: _Problems, line: int, shown: str):
    """`entry[key]` when it is of `kind`; else None, and a problem when it is there but of another kind
    (`shown`: the entry as the problem names it)."""
    value = entry.get(key)
    if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
        return value
    found.problem(line, f"{shown} has a `{key}` that is not {described}")
    return None


# name -> its validator: every data file of the content root (`facts.DATA_FILES`)
VALIDATORS: dict[str, Callable[[object, yaml.Node | None, str], tuple[list, list[Problem]]]] = {
    "redirects": redirects,
    "categories": categories,
    "citations": citations,
}


def validated(name: str, value: object, node: yaml.Node | None = None) -> tuple[object, list[Problem]]:
    """What `Wiki.data[name]` holds for the data file `name` whose YAML is `value` (`node`: its node tree, for
    lines), and the problems of its entries: its records as plain data (a name no validator has: its value)."""
    validate = VALIDATORS.get(name)
    if validate is None or value is None:
        return value, []
    records, problems = validate(value, node, f"{name}.yaml")
    return plain(records), problems


def plain(records: list[Redirect] | list[Category] | list[Citation]) -> list[dict]:
    """The records as passes and pages read them (`Wiki.data`): each a dict of its fields but its line."""
    return [{name: value for name, value in asdict(record).items() if name != "line"} for record in records]


def _shown(value: object) -> str:
    """`value` as a message quotes it: its repr, cut short (an entry's value may be long)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _items(value: list | dict, node: yaml.Node | None) -> list[tuple[object, int]]:
    """Each item of a list (or (key, value) of a mapping) with the line it starts at (the collection's
    line when the node tree does not tell: an item a merge key (`<<`) brought)."""
    lines: dict = {}
    if isinstance(node, yaml.SequenceNode):
        lines = {number: _line(item) for number, item in enumerate(node.value)}
    elif isinstance(node, yaml.MappingNode):  # a key given twice: its value is the last one's
        lines = {key.value: _line(key) for key, _ in node.value if isinstance(key, yaml.ScalarNode)}
    if isinstance(value, list):
        return [(item, lines.get(number, _line(node))) for number, item in enumerate(value)]
    return [((key, item), lines.get(key, _line(node)) if isinstance(key, str) else _line(node))
            for key, item in value.items()]  # fmt: skip


def _value_node(node: yaml.Node | None, key: str) -> yaml.Node | None:
    """The node of `key`'s value in a mapping node."""
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in reversed(node.value):
            if isinstance(key_node, yaml.ScalarNode) and key_node.value == key:
                return value_node
    return None


def _line(node: yaml.Node | None) -> int:
    return node.start_mark.line + 1 if node is not None else 1
