"""What keeps a parse of hostile text linear and lossless.

- A run of `[` with no `]` after it opens no link, wikilink or footnote: the
  `literal_brackets` rule takes it as text in one step, where every inline
  rule would have tried (and failed on) each bracket in turn.
- markdown-it stops at `maxNesting` levels of blocks (quotes in lists in
  quotes...) and drops what lies deeper. Here that text is kept as a plain
  paragraph (`nesting_too_deep`), and its 0-based line is noted in
  `env[TOO_DEEP]`, for the links pass to report as `nesting-too-deep`.
- A parse makes at most `MAX_LINKS` links and embeds (wikilinks, embeds,
  Markdown links, images, autolinks, bare URLs): each one costs a record, a
  resolution or a rendering in the passes after the parse, so a line of
  millions of them was far too slow. In a text that could hold more (more `[`,
  `<` and `://`), the `link_count` rule (and the bare URLs' own) make the links in
  place of the link rules, counting them; past the limit each one is kept as its source text, a run of them
  at once, and the 0-based line of the first is noted in `env[TOO_MANY]`,
  for the links pass to report as `too-many-links`. Any other text leaves
  the rule idle, so the parse of a real article counts nothing.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from pipeline.markdown.autolinks import RULE as URL_RULE  # bare URLs, at the `:` of their `://`

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline

LITERAL_BRACKETS = "literal_brackets"  # an inline rule whose text is prose (`skips.PROSE_RULES`)
TOO_DEEP = "nesting_too_deep"  # the token type, and the env key of the lines where one starts
BRACKETS = re.compile(r"\[+")
MAX_LINKS = 10_000  # links and embeds one parse makes: far past any real article
# The inline rules that make them (`wikilink`: embeds too), by the character they start at, in their order.
LINK_STARTS = {"[": ("wikilink", "link"), "!": ("wikilink", "image"), "<": ("autolink",)}
LINK_COUNT = "link_count"  # the rules, and the env key of the parse's `LinkCount` (None: the parse counts none)
TOO_MANY = "too_many_links"  # env key: the 0-based line of the first link kept as text
# Text that no inline rule but those of text takes (no emphasis, highlight, comment, code, escape, entity, HTML,
# bracket): what a run of links kept as text may hold between them, and what a link that `PLAIN_LINKS` takes holds.
PLAIN_CHAR = r"[^\[\]<>`\\*_~&!^%=]"
PLAIN_TEXT = rf"{PLAIN_CHAR}*(?:(?:%(?!%)|=(?!=)){PLAIN_CHAR}*)*"  # a lone `%` or `=` is text, `%%` and `==` are not
PLAIN = r"[^\[\]()\n{}<>`\\*_~&!^]"
BETWEEN_LINKS = re.compile(PLAIN_TEXT)
AUTOLINK = r"<[A-Za-z][A-Za-z0-9+.-]{1,31}:[^\s<>\[\]`\\*_~&]*>"
# A run of such links taken at once: the text one link rule call each would take, for millions of links.
PLAIN_LINKS = re.compile(rf"(?:{PLAIN_TEXT}(?:!?\[\[{PLAIN}+\]\]|!?\[{PLAIN}*\]\({PLAIN}*\)|{AUTOLINK}))*")


@dataclass
class LinkCount:
    """The links a parse made, and where (inline content, offset) the first one kept as text is."""

    made: int = 0
    first_over: tuple[str, int] | None = None


def limits_plugin(md: MarkdownIt) -> None:
    """Add `literal_brackets` before the rule for links, count the links made, and keep what lies too deep as text."""
    md.inline.ruler.before("link", LITERAL_BRACKETS, literal_brackets)
    rules = {rule.name: rule.fn for rule in md.inline.ruler.__rules__}
    starts = {char: [rules[name] for name in names] for char, names in LINK_STARTS.items()}
    md.inline.ruler.before("wikilink", LINK_COUNT, _counting(starts))
    if any(rule.name == URL_RULE and rule.enabled for rule in md.inline.ruler.__rules__):
        md.inline.ruler.at(URL_RULE, _counted_urls(rules[URL_RULE]))
    md.core.ruler.before("inline", LINK_COUNT, _new_count)
    md.core.ruler.after("inline", TOO_MANY, _note_too_many)
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


def _counting(starts: dict[str, list[Callable]]) -> Callable:
    """A rule that makes what the link rules make, counted; past `MAX_LINKS` what they would take stays text."""

    def count_links(state: StateInline, silent: bool) -> bool:
        count = state.env.get(LINK_COUNT)
        if count is None or silent:  # the link rules look ahead (for the end of a link's label) themselves
            return False
        for rule in starts.get(state.src[state.pos], ()):
            if count.made < MAX_LINKS:
                if rule(state, False):
                    count.made += 1
                    return True
                continue
            start = state.pos
            if rule(state, True):
                _past_links(state, starts)  # a run at once, not a dispatch of every inline rule per link
                state.append_pending(state.src[start : state.pos])
                count.first_over = count.first_over or (state.src, start)
                return True
        return False

    return count_links


def _counted_urls(rule: Callable) -> Callable:
    """The rule for bare URLs, counted as `_counting` counts the others (a text that holds no `://` never asks it)."""
    counting = _counting({":": [rule]})

    def bare_url(state: StateInline, silent: bool) -> bool:
        if not state.src.startswith("://", state.pos):
            return False
        if silent or state.env.get(LINK_COUNT) is None:
            return rule(state, silent)
        return counting(state, silent)

    return bare_url


def _past_links(state: StateInline, starts: dict[str, list[Callable]]) -> None:
    """Move `state.pos` past the links that follow the one just passed, with only plain text between them."""
    src, end = state.src, state.pos
    while True:
        end = PLAIN_LINKS.match(src, end, state.posMax).end()
        pos = BETWEEN_LINKS.match(src, end, state.posMax).end()
        state.pos = pos
        if pos >= state.posMax or not any(rule(state, True) for rule in starts.get(src[pos], ())):
            state.pos = end
            return
        end = state.pos


def _new_count(state: StateCore) -> None:
    # Every link has a `[`, a `<` or a `://` of its own. An env may be handed from one parse to the next.
    could_pass = state.src.count("[") + state.src.count("<") + state.src.count("://") > MAX_LINKS
    state.env[LINK_COUNT] = LinkCount() if could_pass else None
    state.env.pop(TOO_MANY, None)


def _note_too_many(state: StateCore) -> None:
    """The line of the first link kept as text, from the inline token whose content holds it."""
    count = state.env[LINK_COUNT]
    if count is None or count.first_over is None:
        return
    src, offset = count.first_over
    inlines = [token for token in state.tokens if token.type == "inline" and token.map]
    # A nested inline parse (an inline footnote's) runs on a piece of its token's content.
    holder = next((token for token in inlines if token.content is src), None)
    holder = holder or next((token for token in inlines if src in token.content), None)
    if holder is None:
        state.env[TOO_MANY] = 0
        return
    state.env[TOO_MANY] = holder.map[0] + holder.content.count("\n", 0, holder.content.find(src) + offset)


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
