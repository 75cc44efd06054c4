"""`==highlighted text==` as `<mark>`, as Obsidian and markdown-it-mark write it.

The rule is markdown-it's own for `~~strikethrough~~`, with `=` for `~`:
runs of `==` are delimiters that pair as emphasis does (they nest with
`*`, `_` and `~~`, and a code span wins over them); an odd `=` stays text.
mdit-py-plugins has no such plugin.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

# Imported by the first parser made (`extensions.py`), never by the passes: markdown-it is loaded by then.
from markdown_it.rules_inline.state_inline import Delimiter

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline

MARKER = "="


def highlight_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.before("emphasis", "highlight", tokenize)
    md.inline.ruler2.before("emphasis", "highlight", post_process)


def tokenize(state: StateInline, silent: bool) -> bool:
    """Each `==` of a run as a text token, and a delimiter for `post_process` to pair."""
    if silent or state.src[state.pos] != MARKER:
        return False
    scanned = state.scanDelims(state.pos, True)
    length = scanned.length
    if length < 2:
        return False
    if length % 2:
        state.push("text", "", 0).content = MARKER
        length -= 1
    for _ in range(length // 2):
        state.push("text", "", 0).content = MARKER * 2
        state.delimiters.append(Delimiter(marker=ord(MARKER), length=0, token=len(state.tokens) - 1, end=-1,
                                          open=scanned.can_open, close=scanned.can_close))
    state.pos += scanned.length
    state.highlight_delimiters = True  # for `post_process`: most contents have none, and it walks every token
    return True


def post_process(state: StateInline) -> None:
    """Pair the delimiters of the content and of each nested inline parse (a link's label, say)."""
    if not getattr(state, "highlight_delimiters", False):
        return
    _pair(state, state.delimiters)
    for meta in state.tokens_meta:
        if meta and "delimiters" in meta:
            _pair(state, meta["delimiters"])


def _pair(state: StateInline, delimiters: list) -> None:
    lone = []
    for opener in delimiters:
        if opener.marker != ord(MARKER) or opener.end == -1:
            continue
        closer = delimiters[opener.end]
        for index, kind, nesting in ((opener.token, "mark_open", 1), (closer.token, "mark_close", -1)):
            token = state.tokens[index]
            token.type, token.tag, token.nesting, token.markup, token.content = kind, "mark", nesting, "==", ""
        before = state.tokens[closer.token - 1]
        if before.type == "text" and before.content == MARKER:
            lone.append(closer.token - 1)
    # An odd run (`=====`) splits as `=` `==` `==`: its lone `=` goes after the closing tags that follow it.
    while lone:
        index = lone.pop()
        last = index + 1
        while last < len(state.tokens) and state.tokens[last].type == "mark_close":
            last += 1
        last -= 1
        if index != last:
            state.tokens[index], state.tokens[last] = state.tokens[last], state.tokens[index]
