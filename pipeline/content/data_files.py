"""The content root's data files `redirects.yaml` and `categories.yaml`, validated once into typed records.

Each file is read by `facts.gather`; here its YAML value becomes `Redirect`s or `Category`s, and
every entry that breaks a rule becomes a problem (path, line, message) and is left out (or, for
an optional field of the wrong type, given its default), so the link index and the site's pages
see the same entries and a bad one is reported once. Passes and the site read the records as
plain data (`plain`): without their lines, so that a comment or blank line added to a data file
changes no job's read set.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Callable

import yaml

from pipeline.text import lookup_key

Problem = tuple[str, int, str]  # (path, line, message), as `facts.Facts.problems`
NOT_REDIRECTS = "is not a list of redirects (`- from: ...` and `to: ...`) or a mapping from -> to"


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
    first: dict[str, int] = {}
    for entry, line in _items(value, node):
        ident = entry.get("id") if isinstance(entry, dict) else None
        ident = ident.strip() if isinstance(ident, str) else ""
        if not ident:
            found.problem(line, "a category entry has no `id`")
        elif ident in first:
            found.problem(line, f"the category {_shown(ident)} is already given at line {first[ident]}")
        else:
            first[ident] = line
            name = _field(entry, "name", str, "text", found, line) or ident
            order = _field(entry, "order", (int, float), "a number", found, line)
            scope = _field(entry, "scope", str, "text", found, line)
            records.append(Category(ident, name.strip(), scope, order, line))
    return records, found.problems


def _field(entry: dict, key: str, kind, described: str, found: _Problems, line: int):
    """`entry[key]` when it is of `kind`; else None, and a problem when it is there but of another kind."""
    value = entry.get(key)
    if value is None or (isinstance(value, kind) and not isinstance(value, bool)):
        return value
    found.problem(line, f"the category {_shown(entry['id'].strip())} has a `{key}` that is not {described}")
    return None


# name -> its validator; the other data files (citations.yaml) are read as they parse
VALIDATORS: dict[str, Callable[[object, yaml.Node | None, str], tuple[list, list[Problem]]]] = {
    "redirects": redirects,
    "categories": categories,
}


def validated(name: str, value: object, node: yaml.Node | None = None) -> tuple[object, list[Problem]]:
    """What `Wiki.data[name]` holds for the data file `name` whose YAML is `value` (`node`: its node tree, for
    lines), and the problems of its entries: a validated file's records as plain data; another's value."""
    validate = VALIDATORS.get(name)
    if validate is None or value is None:
        return value, []
    records, problems = validate(value, node, f"{name}.yaml")
    return plain(records), problems


def plain(records: list[Redirect] | list[Category]) -> list[dict]:
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
