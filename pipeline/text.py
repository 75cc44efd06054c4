"""Small text helpers shared by passes: slugs, lookup keys, line positions."""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

# Python's \w leaves out combining marks (the vowel signs of Thai, Devanagari, Bengali...): they are kept
# by `_marks_kept`, so that a name in any script keeps every letter in its URL and anchor.
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
    slug = DASHES.sub("-", UNSAFE.sub(_marks_kept("-"), value.replace(" ", "-"))).strip("-.")
    return slug or _symbols(value) or "-"


def _symbols(value: str) -> str:
    """The symbols of a name with no letter or digit (`🚀.md`, `⭐ ⭐`): its emoji, each kept, so that two such
    notes are two pages (percent-encoded on the wire, shown as they are)."""
    return "-".join("".join(char for char in word if unicodedata.category(char) == "So") for word in value.split()).strip("-")


def _marks_kept(replacement: str):
    """A substitution of a run of unsafe characters: each combining mark kept, any other character `replacement`
    (the runs `DASHES` then collapses)."""

    def replace(match: re.Match) -> str:
        return "".join(char if _is_mark(char) else replacement for char in match.group())

    return replace


def _is_mark(char: str) -> bool:
    """A combining mark of a script; not a variation selector (`🗂️` is an emoji and U+FE0F, dropped with it)."""
    return unicodedata.category(char)[0] == "M" and not ("\ufe00" <= char <= "\ufe0f" or "\U000e0100" <= char <= "\U000e01ef")


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
    return HEADING_UNSAFE.sub(_marks_kept(""), value).replace(" ", "-")
