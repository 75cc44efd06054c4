"""JSON in and out of the store: compact, UTF-8, and fast.

Every job input, result and frontmatter crosses SQLite as JSON text, many
documents for each article in a cold build. orjson encodes
and decodes them several times faster than the standard library. It refuses
what JSON cannot say exactly (non-string keys, integers beyond 64 bits); for
those, and for text an older version stored with the standard library
(`NaN`), the standard library takes over, with the same compact form.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson


# orjson's options, by `sort_keys`.
OPTIONS = (orjson.OPT_PASSTHROUGH_SUBCLASS, orjson.OPT_PASSTHROUGH_SUBCLASS | orjson.OPT_SORT_KEYS)


def dumps(value, *, sort_keys: bool = False) -> str:
    """Compact JSON; with `sort_keys`, canonical (equal values give equal text), for hashing.

    A value with an `as_json()` method, even a str, is written as what that returns: a
    text held in the store is written as where it is held (`pipeline.storage.text_refs`).
    """
    try:
        return orjson.dumps(value, default=as_json, option=OPTIONS[sort_keys]).decode()
    except TypeError:
        return json.dumps(value, default=as_json, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)


def encode(value, *, sort_keys: bool = False) -> bytes:
    """`dumps`, as UTF-8 bytes: a text with a character beyond Latin-1 (an emoji, a CJK name) is held by
    Python at 2 or 4 bytes a character, its UTF-8 at 1 to 4, and is not decoded and encoded again to be hashed.
    orjson's bytes keep the whole buffer it wrote them in, however short: bytes to hold, copy (`compact`)."""
    try:
        return orjson.dumps(value, default=as_json, option=OPTIONS[sort_keys])
    except TypeError:
        return dumps(value, sort_keys=sort_keys).encode()


def compact(data: bytes) -> bytes:
    """A copy of `data` in an allocation of its own size (see `encode`)."""
    return bytes(memoryview(data))


def as_json(value):
    """orjson's `default`: a value's `as_json()`, or a subclass of a JSON type as that type."""
    if hasattr(value, "as_json"):
        return value.as_json()
    for base in (str, int, dict, list, tuple):  # any other subclass of these is written as one (a named tuple: a list)
        if isinstance(value, base):
            return base(value)
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


def loads(text: str | bytes):
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def save(path: Path, value) -> None:
    """Write `value` as JSON at `path`, whole or not at all (`save_bytes`); encoded straight to UTF-8, not through
    a text: the site's records are megabytes."""
    save_bytes(path, encode(value))


def save_bytes(path: Path, data: bytes) -> None:
    """Write `data` at `path`, whole or not at all: a crash mid-write leaves the file that was
    there (the state folder's records and caches are read back by the next build)."""
    temporary = path.with_suffix(".tmp")
    temporary.write_bytes(data)
    temporary.replace(path)
