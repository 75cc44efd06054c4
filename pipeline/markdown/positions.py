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
    lines = None
    for token in state.tokens:
        if token.type != "inline" or not token.children or token.map is None:
            continue
        links = [child for child in token.children if child.type in LINK_TYPES and "offset" in child.meta]
        if links:
            lines = lines if lines is not None else state.src.split("\n")
            _place(links, token, lines)


def _place(links: list, inline, lines: list[str]) -> None:
    """Give each link of an inline token its source line and column.

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
            places[newlines] = _Line(content, line_start, lines[min(inline.map[0] + newlines, len(lines) - 1)])
        place = places[newlines]
        link.meta["line"] = min(inline.map[0] + newlines, len(lines) - 1) + 1
        link.meta["col"] = place.column(link.markup, offset - line_start) + 1


class _Line:
    """A line of an inline token's content and the source line it came from."""

    def __init__(self, content: str, start: int, source: str) -> None:
        end = content.find("\n", start)
        self.segment = content[start : end if end >= 0 else len(content)]
        self.source = source
        self.start = source.find(self.segment)
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
