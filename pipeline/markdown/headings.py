"""Heading anchor ids, set on `heading_open` tokens so the page and the table of contents agree.

An explicit `{#id}` at the end of a heading (as in Pandoc and Hugo) is
removed from its text and wins; other headings get GitHub's slug of their
plain text, de-duplicated with `-1`, `-2` suffixes. Each `heading_open`
token's `meta` gets `id`, `text` (plain text), `explicit` and, when an
explicit id was already taken, `duplicate_of`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pipeline.text import heading_slug

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore

EXPLICIT_ID = re.compile(r"[ \t]*\{#([^\s{}#]+)\}[ \t]*$")
EMPTY_SLUG = "section"


def heading_ids_plugin(md: MarkdownIt) -> None:
    # After text_join, so the heading's last text token is whole.
    md.core.ruler.push("heading_ids", heading_ids)


def heading_ids(state: StateCore) -> None:
    tokens = state.tokens
    headings = []
    for index, token in enumerate(tokens[:-1]):
        if token.type == "heading_open" and tokens[index + 1].type == "inline":
            headings.append((token, tokens[index + 1], _take_explicit_id(tokens[index + 1])))
    taken = {explicit for _, _, explicit in headings if explicit}  # explicit ids win over slugs
    used: set[str] = set()
    for token, inline, explicit in headings:
        text = plain_text(inline.children or [])
        if explicit and explicit in used:
            token.meta["duplicate_of"] = explicit
        if explicit and explicit not in used:
            anchor = explicit
        else:
            anchor = unique(explicit or heading_slug(text) or EMPTY_SLUG, used | taken)
        used.add(anchor)
        token.attrSet("id", anchor)
        token.meta.update({"id": anchor, "text": text, "explicit": bool(explicit)})


def unique(wanted: str, taken: set[str]) -> str:
    if wanted not in taken:
        return wanted
    number = 1
    while f"{wanted}-{number}" in taken:
        number += 1
    return f"{wanted}-{number}"


def _take_explicit_id(inline) -> str | None:
    children = inline.children or []
    if not children or children[-1].type != "text":
        return None
    match = EXPLICIT_ID.search(children[-1].content)
    if not match:
        return None
    children[-1].content = children[-1].content[: match.start()]
    if not children[-1].content:
        children.pop()
    inline.content = EXPLICIT_ID.sub("", inline.content)
    return match.group(1)


def plain_text(children) -> str:
    """What a reader sees of inline tokens: text, code, link labels; markup dropped."""
    parts = []
    for child in children:
        if child.type in ("text", "code_inline", "wikilink", "wikilink_embed"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(plain_text(child.children or []))
    return "".join(parts).strip()
