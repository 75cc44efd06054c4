"""Text stored once, and referred to, not copied, by the results built on it.

The links pass stores an article's HTML with its links left as numbered
holes (`NUL number NUL`: markdown-it turns every NUL of its input into
U+FFFD, so no rendered text holds one); the html pass fills the holes. Its
page is a `Filled` text, a str in every way, which the store writes as where
the text comes from (which result, which part of it, and the fills) instead
of writing the page a second time. `StoredText` is a text read from a result
that remembers which one, so what is filled from it can say so.
"""

from __future__ import annotations

HOLE = "\x00"
STORED = "$stored"  # {"$stored": [job id, field]}: a result's field
FILLED = "$filled"  # {"$filled": [job id, field, start, end, fills]}: part of one, its holes filled


class StoredText(str):
    """A text field of a stored result; `source` is (job id, field)."""

    source: tuple[int, str]

    def __new__(cls, text: str, source: tuple[int, str]) -> "StoredText":
        text = super().__new__(cls, text)
        text.source = (source[0], source[1])
        return text

    def as_json(self) -> dict:
        return {STORED: list(self.source)}


class Filled(str):
    """A text made by `fill`; `as_json` is the recipe that makes it again from the store."""

    recipe: list

    def __new__(cls, text: str, recipe: list) -> "Filled":
        text = super().__new__(cls, text)
        text.recipe = recipe
        return text

    def as_json(self) -> dict:
        return {FILLED: self.recipe}


def fill(template: str, fills: list[str], start: int = 0, end: int | None = None) -> str:
    """`template[start:end]` with hole n replaced by `fills[n]`: a `Filled` text when the template is stored."""
    pieces = template[start:end].split(HOLE)
    for index in range(1, len(pieces), 2):
        pieces[index] = fills[int(pieces[index])]
    text = "".join(pieces)
    if isinstance(template, StoredText):
        return Filled(text, [*template.source, start, end, fills])
    return text

