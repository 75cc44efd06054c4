"""Where a link's `#fragment` points in a page, and which lines of the page that part spans.

A fragment names a heading (`#Install`: its id, or its text), a heading path
(`#Mobile#Install`: the heading `Install` in the section of the heading
`Mobile`, each part within the section of the one before, as Obsidian reads
`[[note#A#B]]`), or a block (`#^id`, `block_ids.py`). A page's anchors are
rows `[level, text, id]`, one per heading in order (from the headings pass),
then `[0, "", "^id"]` per block id. Which
lines a section or block spans comes from the headings pass's result too
(its headings' lines, its blocks' spans): an embedded part is found without
parsing the page again.
"""

from __future__ import annotations

from pipeline.markdown.block_ids import anchor as block_anchor
from pipeline.text import heading_slug

BLOCK_LEVEL = 0


def page_anchors(headings: list[dict], blocks: list[str]) -> list[list]:
    """The anchor rows of a page from its headings result (`headings`, `blocks`)."""
    rows = [[heading["level"], heading["text"], heading["id"]] for heading in headings]
    return rows + [[BLOCK_LEVEL, "", block_anchor(block)] for block in blocks]


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


def fragment_lines(outline: dict, body_line: int, fragment: str, line_count: int) -> tuple[int, int] | None:
    """The 0-based [start, end) body lines of the part `fragment` names in a page whose headings result is `outline`
    (its body starting at file line `body_line`, `line_count` lines long): a heading's section (to the next heading
    of its level or above), or a block; None when it names none."""
    headings, blocks = outline.get("headings", []), outline.get("blocks", [])
    wanted = fragment_anchor(fragment, page_anchors(headings, blocks))
    if wanted is None:
        return None
    for block, span in zip(blocks, outline.get("block_lines", [])):
        if block_anchor(block) == wanted:
            return (span[0], span[1]) if span else None
    for index, heading in enumerate(headings):
        if heading["id"] == wanted:
            ends = (later["line"] - body_line for later in headings[index + 1 :] if later["level"] <= heading["level"])
            return heading["line"] - body_line, next(ends, line_count)
    return None
