"""Where a link's `#fragment` points in a page, and which lines of the page that part spans.

A fragment names a heading (`#Install`: its id, or its text), a heading path
(`#Mobile#Install`: the heading `Install` in the section of the heading
`Mobile`, each part within the section of the one before, as Obsidian reads
`[[note#A#B]]`), or a block (`#^id`, `block_ids.py`). A page's anchors are
rows `[level, text, id]`, one per heading in order (from the headings pass,
or from the tokens of a parse), then `[0, "", "^id"]` per block id.
"""

from __future__ import annotations

from pipeline.markdown.block_ids import anchor as block_anchor
from pipeline.text import heading_slug

BLOCK_LEVEL = 0


def page_anchors(headings: list[dict], blocks: list[str]) -> list[list]:
    """The anchor rows of a page from its headings result (`headings`, `blocks`)."""
    rows = [[heading["level"], heading["text"], heading["id"]] for heading in headings]
    return rows + [[BLOCK_LEVEL, "", block_anchor(block)] for block in blocks]


def token_anchors(tokens: list) -> list[list]:
    """The anchor rows of a parse (the heading ids and block ids its plugins set)."""
    headings = [[int(t.tag[1]), t.meta["text"], t.meta["id"]]
                for t in tokens if t.type == "heading_open" and "id" in t.meta]  # fmt: skip
    blocks = [[BLOCK_LEVEL, "", block_anchor(t.meta["block_id"])] for t in tokens if "block_id" in t.meta]
    return headings + blocks


def fragment_anchor(fragment: str, anchors: list[list]) -> str | None:
    """The HTML id `fragment` points at among a page's `anchors`, or None when it names none of them."""
    fragment = fragment.strip()
    if fragment.startswith("^"):
        wanted = block_anchor(fragment[1:].strip())
        return wanted if any(row[0] == BLOCK_LEVEL and row[2] == wanted for row in anchors) else None
    headings = [row for row in anchors if row[0] != BLOCK_LEVEL]
    parts = [part.strip() for part in fragment.split("#") if part.strip()]
    if len(parts) == 1:
        for wanted in (parts[0], heading_slug(parts[0])):  # an id as written, or as a heading's text makes it
            if any(row[2] == wanted for row in headings):
                return wanted
    found, start, level = None, 0, 0
    for part in parts:
        found = _heading_within(headings, part, start, level)
        if found is None:
            return None
        start, level = found + 1, headings[found][0]
    return headings[found][2] if found is not None else None


def _heading_within(headings: list[list], part: str, start: int, level: int) -> int | None:
    """The index of the first heading from `start` that `part` names, before a heading of `level` or
    above ends the section it must be in (`level` 0: the whole page)."""
    slug = heading_slug(part)
    for index in range(start, len(headings)):
        heading_level, text, ident = headings[index]
        if level and heading_level <= level:
            return None
        if text == part or ident == part or heading_slug(text) == slug:
            return index
    return None


def fragment_lines(tokens: list, fragment: str, line_count: int) -> tuple[int, int] | None:
    """The 0-based [start, end) lines of the part of a parsed body `fragment` names: a heading's section
    (to the next heading of its level or above), or a block; None when it names none."""
    wanted = fragment_anchor(fragment, token_anchors(tokens))
    if wanted is None:
        return None
    for index, token in enumerate(tokens):
        if token.map is None:
            continue
        if token.meta.get("block_id") is not None and block_anchor(token.meta["block_id"]) == wanted:
            return token.map[0], token.map[1]
        if token.type == "heading_open" and token.meta.get("id") == wanted:
            level = int(token.tag[1])
            ends = (t.map[0] for t in tokens[index + 1 :] if t.type == "heading_open" and t.map and int(t.tag[1]) <= level)
            return token.map[0], next(ends, line_count)
    return None
