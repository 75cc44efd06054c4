"""JSON in and out of the store: compact, UTF-8, and fast.

Every job input, result and frontmatter crosses SQLite as JSON text, some
200,000 documents in a cold build of a 10,000-article wiki. orjson encodes
and decodes them several times faster than the standard library. It refuses
what JSON cannot say exactly (non-string keys, integers beyond 64 bits); for
those, and for text an older version stored with the standard library
(`NaN`), the standard library takes over, with the same compact form.
"""

from __future__ import annotations

import json

import orjson


def dumps(value, *, sort_keys: bool = False) -> str:
    """Compact JSON; with `sort_keys`, canonical (equal values give equal text), for hashing."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0).decode()
    except TypeError:
        return json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes):
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)
