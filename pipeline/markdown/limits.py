"""What keeps a parse of hostile text linear and lossless.

- A run of `[` with no `]` after it opens no link, wikilink or footnote: the
  `literal_brackets` rule takes it as text in one step, where every inline
  rule would have tried (and failed on) each bracket in turn.
- markdown-it stops at `maxNesting` levels of blocks (quotes in lists in
  quotes...) and drops what lies deeper. Here that text is kept as a plain
  paragraph (`nesting_too_deep`), and its 0-based line is noted in
  `env[TOO_DEEP]`, for the links pass to report as `nesting-too-deep`.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_inline import StateInline

LITERAL_BRACKETS = "literal_brackets"  # an inline rule whose text is prose (`skips.PROSE_RULES`)
TOO_DEEP = "nesting_too_deep"  # the token type, and the env key of the lines where one starts
BRACKETS = re.compile(r"\[+")


def limits_plugin(md: MarkdownIt) -> None:
    """Add `literal_brackets` before the rule for links, and keep what lies too deep as text."""
    md.inline.ruler.before("link", LITERAL_BRACKETS, literal_brackets)
    tokenize, limit = md.block.tokenize, md.options["maxNesting"]

    def guarded(state: StateBlock, start_line: int, end_line: int) -> None:
        if state.level >= limit:
            keep_too_deep(state, start_line, end_line)
        else:
            tokenize(state, start_line, end_line)

    md.block.tokenize = guarded  # nested blocks are parsed through `md.block.tokenize` as well
    md.add_render_rule(TOO_DEEP, render_too_deep)


def literal_brackets(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != "[" or _last_close(state) > pos:
        return False
    end = BRACKETS.match(src, pos, state.posMax).end()
    if not silent:
        state.append_pending(src[pos:end])
    state.pos = end
    return True


def _last_close(state: StateInline) -> int:
    """Where the last `]` of the inline content is (-1: none), found once per content."""
    found = getattr(state, "_last_close", None)
    if found is None or found[0] is not state.src:
        found = (state.src, state.src.rfind("]"))
        state._last_close = found
    return found[1]


def keep_too_deep(state: StateBlock, start_line: int, end_line: int) -> None:
    """The lines markdown-it would drop, as one paragraph of plain text, up to the end of their block."""
    line = last = state.skipEmptyLines(start_line)
    while last < end_line and (state.isEmpty(last) or state.sCount[last] >= state.blkIndent):
        last += 1
    while last > line and state.isEmpty(last - 1):
        last -= 1
    state.line = last
    if last > line:
        token = state.push(TOO_DEEP, "p", 0)
        token.map, token.block = [line, last], True
        token.content = state.getLines(line, last, state.blkIndent, False).strip()
        state.env.setdefault(TOO_DEEP, []).append(line)


def render_too_deep(self, tokens, idx, options, env) -> str:
    from markdown_it.common.utils import escapeHtml

    return f"<p>{escapeHtml(tokens[idx].content)}</p>\n"
