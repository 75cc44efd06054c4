"""The table of Markdown extensions: each wiki syntax a markdown-it-py plugin, enabled by name.

The built-in table (`BUILTIN`) holds the wiki's syntaxes in the order their
rules go in. A wiki changes it with the `markdown:` list of `wiki.yaml`: an
item is a name, a one-key mapping of a name to its options, or a name
mapped to `false` to turn off a built-in that is on by default. A name is a
built-in's, an installed package's (entry point group `pipeline.markdown`),
or a module (a dotted name or a `.py` path) whose `EXTENSION` is a
`MarkdownExtension`.

The resolved table (names, versions, options) is one canonical text, the
`markdown` option passes read (`setting`): it is part of the fingerprint of
every job that parses Markdown, so changing the list re-runs exactly those
jobs. The default table has its text too (not the empty text): a built-in
added to it, or a version raised, changes that text, so the jobs that parse
Markdown run again for every wiki, as the same text may now render otherwise.
`""` still names the default table to `enabled` (a parser made without a setting).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from pipeline.errors import ConfigError
from pipeline.runtime.named_code import entry_points, import_named, is_module, unknown_name

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt

ENTRY_POINT_GROUP = "pipeline.markdown"


@dataclass(frozen=True)
class MarkdownExtension:
    """One syntax: `plugin(md, **options)` installs its rules on a MarkdownIt.

    Bump `version` whenever the same text may parse or render differently: the jobs that parse
    Markdown then run again. `defaults` names every option it takes (others are refused).
    `required`: the passes read what it makes, so a wiki cannot turn it off. `choices`: the values an option may take,
    for the options that take one of a few.
    """

    name: str
    plugin: Callable[..., None]
    version: int = 1
    defaults: Mapping[str, Any] = field(default_factory=dict)
    enabled_by_default: bool = False
    required: bool = False
    choices: Mapping[str, tuple] = field(default_factory=dict)


def _core_rules(*names: str) -> Callable[[MarkdownIt], None]:
    def enable(md: MarkdownIt) -> None:
        md.enable(list(names))

    return enable


def _footnotes(md: MarkdownIt) -> None:
    from mdit_py_plugins.footnote import footnote_plugin

    footnote_plugin(md)


def _tasklists(md: MarkdownIt) -> None:
    from mdit_py_plugins.tasklists import tasklists_plugin

    tasklists_plugin(md)


def _callouts(md: MarkdownIt) -> None:
    from pipeline.markdown.callouts import callouts_plugin

    callouts_plugin(md)


def _comments(md: MarkdownIt) -> None:
    from pipeline.markdown.comments import comments_plugin

    comments_plugin(md)


def _highlight(md: MarkdownIt) -> None:
    from pipeline.markdown.highlight import highlight_plugin

    highlight_plugin(md)


def _wikilinks(md: MarkdownIt, heading_text: str = "written") -> None:
    from pipeline.markdown.wikilinks import wikilinks_plugin

    # where the site is published, and its default language; how a link to a heading or block reads
    wikilinks_plugin(md, **md.options["site"], heading_text=heading_text)


def _heading_ids(md: MarkdownIt) -> None:
    from pipeline.markdown.headings import heading_ids_plugin

    heading_ids_plugin(md)


def _block_ids(md: MarkdownIt) -> None:
    from pipeline.markdown.block_ids import block_ids_plugin

    block_ids_plugin(md)


def _tags(md: MarkdownIt) -> None:
    from pipeline.markdown.tags import tags_plugin

    tags_plugin(md)


def _heading_permalinks(md: MarkdownIt) -> None:
    from pipeline.markdown.headings import heading_permalinks_plugin

    heading_permalinks_plugin(md)


def _code(md: MarkdownIt) -> None:
    from pipeline.markdown.code import code_plugin

    code_plugin(md)


def _mermaid(md: MarkdownIt) -> None:
    from pipeline.markdown.diagrams import mermaid_plugin

    mermaid_plugin(md)  # after `code`: it renders the mermaid fences and hands it the others


def _math(md: MarkdownIt) -> None:
    from pipeline.markdown.math import math_plugin

    math_plugin(md)


def _safe_tags(md: MarkdownIt) -> None:
    from pipeline.markdown.safe_tags import safe_tags_plugin

    safe_tags_plugin(md)


def _autolinks(md: MarkdownIt) -> None:
    from pipeline.markdown.autolinks import autolinks_plugin

    autolinks_plugin(md)


def _limits(md: MarkdownIt) -> None:
    from pipeline.markdown.limits import limits_plugin

    limits_plugin(md)  # last of the built-ins: it counts what the link rules (wikilinks too) make


BUILTIN: dict[str, MarkdownExtension] = {ext.name: ext for ext in (
    MarkdownExtension("tables", _core_rules("table"), enabled_by_default=True),
    MarkdownExtension("strikethrough", _core_rules("strikethrough"), enabled_by_default=True),
    MarkdownExtension("footnotes", _footnotes, enabled_by_default=True, required=True),
    MarkdownExtension("tasklists", _tasklists, enabled_by_default=True),
    MarkdownExtension("highlight", _highlight, enabled_by_default=True),
    MarkdownExtension("comments", _comments, enabled_by_default=True),
    MarkdownExtension("callouts", _callouts, enabled_by_default=True),
    MarkdownExtension("wikilinks", _wikilinks, defaults={"heading_text": "written"}, enabled_by_default=True,
                      required=True, choices={"heading_text": ("written", "obsidian")}),
    MarkdownExtension("heading_ids", _heading_ids, enabled_by_default=True, required=True),
    MarkdownExtension("block_ids", _block_ids, enabled_by_default=True),
    MarkdownExtension("tags", _tags, enabled_by_default=True),
    MarkdownExtension("heading_permalinks", _heading_permalinks, enabled_by_default=True),
    MarkdownExtension("code", _code, enabled_by_default=True),
    MarkdownExtension("mermaid", _mermaid, enabled_by_default=True),
    MarkdownExtension("math", _math, enabled_by_default=True),
    MarkdownExtension("safe_tags", _safe_tags, enabled_by_default=True),
    MarkdownExtension("autolinks", _autolinks, enabled_by_default=True),
    MarkdownExtension("limits", _limits, enabled_by_default=True, required=True),
)}  # fmt: skip

Enabled = tuple[MarkdownExtension, dict]  # an extension and its options


def declared_extensions() -> dict[str, MarkdownExtension]:
    """name -> extension, for each entry point of the group `pipeline.markdown` (loaded: a
    MarkdownExtension, or a plain plugin function taking no options)."""
    found = entry_points(ENTRY_POINT_GROUP, "markdown:")
    return {name: _as_extension(loaded, name, f"entry point {name!r}") for name, loaded in found.items()}


def _as_extension(value, name: str, where: str) -> MarkdownExtension:
    if isinstance(value, MarkdownExtension):
        return value
    if callable(value):
        return MarkdownExtension(name, value)
    raise ConfigError(f"markdown: {where} is neither a MarkdownExtension nor a plugin function")


def _module_extension(ref: str) -> MarkdownExtension:
    """The `EXTENSION` of a module named by a dotted name or a `.py` path (absolute: config.py made it so)."""
    module = import_named(ref, "markdown: extension", "pipeline_markdown_extension")
    extension = getattr(module, "EXTENSION", None)
    if not isinstance(extension, MarkdownExtension):
        raise ConfigError(f"markdown: {ref} has no EXTENSION (a pipeline.markdown.extensions.MarkdownExtension)")
    return extension


def _lookup(ref: str, declared: Callable[[], dict]) -> MarkdownExtension:
    if ref in BUILTIN:
        return BUILTIN[ref]
    if is_module(ref):
        return _module_extension(ref)
    installed = declared()
    if ref not in installed:
        raise unknown_name(ref, [*BUILTIN, *installed], "markdown: unknown extension")
    return installed[ref]


def resolve(items: list) -> tuple[tuple[str, MarkdownExtension, dict], ...]:
    """(name as configured, extension, options) of each enabled extension, in the order their rules go in:
    the built-ins on by default (or named), then the others in the order of `items`.

    `items` is the `markdown:` list as config.py checked its shape: names, and one-key mappings of a
    name to its options (a mapping), to `true`/None (on, with its defaults) or to `false` (off).
    """
    declared = functools.cache(declared_extensions)
    chosen: dict[str, tuple[MarkdownExtension, dict] | None] = {}
    for item in items:
        ref, value = next(iter(item.items())) if isinstance(item, dict) else (item, None)
        extension = _lookup(ref, declared)
        if value is False:
            if extension.required:
                raise ConfigError(f"markdown: {ref} cannot be turned off (the passes read what it makes)")
            chosen[ref] = None
            continue
        options = value if isinstance(value, dict) else {}
        unknown = sorted(map(str, set(options) - set(extension.defaults)))
        if unknown:
            known = ", ".join(extension.defaults) or "none"
            raise ConfigError(f"markdown: {ref}: unknown option(s) {', '.join(unknown)} (it takes: {known})")
        for option, allowed in extension.choices.items():
            if option in options and options[option] not in allowed:
                raise ConfigError(f"markdown: {ref}: {option} must be one of {', '.join(map(str, allowed))}")
        chosen[ref] = (extension, {**extension.defaults, **options})
    table = []
    for name, ext in BUILTIN.items():  # the built-ins in their places, then the others in the order named
        pick = chosen.pop(name) if name in chosen else (ext, {**ext.defaults}) if ext.enabled_by_default else None
        if pick:
            table.append((name, *pick))
    table += [(name, *pick) for name, pick in chosen.items() if pick]
    return tuple(table)


def setting(items: list, links: str = "wiki") -> str:
    """The resolved table as the `markdown` option passes read: canonical JSON of [name, version,
    options] per extension, the default table's included. With `links: obsidian`, a link to a heading or block
    without a label reads as Obsidian shows it (`Note > Heading`), unless `items` set `wikilinks` themselves."""
    if links == "obsidian":
        items = [{"wikilinks": {"heading_text": "obsidian"}}, *items]
    return _setting(json.dumps(items, sort_keys=True))


@functools.lru_cache(maxsize=8)
def _setting(items_json: str) -> str:
    table = [[name, ext.version, options] for name, ext, options in resolve(json.loads(items_json))]
    return json.dumps(table, sort_keys=True, separators=(",", ":"))


@functools.lru_cache(maxsize=8)
def enabled(markdown: str) -> tuple[Enabled, ...]:
    """The extensions and options a `markdown` setting names, looked up again (in a worker, say)."""
    if not markdown:
        return tuple((ext, {**ext.defaults}) for ext in BUILTIN.values() if ext.enabled_by_default)
    declared = functools.cache(declared_extensions)
    found = []
    for name, version, options in json.loads(markdown):
        extension = _lookup(name, declared)
        if extension.version != version:  # the code changed since the plan: its jobs would be mislabelled
            raise ConfigError(f"markdown: {name} is now version {extension.version}, planned with {version}")
        found.append((extension, options))
    return tuple(found)
