"""Every YAML text the pipeline reads: frontmatter, the data files (`redirects.yaml`, ...) and `wiki.yaml`.

`load` is libyaml's safe loader (plain data, never Python objects) with limits on what a small
text can make its readers build, since the content folder is not trusted:

- a text has at most MAX_CHARS characters;
- collections nest at most MAX_DEPTH deep: libyaml composes nodes recursively in C, and a
  100,000-deep `[[[...` crashes the process; every walk of the value after it recurses too;
- aliases stand for at most MAX_ALIAS_VALUES values in all, counting each use of an alias as a
  copy of what it names (nine levels of `&a [*a, *a, ...]` in 367 bytes stand for 400 million
  values once walked), and an alias never names a collection it is inside (a value that
  contains itself). Small aliases (`<<: *defaults`, a repeated scalar) are fine.

A text that breaks a limit, or does not parse, or holds a value Python cannot make (`2024-13-45`
as a date, an integer of 5,000 digits), raises `YamlError`: a one-line message and its line.
"""

from __future__ import annotations

import yaml
from yaml.composer import ComposerError
from yaml.constructor import ConstructorError, SafeConstructor
from yaml.events import AliasEvent, CollectionEndEvent, CollectionStartEvent, ScalarEvent

try:  # libyaml is several times faster; fall back when PyYAML was built without it
    from yaml import CSafeLoader as _BaseLoader
except ImportError:  # pragma: no cover
    from yaml import SafeLoader as _BaseLoader  # type: ignore[assignment]

MAX_CHARS = 1_000_000
MAX_DEPTH = 100
MAX_ALIAS_VALUES = 10_000
# Every collection opens with one of these characters (a flow `[` or `{`, a block entry `-`, a key's
# `:` or `?`), so a text holding at most MAX_DEPTH of them cannot nest deeper than that.
OPENERS = "[{-:?"
# Tags whose constructors raise plain Python errors on a bad value (`int('x')`, `date(2024, 13, 45)`).
CHECKED_TAGS = tuple(f"tag:yaml.org,2002:{kind}" for kind in ("bool", "int", "float", "binary", "timestamp"))


class YamlError(Exception):
    """Why a YAML text was not loaded: `message` completes "YAML ..." (`does not parse: ...`, `nests deeper than
    100 levels`); `line` is 1-based, in the text given to `load`."""

    def __init__(self, message: str, line: int):
        super().__init__(message)
        self.message = message
        self.line = line


def _checked(construct):
    """`construct` raising a YAML error at its node, not a Python one, on a value it cannot make."""

    def construct_checked(loader, node):
        try:
            return construct(loader, node)
        except (ValueError, TypeError, LookupError, AttributeError):
            problem = f"{node.value[:40]!r} is not a valid {node.tag.rsplit(':', 1)[-1]}"
            raise ConstructorError(None, None, problem, node.start_mark) from None

    return construct_checked


class _Loader(_BaseLoader):
    """The safe loader, its value constructors checked."""

    yaml_constructors = {
        **_BaseLoader.yaml_constructors,
        **{tag: _checked(SafeConstructor.yaml_constructors[tag]) for tag in CHECKED_TAGS},
    }


def load(text: str) -> object:
    """The value of the single YAML document in `text` (None when empty); raises YamlError."""
    return load_document(text)[0]


def load_document(text: str) -> tuple[object, yaml.Node | None]:
    """`load`'s value and the node tree it was made from (whose marks tell each value's line), from one parse."""
    if len(text) > MAX_CHARS:
        raise YamlError(f"is larger than {MAX_CHARS:,} characters", 1)
    try:
        # Without both an anchor and an alias, and with few openers, nothing can expand or nest deep:
        # most texts skip the walk over their events.
        if ("&" in text and "*" in text) or sum(map(text.count, OPENERS)) > MAX_DEPTH:
            _check_events(text)
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            return (None if node is None else loader.construct_document(node)), node
        finally:
            loader.dispose()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if isinstance(exc, ComposerError) and exc.context:  # "found duplicate anchor 'a'; first occurrence"
            problem = exc.context.split(";")[0]
        if "nesting depth" in problem:  # PyYAML 6.0.4's scanner stops deep flow collections before the walk does
            raise YamlError(f"nests deeper than {MAX_DEPTH} levels", mark.line + 1 if mark else 1) from None
        raise YamlError(f"does not parse: {problem}", mark.line + 1 if mark else 1) from None


def _check_events(text: str) -> None:
    """Walk the parse events (libyaml's parser keeps its own stack, unlike its composer) and raise YamlError
    past MAX_DEPTH or MAX_ALIAS_VALUES, or at an alias inside the collection it names."""
    opened: list[list] = []  # per open collection: [anchor, values so far, height so far]
    named: dict[str, tuple[int, int]] = {}  # anchor -> (values, height) of what it names
    expanded = 0
    for event in yaml.parse(text, Loader=_BaseLoader):
        line = event.start_mark.line + 1
        if isinstance(event, CollectionStartEvent):
            if len(opened) >= MAX_DEPTH:
                raise YamlError(f"nests deeper than {MAX_DEPTH} levels", line)
            opened.append([event.anchor, 1, 0])
            continue
        if isinstance(event, CollectionEndEvent):
            anchor, values, height = opened.pop()
            height += 1
        elif isinstance(event, AliasEvent):
            if any(entry[0] == event.anchor for entry in opened):
                raise YamlError(f"has an alias (*{event.anchor}) inside the collection it names", line)
            anchor, (values, height) = None, named.get(event.anchor, (1, 0))  # undefined: the loader says so
            expanded += values
            if expanded > MAX_ALIAS_VALUES:
                raise YamlError(f"has aliases that stand for more than {MAX_ALIAS_VALUES:,} values", line)
            if len(opened) + height > MAX_DEPTH:
                raise YamlError(f"nests deeper than {MAX_DEPTH} levels (through *{event.anchor})", line)
        elif isinstance(event, ScalarEvent):
            anchor, values, height = event.anchor, 1, 0
        else:  # stream and document start and end
            continue
        if anchor is not None:
            named[anchor] = (values, height)
        if opened:
            parent = opened[-1]
            parent[1] += values
            parent[2] = max(parent[2], height)
