"""The records every pass works with: the wiki a `select` looks at (`Wiki`), diagnostics, and the ways a
select reads stored results without decoding them. The pass contract itself is `contract.py`'s.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Callable

from pipeline.content.article import Article

SEVERITIES = ("error", "warning", "info")

DIAGNOSTICS_SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["code", "severity", "message", "line", "col"],
        "properties": {
            "code": {"type": "string", "pattern": "^[a-z][a-z0-9-]*$"},
            "severity": {"enum": list(SEVERITIES)},
            "message": {"type": "string"},
            "line": {"type": "integer", "minimum": 1},
            "col": {"type": "integer", "minimum": 1},
        },
    },
}


class RetryableError(Exception):
    """Raised by a pass for a failure worth retrying later (anything else is permanent)."""


def diagnostic(code: str, message: str, line: int = 1, col: int = 1, severity: str = "warning") -> dict:
    """A diagnostic as it appears in a pass output."""
    return {"code": code, "severity": severity, "message": message, "line": line, "col": col}


@dataclass
class Wiki:
    """What `select` may look at: options, data files, facts, and results of the passes it needs.

    `results[pass_name][capture_id]` is that pass's output for a current
    capture (a Mapping: in a build, each read decodes a fresh copy);
    `articles` lists the current captures. `data` holds the content root's
    data files, parsed (`redirects`, `categories`, `citations`: the
    YAML of `redirects.yaml` etc., or None when absent; redirects and
    categories as their validated records, plain: `content/data_files.py`).
    `facts` holds what
    the build learned outside the content: `git_times` (path -> unix time of
    the last commit touching it) and `history` (path -> [(captured_at,
    sha256), ...], oldest first). `attachments` maps the path of each of the
    content folder's other files (images, PDFs, ...) to its bytes' sha256
    (`content/attachments.py`). `memo` lets a pass build an index once per
    plan instead of once per article; `forget` drops those indexes when the
    round that needed them is planned; `load_memos` and `memos` let the planner
    hand in, and take out, those a pass keeps between builds (`Incremental.keep`).
    """

    options: dict[str, Any]
    articles: list[Article]
    results: dict[str, Mapping[int, dict]] = field(default_factory=dict)
    data: dict[str, Any] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    attachments: dict[str, str] = field(default_factory=dict)
    _memo: dict[str, Any] = field(default_factory=dict)
    _made: Counter = field(default_factory=Counter)

    def memo(self, key: str, build: Callable[[], Any]) -> Any:
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]

    def load_memos(self, values: dict[str, Any]) -> None:
        self._memo.update(values)

    def memos(self, keys) -> dict[str, Any]:
        return {key: self._memo[key] for key in keys if key in self._memo}

    def entry(self, key: str, capture_id: int, made_of: Any, make: Callable[[], Any],
              still: Callable[[Any], bool] = lambda value: True) -> Any:  # fmt: skip
        """What `make` gives for the article `capture_id`, held in the memo `key` (a dict a pass may keep between
        builds: `Incremental.keep`) with what it was `made_of`, and made again when that differs or the value is
        not `still` true. A kept memo is kept again once enough entries were made again (`jobs/plan.py`)."""
        entries = self.memo(key, dict)
        found = entries.get(capture_id)
        if found is None or found[0] != made_of or not still(found[1]):
            found = entries[capture_id] = (made_of, make())
            self._made[key] += 1
        return found[1]

    def add_entries(self, key: str, entries: dict, made: int) -> None:
        """Entries of the memo `key` made by another process (a forked planner's `entry`), `made` of them anew."""
        self.memo(key, dict).update(entries)
        self._made[key] += made

    def entries_made(self, key: str) -> int:
        """How many entries of the memo `key` were made again in this plan (`entry`)."""
        return self._made[key]

    def forget(self) -> None:
        self._memo.clear()
        self._made.clear()


def frontmatter_field(article: Article, key: str):
    """The frontmatter's `key` (None when it has none). A build's articles hold their frontmatter as
    JSON until it is read (`frontmatter_json`): one whose JSON does not hold the key is not decoded."""
    held = getattr(article, "frontmatter_json", None)
    quoted = _as_in_json(key)
    if held is not None and quoted is not None and quoted not in held:
        return None
    return (article.frontmatter or {}).get(key)


@functools.lru_cache(maxsize=64)
def _as_in_json(key: str) -> str | None:
    """`key` quoted as any JSON writes it, when that is plain (None when it may be escaped): asked for
    each article, in every build."""
    plain = key.isascii() and key.isprintable() and '"' not in key and "\\" not in key
    return f'"{key}"' if plain else None


def diagnostics_of(outputs: Mapping[int, dict]) -> Iterable[tuple[int, list]]:
    """(capture id, diagnostics) of the `outputs` that may report one (stored results know it without
    being read, and keep their diagnostics apart: see `SOME_DIAGNOSTIC` in storage/schema.py); of all
    of them for outputs held as plain data."""
    find = getattr(outputs, "diagnostics", None)
    if find is not None:
        return find()
    return ((capture_id, output.get("diagnostics", [])) for capture_id, output in outputs.items())


def mentioning(outputs: Mapping[int, dict], text: str, read: bool = True) -> list[int]:
    """The capture ids of `outputs` whose JSON may hold `text` (a build's results are held as JSON:
    the others are not decoded, and those found are read with them, unless not `read`: when few of
    them will be used); every id for outputs held as plain data."""
    find = getattr(outputs, "mentioning", None)
    return find(text, read) if find is not None else list(outputs)


def field_values(outputs: Mapping[int, dict], name: str) -> dict[int, object]:
    """capture id -> the value of each output's top-level field `name` (None: it has none); a build's
    results are held as JSON, and SQLite takes the field out of each without decoding it here."""
    find = getattr(outputs, "field_values", None)
    return find(name) if find is not None else {capture_id: output.get(name) for capture_id, output in outputs.items()}


def known_as(outputs: Mapping[int, dict], capture_id: int):
    """A result as a plan may digest it: its stored digest, without decoding it (else, plain data in tests,
    itself); None: it has none."""
    if capture_id not in outputs:
        return None
    digest = getattr(outputs, "digest", None)
    return digest(capture_id) if digest is not None else outputs[capture_id]


def by_column(column: Callable[[list[Article], Wiki], list]) -> Callable[[Article, Wiki], Any]:
    """An `Incremental.reads_own` function written for a list of articles at once, `column(articles, wiki) -> values` (in
    order): what every article shares (an index, a set) is looked up once, where a plan after an edit
    asks it of every article. It is still called as `part(article, wiki)`; the planner calls `.column`."""

    @functools.wraps(column)
    def part(article: Article, wiki: Wiki):
        return column([article], wiki)[0]

    part.column = column  # type: ignore[attr-defined]
    return part
