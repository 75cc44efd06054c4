"""Small text helpers shared by passes: slugs, lookup keys, line positions."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

UNSAFE = re.compile(r"[^\w\-.~]+", re.UNICODE)
DASHES = re.compile(r"-{2,}")
# What both `url_slug` and `lookup_key` leave as it is: most slugs are already one (the metadata pass writes
# them so), and one match costs a fifth of normalizing (every build makes a URL for each article).
PLAIN = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


@lru_cache(maxsize=65536)
def url_slug(value: str) -> str:
    """A slug safe in a URL path segment: lower case, spaces as hyphens, accents kept."""
    if PLAIN.fullmatch(value):
        return value
    value = unicodedata.normalize("NFC", value.strip()).lower()
    value = UNSAFE.sub("-", value.replace(" ", "-"))
    return DASHES.sub("-", value).strip("-.") or "-"


@lru_cache(maxsize=65536)
def lookup_key(value: str) -> str:
    """The normalized form links are matched by: case folded, spaces and underscores as hyphens."""
    if PLAIN.fullmatch(value):
        return value
    value = unicodedata.normalize("NFC", value.strip()).casefold()
    return DASHES.sub("-", re.sub(r"[\s_]+", "-", value))


def frontmatter_line(text: str | None, key: str, body_line: int) -> int:
    """The line of `key:` in the frontmatter (1 when it is not found)."""
    if not text:
        return 1
    prefix = f"{key}:"
    for number, line in enumerate(text.split("\n", body_line)[: body_line - 1], start=1):
        if line.startswith(prefix):
            return number
    return 1


HEADING_UNSAFE = re.compile(r"[^\w\- ]+", re.UNICODE)


@lru_cache(maxsize=65536)
def heading_slug(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens, letters of any script kept."""
    value = unicodedata.normalize("NFC", text.strip()).lower()
    return HEADING_UNSAFE.sub("", value).replace(" ", "-")
