"""Callouts: Obsidian's `> [!type] Title` and GitHub's `> [!NOTE]` alerts, as asides.

A block quote whose first line is `[!type]` is a callout of that type (any
case; Obsidian's types and aliases and GitHub's five alerts, an unknown type
looks like a note: `callout_icons.py`). The rest of that line is its title
(Markdown: links work), or, without one, the type's name capitalised.
`[!type]-` makes it foldable and closed, `[!type]+` foldable and open:
`<details>` and `<summary>`. Callouts nest as quotes do.

    <aside class="callout callout-warning" data-callout="caution" role="note">
    <div class="callout-title"><svg ... aria-hidden="true">...</svg><span class="callout-title-text">Title</span></div>
    <div class="callout-content">...</div>
    </aside>

A core rule turns the quote's tokens into the callout's once blocks are
parsed: the quote's first paragraph gives the title its own inline token
(mapped to its line) and keeps the lines after it, so every link and heading
inside keeps its place in the source for the passes.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

# Imported by the first parser made (`extensions.py`), never by the passes: markdown-it is loaded by then.
from markdown_it.common.utils import escapeHtml
from markdown_it.token import Token

from pipeline.markdown.callout_icons import ICONS, kind_of

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore

MARKER = re.compile(r"\[!([^\]\s]+)\]([+-]?)[ \t]*(.*)")
FOLD = {"": None, "+": "open", "-": "closed"}


def callouts_plugin(md: MarkdownIt) -> None:
    md.core.ruler.after("block", "callouts", callouts)
    for name, render in RENDERERS.items():
        md.add_render_rule(name, render)


def callouts(state: StateCore) -> None:
    """Each quote that starts with a callout marker as callout tokens, in one walk (quotes nest)."""
    if ">" not in state.src:  # no quote at all: most pages, found without a walk through their tokens
        return
    tokens = state.tokens
    out: list[Token] = []
    opened: list[Token | None] = []  # for each quote open around this token: its callout's opening, if it is one
    index = 0
    while index < len(tokens):
        token = tokens[index]
        if token.type == "blockquote_open":
            match = _marker(tokens, index)
            opened.append(token if match is not None else None)
            if match is not None:
                out += _open(tokens[index : index + 4], match)
                index += 4
                continue
        elif token.type == "blockquote_close":
            opening = opened.pop()
            if opening is not None:
                _close(out, opening, token)
        out.append(token)
        index += 1
    state.tokens = out


def _marker(tokens: list, index: int) -> re.Match | None:
    """The marker on the quote's first line, when its first block is a paragraph that starts with one."""
    if index + 3 >= len(tokens) or tokens[index + 1].type != "paragraph_open" or tokens[index + 2].type != "inline":
        return None
    return MARKER.fullmatch(tokens[index + 2].content.split("\n", 1)[0])


def _open(quote: list, match: re.Match) -> list:
    """The callout's opening, title and content opening, from the quote's opening and first paragraph."""
    opening, paragraph, inline, paragraph_close = quote
    written, fold, title = match[1], FOLD[match[2]], match[3].strip()
    meta = {"kind": kind_of(written), "type": written.lower(), "fold": fold}
    opening.type, opening.tag, opening.meta = "callout_open", "aside", meta
    summary = "summary" if fold else "div"
    title_open = Token("callout_title_open", summary, 1, meta=meta)
    title_close = Token("callout_title_close", summary, -1)
    title_inline = Token("inline", "", 0)
    title_inline.map = [inline.map[0], inline.map[0] + 1] if inline.map else None
    if title:
        title_inline.content = title
    else:  # the type's name as text, never parsed as Markdown
        title_inline.children = [Token("text", "", 0, content=written[:1].upper() + written[1:].lower())]
    content_open = Token("callout_content_open", "div", 1)
    found = [opening, title_open, title_inline, title_close, content_open]
    rest = inline.content.split("\n", 1)[1:]
    if rest:  # the first paragraph's other lines stay a paragraph
        inline.content = rest[0]
        inline.map = paragraph.map = [paragraph.map[0] + 1, paragraph.map[1]] if paragraph.map else None
        found += [paragraph, inline, paragraph_close]
    for token in found:
        token.block = True
    return found


def _close(out: list, opening: Token, closing: Token) -> None:
    """End the callout's content (none: no content element) before `closing`, made the callout's end."""
    if out[-1].type == "callout_content_open":
        out.pop()
    else:
        out.append(Token("callout_content_close", "div", -1, block=True))
    closing.type, closing.tag, closing.meta = "callout_close", "aside", opening.meta


def render_open(self, tokens, idx, options, env) -> str:
    meta = tokens[idx].meta
    before = "\n" if idx and tokens[idx - 1].hidden else ""  # after a tight list item's text, as for any block
    details = "" if meta["fold"] is None else "<details open>\n" if meta["fold"] == "open" else "<details>\n"
    return (f'{before}<aside class="callout callout-{meta["kind"]}" data-callout="{escapeHtml(meta["type"])}" '
            f'role="note">\n{details}')  # fmt: skip


def render_close(self, tokens, idx, options, env) -> str:
    return ("" if tokens[idx].meta["fold"] is None else "</details>\n") + "</aside>\n"


def render_title_open(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    return f'<{token.tag} class="callout-title">{ICONS[token.meta["kind"]]}<span class="callout-title-text">'


def render_title_close(self, tokens, idx, options, env) -> str:
    return f"</span></{tokens[idx].tag}>\n"


def render_content_open(self, tokens, idx, options, env) -> str:
    return '<div class="callout-content">\n'


def render_content_close(self, tokens, idx, options, env) -> str:
    return "</div>\n"


RENDERERS = {
    "callout_open": render_open, "callout_close": render_close,
    "callout_title_open": render_title_open, "callout_title_close": render_title_close,
    "callout_content_open": render_content_open, "callout_content_close": render_content_close,
}  # fmt: skip
