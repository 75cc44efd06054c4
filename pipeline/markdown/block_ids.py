"""Block ids: `^id` at the end of a block names it, as in Obsidian (`[[note#^id]]` links to it).

A paragraph or list item whose text ends with `^id` (Latin letters, digits
and `-`), after a space or at the start of its last line, gets the HTML id
`^id` (`anchor`), and the `^id` is not shown. A paragraph that is only `^id`
names the block just before it (Obsidian writes it on a line of its own after
a table, a quote or a list) and is dropped. The token that opens the named
block gets `meta["block_id"]` (the id, without its caret): the headings pass
collects them, so links to a block are checked as links to a heading are.
The first block to claim an id keeps it; a later one's `^id` is still hidden.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pipeline.markdown.skips import SKIPS

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore

BLOCK_ID = re.compile(r"(?:^|(?<=\s))\^([A-Za-z0-9-]+)[ \t]*$")
BREAKS = ("softbreak", "hardbreak")


def block_ids_plugin(md: MarkdownIt) -> None:
    md.core.ruler.push("block_ids", block_ids)  # after text_join: a paragraph's last text token is whole


def anchor(block_id: str) -> str:
    """The HTML id (and URL fragment) of a block: `^id`, as the link names it, so no heading id can take it."""
    return f"^{block_id}"


def block_ids(state: StateCore) -> None:
    tokens, taken, index = state.tokens, set(), 0
    while index < len(tokens):
        token = tokens[index]
        in_paragraph = token.type == "inline" and index and tokens[index - 1].type == "paragraph_open"
        found = _trailing_id(state, token) if in_paragraph else None
        if found is None:
            index += 1
            continue
        if found[1]:  # the paragraph is only the id: it names the block before it
            named = _block_before(tokens, index - 1)
            if named is None:
                _put_back(token, found[0])
                index += 1
                continue
            del tokens[index - 1 : index + 2]
            index -= 1
        else:
            named = tokens[index - 2] if _in_list_item(tokens, index) else tokens[index - 1]
            index += 1
        if found[0] not in taken:
            taken.add(found[0])
            named.attrSet("id", anchor(found[0]))
            named.meta["block_id"] = found[0]


def _trailing_id(state: StateCore, inline) -> tuple[str, bool] | None:
    """(id, whether it is all the block holds) when the inline ends with `^id`, taken out of its children."""
    children = inline.children
    if not children or children[-1].type != "text" or "^" not in inline.content:
        return None
    source = BLOCK_ID.search(inline.content)  # as written: `\^id` is text, not an id
    match = BLOCK_ID.search(children[-1].content)
    if source is None or match is None or match[1] != source[1]:
        return None
    if match.start() == 0 and len(children) > 1 and children[-2].type not in BREAKS:
        return None  # `[link](x)^id`: no space before the caret
    last = children[-1]
    last.content = last.content[: match.start()].rstrip()
    kept = children[:-1] if not last.content else children
    while kept and kept[-1].type in BREAKS:
        kept = kept[:-1]
    inline.children = kept
    skips = state.env.get(SKIPS)
    if skips is not None:  # not prose: no mention is looked for in it
        skips.setdefault(id(inline.content), []).append((source.start(), len(inline.content)))
    return match[1], not kept


def _put_back(inline, block_id: str) -> None:
    """A lone `^id` with no block before it stays text, as it was written."""
    from markdown_it.token import Token

    text = Token("text", "", 0)
    text.content = f"^{block_id}"
    inline.children = [text]


def _in_list_item(tokens: list, inline_index: int) -> bool:
    return inline_index >= 2 and tokens[inline_index - 2].type == "list_item_open"


def _block_before(tokens: list, opener_index: int):
    """The token that opens the block ending just before `tokens[opener_index]` at its level, or None."""
    if opener_index == 0:
        return None
    before = tokens[opener_index - 1]
    if before.nesting == 0:
        return before if before.block and before.type != "inline" else None
    if before.nesting == 1:
        return None  # the first block inside a list item or a quote
    for index in range(opener_index - 2, -1, -1):
        if tokens[index].nesting == 1 and tokens[index].level == before.level:
            return tokens[index] if tokens[index].type != "heading_open" else None  # a heading has its own id
    return None
