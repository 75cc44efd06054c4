"""Heading anchor ids, set on `heading_open` tokens so the page and the table of contents agree.

An explicit `{#id}` at the end of a heading (as in Pandoc and Hugo) is
removed from its text and wins; other headings get GitHub's slug of their
plain text, de-duplicated with `-1`, `-2` suffixes. Each `heading_open`
token's `meta` gets `id`, `text` (plain text), `explicit` and, when an
explicit id was already taken, `duplicate_of`.

`heading_permalinks_plugin` ends each heading with a link to its own
anchor (`<a class="headerlink">`, shown on hover and focus by the theme).
It is rendering only: the headings pass, the table of contents and the
title read the tokens, where it is not. Its label is in the page's
language, which a rendering with holes (`slots.py`) does not know yet: there
it is a hole too.
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
# A permalink's label for screen readers, per language (a language missing here reads English).
PERMALINK_LABELS = {"en": "Link to this section", "es": "Enlace a esta sección"}


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
    suffixes: dict[str, int] = {}  # the next suffix to try for each wanted id: many alike stay linear
    for token, inline, explicit in headings:
        text = plain_text(inline.children or [])
        if explicit and explicit in used:
            token.meta["duplicate_of"] = explicit
        if explicit and explicit not in used:
            anchor = explicit
        else:
            anchor = unique(explicit or heading_slug(text) or EMPTY_SLUG, (used, taken), suffixes)
        used.add(anchor)
        token.attrSet("id", anchor)
        token.meta.update({"id": anchor, "text": text, "explicit": bool(explicit)})


def heading_permalinks_plugin(md: MarkdownIt) -> None:
    md.add_render_rule("heading_close", render_heading_close)


def render_heading_close(self, tokens, idx, options, env) -> str:
    closing = self.renderToken(tokens, idx, options, env)
    anchor = tokens[idx - 2].attrGet("id") if idx >= 2 else None  # heading_open, inline, heading_close
    if not anchor:
        return closing
    from markdown_it.common.utils import escapeHtml

    env = env or {}
    slots = env.get("slots")
    label = slots.add_shared({"permalink_label": True}) if slots is not None else permalink_label(env.get("lang"))
    # Left out of the search index, so a heading's text there has no "#".
    link = f'<a class="headerlink" href="#{escapeHtml(anchor)}" aria-label="{label}" data-pagefind-ignore>#</a>'
    return link + closing


def permalink_label(lang: str | None) -> str:
    """The permalink label (HTML-escaped) for a page in `lang`."""
    return PERMALINK_LABELS.get((lang or "en").split("-")[0].lower(), PERMALINK_LABELS["en"])


def unique(wanted: str, taken: tuple[set[str], ...], suffixes: dict[str, int]) -> str:
    """`wanted`, or the first `wanted-N` in none of the `taken` sets (from the N after the last one given)."""
    if not any(wanted in ids for ids in taken):
        return wanted
    number = suffixes.get(wanted, 1)
    while any(f"{wanted}-{number}" in ids for ids in taken):
        number += 1
    suffixes[wanted] = number + 1
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
        if child.type in ("text", "code_inline", "wikilink", "wikilink_embed", "tag"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "image":
            parts.append(plain_text(child.children or []))
    return "".join(parts).strip()
