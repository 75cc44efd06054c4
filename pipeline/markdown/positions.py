"""Where each wikilink of a parse is in the source: its 1-based line and column.

The wikilink rule notes each link's offset in the content of its inline
token; this core rule turns it into the line and column of the `[[` (or
`![[`) in the text given to the parser, in one walk through each token's
content (a hostile line may hold a huge number of links).
"""

from __future__ import annotations

import bisect
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it.rules_core import StateCore

LINK_TYPES = ("wikilink", "wikilink_embed")


def wikilink_positions(state: StateCore) -> None:
    """Turn each link's offset in its inline content into a line and column of the source."""
    lines, rows = None, {}
    footnotes = state.env.get("footnotes", {}).get("list", {})
    for index, token in enumerate(state.tokens):
        if token.type != "inline" or not token.children or token.map is None:
            continue
        links = _links_of(token.children, footnotes)
        cell = index > 0 and state.tokens[index - 1].type in ("td_open", "th_open")
        if not links and not cell:
            continue
        lines = lines if lines is not None else state.src.split("\n")
        start = _cell_start(token, lines, rows) if cell else 0
        if links:
            _place(links, token, lines, start)


def _cell_start(cell, lines: list[str], rows: dict[int, int]) -> int:
    """Where a table cell's text is in its row's line: looked for after the cell before it (`rows`: line ->
    where that one ended), or a link repeated in a row would take the first cell's column."""
    row = min(cell.map[0], len(lines) - 1)
    after = rows.get(row, 0)
    found = lines[row].find(cell.content, after)
    if found < 0:
        return after
    rows[row] = found + len(cell.content)
    return found


def _links_of(children: list, footnotes: dict) -> list:
    """The links of an inline's children not yet placed, with those of the inline footnotes (`^[...]`) it holds."""
    links = []
    for child in children:
        if child.type in LINK_TYPES and "offset" in child.meta:
            links.append(child)
        elif child.type == "footnote_ref" and "label" not in child.meta:
            links += _links_of(footnotes.get(child.meta["id"], {}).get("tokens", ()), footnotes)
    return links


def placing_inline_footnotes(rule):
    """The footnote plugin's `^[...]` rule, counting the offsets of the links in the footnote from the start
    of the content it is in (its text is parsed on its own, so they count from the footnote's `[`)."""

    def footnote_inline(state, silent: bool) -> bool:
        start = state.pos
        if not rule(state, silent):
            return False
        if not silent:
            _shift(state.env["footnotes"]["list"], state.tokens[-1].meta["id"], start + 2)
        return True

    return footnote_inline


def _shift(footnotes: dict, number: int, by: int) -> None:
    for token in footnotes.get(number, {}).get("tokens", ()):
        if token.type in LINK_TYPES and "offset" in token.meta:
            token.meta["offset"] += by
        elif token.type == "footnote_ref" and "label" not in token.meta:
            _shift(footnotes, token.meta["id"], by)


def _place(links: list, inline, lines: list[str], search_from: int = 0) -> None:
    """Give each link of an inline token its source line and column (`search_from`: where on its first
    line the content is looked for).

    In one walk through the content: a hostile line may hold a huge number of
    links, and looking each one's line up from the start of the content was quadratic.
    """
    content, places = inline.content, {}
    line_start, newlines, walked = 0, 0, 0
    for link in sorted(links, key=lambda link: link.meta["offset"]):
        offset = link.meta.pop("offset")
        if content.find("\n", walked, offset) >= 0:
            newlines += content.count("\n", walked, offset)
            line_start = content.rfind("\n", walked, offset) + 1
        walked = offset
        if newlines not in places:
            source = lines[min(inline.map[0] + newlines, len(lines) - 1)]
            places[newlines] = _Line(content, line_start, source, 0 if newlines else search_from)
        place = places[newlines]
        link.meta["line"] = min(inline.map[0] + newlines, len(lines) - 1) + 1
        link.meta["col"] = place.column(link.markup, offset - line_start) + 1


class _Line:
    """A line of an inline token's content and the source line it came from."""

    def __init__(self, content: str, start: int, source: str, search_from: int = 0) -> None:
        end = content.find("\n", start)
        self.segment = content[start : end if end >= 0 else len(content)]
        self.source = source
        self.start = source.find(self.segment, search_from)
        self.openers: dict[str, tuple[list[int], list[int]]] = {}

    def column(self, opener: str, within: int) -> int:
        """0-based column in the source line of the opener at `within` in the content line."""
        if self.start >= 0 and self.source.startswith(opener, self.start + within):
            return self.start + within
        # The block rule changed the line (tabs, `\|` in tables): take the same-numbered opener.
        if opener not in self.openers:
            self.openers[opener] = (_starts(self.segment, opener, overlapping=False), _starts(self.source, opener))
        in_segment, in_source = self.openers[opener]
        before = bisect.bisect_right(in_segment, within - len(opener))  # those that end by `within`
        return in_source[min(before, len(in_source) - 1)] if in_source else 0


def _starts(text: str, needle: str, overlapping: bool = True) -> list[int]:
    """Where `needle` starts in `text`: every place (as repeated `find` goes), or as `count` counts them."""
    found, index = [], text.find(needle)
    while index >= 0:
        found.append(index)
        index = text.find(needle, index + (1 if overlapping else len(needle)))
    return found
