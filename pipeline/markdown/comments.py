"""Comments: Obsidian's `%%...%%` and HTML's `<!-- ... -->`, dropped from the parse.

A comment makes no token at all, so every pass that walks tokens (headings,
links, citations, prose, the title) skips what it holds: a `[[link]]` in a
comment is no link and is not checked, a `# heading` in one is no heading.
HTML comments are dropped whatever `raw_html` says.

- Block comment: a line starting with `%%` or `<!--` (up to three spaces
  in) runs to the line holding the closer (`%%`, `-->`), blank lines
  included, and can interrupt a paragraph. Text after the closer on that
  last line stays, as the start of the next block. A line holding only
  comments is dropped whole.
- Inline comment: anywhere else in a paragraph (or heading, table cell,
  link label), from the opener to the closer, across lines of the paragraph.
- Unclosed: a block comment runs to the end of the document (of its quote
  or list item), as CommonMark's HTML comment block and Obsidian's `%%` do;
  an inline one to the end of its paragraph. The footnote definitions
  appended to a body (`env[BODY_END]`) are not the document's: never hidden.
- In code spans, code blocks and fences `%%` and `<!--` are text.
- With `raw_html`, the comments inside a raw HTML block are removed from it.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline

COMMENTS = (("%%", "%%"), ("<!--", "-->"))  # opener, closer
OPENERS = tuple(opener for opener, _ in COMMENTS)
CLOSERS = {opener[0]: closer for opener, closer in COMMENTS}  # by the opener's first character
CLOSER_FROM = 2  # where the closer is looked for after an opener: `<!-->` and `<!--->` are comments, as in CommonMark
HTML_COMMENT = re.compile(r"<!--(?:-?>|.*?(?:-->|\Z))", re.DOTALL)
# env key: the first line after the body when lines are appended to it (its references as footnote definitions,
# `footnotes.py`): a comment left open in the body ends there, and the footnotes show.
BODY_END = "comment_body_end"
# The block rules whose lines a block comment may end, as CommonMark's HTML blocks do.
TERMINATES = ["paragraph", "reference", "blockquote"]


def comments_plugin(md: MarkdownIt) -> None:
    """Add the block and the inline rule of comments (of both kinds), and strip comments from raw HTML blocks."""
    md.block.ruler.before("html_block", "comment_block", block_comment, {"alt": TERMINATES})
    md.inline.ruler.before("link", "comment", inline_comment)
    md.core.ruler.after("block", "html_block_comments", strip_html_comments)


def block_comment(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
    start = state.bMarks[start_line] + state.tShift[start_line]
    if not state.src.startswith(OPENERS, start) or state.sCount[start_line] - state.blkIndent >= 4:
        return False
    line, rest = _comments_end(state, start_line, end_line)
    if line == start_line and rest is not None:
        return False  # text follows on its own line: an inline comment in a paragraph
    if silent:
        return True
    if rest is not None:  # the text after the comment on its last line begins the next block
        state.bMarks[line], state.tShift[line], state.sCount[line] = rest, 0, state.blkIndent
        state.line = line
    else:
        state.line = line + 1
    return True


def _comments_end(state: StateBlock, line: int, end_line: int) -> tuple[int, int | None]:
    """The last line of the comments that start at `line`, and where text follows them on it (None: nothing does).

    Comments one after another on a line count as one; an unclosed one ends with the last line of its container."""
    src, pos = state.src, state.bMarks[line] + state.tShift[line]
    end_line = min(end_line, state.env.get(BODY_END, end_line))
    while True:
        closer = CLOSERS[src[pos]]
        found = src.find(closer, pos + CLOSER_FROM, state.eMarks[line])
        while found < 0:
            following = line + 1
            if following >= end_line or _outdented(state, following):
                return line, None
            line = following
            found = src.find(closer, state.bMarks[line], state.eMarks[line])
        pos = found + len(closer)
        while pos < state.eMarks[line] and src[pos] in " \t":
            pos += 1
        if pos >= state.eMarks[line]:
            return line, None
        if not src.startswith(OPENERS, pos):
            return line, pos


def _outdented(state: StateBlock, line: int) -> bool:
    """A non-blank line less indented than the container: the end of a list item, so of its comment."""
    return state.sCount[line] < state.blkIndent and not state.isEmpty(line)


def inline_comment(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    closer = CLOSERS.get(src[pos])  # one rule, one look at the character, for both kinds: it runs at every `<`
    if closer is None or not src.startswith(OPENERS, pos):
        return False
    end = src.find(closer, pos + CLOSER_FROM, state.posMax)
    state.pos = state.posMax if end < 0 else end + len(closer)
    return True  # no token: the text before and after it joins as if the comment were never there


def strip_html_comments(state: StateCore) -> None:
    """With `raw_html`, the HTML blocks as written less their comments."""
    if not state.md.options.get("html") or "<!--" not in state.src:  # without `raw_html` there is no HTML block
        return
    for token in state.tokens:
        if token.type == "html_block" and "<!--" in token.content:
            token.content = HTML_COMMENT.sub("", token.content)
