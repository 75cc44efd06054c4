"""The table of site emitters: each output of the site one module, run in the table's order.

`EMITTERS` holds the built-in outputs. A wiki changes the table with the
`emitters:` list of `wiki.yaml`: an item is a module (a dotted name or a
`.py` path) whose `EMITTER` is an `Emitter` (`base.py`), an installed
package's emitter (entry point group `pipeline.emitters`), either one
mapped to its options, or a built-in that may be turned off mapped to
`false` (`sitemap: false`). The built-ins run first, then the others in
the order named.

The table as configured is one canonical text (`setting`): the build stamp
and the digest of every page name it, so a changed list is never skipped
and renders the site again. Working it out imports no built-in emitter
(their modules load the templates' code): a build with nothing to do needs
no more than it.
"""

from __future__ import annotations

import functools
import importlib
import json
from dataclasses import dataclass

from pipeline.config import CONFIG_FILE
from pipeline.errors import ConfigError
from pipeline.incremental.code_digest import code_digest
from pipeline.runtime.named_code import entry_points, import_named, is_module, unknown_name
from pipeline.site.emitters.base import Emitter

ENTRY_POINT_GROUP = "pipeline.emitters"
WHERE = f"{CONFIG_FILE}: emitters:"  # what each error line starts with


@dataclass(frozen=True)
class Builtin:
    name: str
    module: str  # its `EMITTER`, imported when a site is rendered
    optional: bool = False  # a wiki may turn it off (`name: false`)


EMITTERS = tuple(Builtin(name, f"pipeline.site.emitters.{name}", optional) for name, optional in (
    ("articles", False),
    ("history", False),
    ("special_pages", False),
    ("translation_status", True),
    ("tags", False),  # inline `#tags` link to its pages
    ("redirects", False),
    ("sitemap", True),
    ("feeds", True),
    ("robots", True),
    ("search_index", False),  # `search: false` turns the search off
    ("assets", False),
    ("attachments", False),
    ("not_found", True),
))  # fmt: skip
BUILTIN = {builtin.name: builtin for builtin in EMITTERS}


@dataclass(frozen=True)
class EmitterTable:
    entries: tuple[tuple[str, Emitter, dict], ...]  # (name as configured, emitter, options), in the order they run
    setting: str  # the table as configured (`setting`)


def resolve(items: list) -> EmitterTable:
    """The emitters `items` (the `emitters:` list as config.py checked its shape) make of the built-in table."""
    chosen = _chosen(json.dumps(items, sort_keys=True))
    entries = [(b.name, _builtin(b), pick[1]) for b in EMITTERS if (pick := chosen.get(b.name, (None, {}))) is not None]
    entries += [(name, *pick) for name, pick in chosen.items() if name not in BUILTIN and pick is not None]
    return EmitterTable(tuple(entries), setting(items))


def setting(items: list) -> str:
    """The table as the build stamp and the pages' digests name it: "" for the built-in one; else, for each item,
    its name and options, and an emitter not built in by its version and the digest of its code."""
    if not items:
        return ""
    chosen = _chosen(json.dumps(items, sort_keys=True))
    described = [
        [name, False] if pick is None else [name, pick[1]] if name in BUILTIN
        else [name, pick[1], pick[0].version, code_digest(pick[0].emit.__module__)]
        for name, pick in chosen.items()
    ]  # fmt: skip
    return json.dumps(described, sort_keys=True, separators=(",", ":"))


@functools.lru_cache(maxsize=8)
def _chosen(items_json: str) -> dict[str, tuple[Emitter | None, dict] | None]:
    """name -> (emitter, options), or None where turned off; a built-in's emitter is None (not imported here)."""
    declared = functools.cache(_declared)
    chosen: dict[str, tuple[Emitter | None, dict] | None] = {}
    for item in json.loads(items_json):
        ref, value = next(iter(item.items())) if isinstance(item, dict) else (item, None)
        builtin = BUILTIN.get(ref)
        if builtin is not None and value is False and not builtin.optional:
            raise ConfigError(f"{WHERE} {ref} cannot be turned off")
        if value is False:
            chosen[ref] = None
            continue
        options = value if isinstance(value, dict) else {}
        # A built-in is imported only to check options given to it: its module loads the templates' code.
        emitter = _builtin(builtin) if builtin is not None and options else None if builtin else _lookup(ref, declared)
        if emitter is not None:
            options = _options(ref, emitter, options)
        chosen[ref] = (emitter, options)
    return chosen


def _options(ref: str, emitter: Emitter, options: dict) -> dict:
    unknown = sorted(map(str, set(options) - set(emitter.defaults)))
    if unknown:
        known = ", ".join(emitter.defaults) or "none"
        raise ConfigError(f"{WHERE} {ref}: unknown option(s) {', '.join(unknown)} (it takes: {known})")
    return {**emitter.defaults, **options}


def _builtin(builtin: Builtin) -> Emitter:
    return importlib.import_module(builtin.module).EMITTER


def _declared() -> dict[str, Emitter]:
    """name -> emitter, for each entry point of the group `pipeline.emitters` (each names an `Emitter`)."""
    found = entry_points(ENTRY_POINT_GROUP, WHERE)
    for name, value in found.items():
        if not isinstance(value, Emitter):
            raise ConfigError(f"{WHERE} entry point {name!r} is not a pipeline.site.emitters.base.Emitter")
    return found


def _lookup(ref: str, declared) -> Emitter:
    if is_module(ref):
        emitter = getattr(import_named(ref, f"{WHERE} emitter"), "EMITTER", None)
        if not isinstance(emitter, Emitter):
            raise ConfigError(f"{WHERE} {ref} has no EMITTER (a pipeline.site.emitters.base.Emitter)")
        return emitter
    installed = declared()
    if ref not in installed:
        raise unknown_name(ref, [*BUILTIN, *installed], f"{WHERE} unknown emitter")
    return installed[ref]
