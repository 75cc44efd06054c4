"""Where the running prose of a Markdown body is, as source ranges of its lines.

Passes that look for words in running text (unlinked mentions) must leave
code, links, wikilinks, headings, tables and raw HTML alone. markdown-it maps
block tokens to lines but says nothing about positions inside a line, so this
module re-runs the inline rules over each paragraph itself and notes which
characters each rule consumed: only characters taken as plain text (or as
emphasis marks) count as prose. Everything else, including rules added by
plugins, is skipped, and so is every `[[...]]` whatever the parser thinks.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Container

from pipeline.markdown import make_parser
from pipeline.markdown.skips import PROSE_RULES, scheme_before, skipped
from pipeline.markdown.spans import not_prose

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt

Span = tuple[int, int]


@dataclass(frozen=True)
class Piece:
    """Prose at `line` (0-based line of the body), columns [start, end) in characters."""

    line: int
    start: int
    end: int


def parser(markdown: str = "") -> MarkdownIt:
    """The wiki's parser (with the extensions `markdown` names), with raw HTML recognized so that it is skipped
    whatever `raw_html` says."""
    return make_parser(raw_html=True, markdown=markdown)


def prose_pieces(body: str, md: MarkdownIt | None = None, wanted: Container[int] | None = None) -> list[Piece]:
    """The prose ranges of `body`, in document order.

    With `wanted` (body line numbers), only paragraphs on one of those lines
    are looked into (the inline scan is most of the cost; a caller looking
    for words can skip paragraphs without them).
    """
    md = md or parser()
    env: dict = {}
    return pieces_of(block_tokens(md, body, env), body, env, md, wanted)


def pieces_of(
    tokens: list, body: str, env: dict, md: MarkdownIt | None = None, wanted: Container[int] | None = None
) -> list[Piece]:
    """`prose_pieces` of `body` from its parse (block `tokens` at least, and the parse's `env`).

    The parse must see raw HTML as `parser()` does: a parse without it may
    serve only a body without `<`, where both parse alike.
    """
    md = md or parser()
    rules = [(rule.name, rule.fn) for rule in md.inline.ruler.__rules__ if rule.enabled]
    lines = body.split("\n")
    pieces: list[Piece] = []
    for number, token in enumerate(tokens):
        # Only paragraphs: headings are skipped, and a '|' in a table cell would split the cell.
        if token.type != "inline" or not token.map or tokens[number - 1].type != "paragraph_open":
            continue
        if wanted is not None and not any(line in wanted for line in range(*token.map)):
            continue
        taken = skipped(env, token)  # noted by the parse, or found by scanning the paragraph again
        taken = _skipped_spans(md, rules, token.content, env) if taken is None else taken
        taken = _merge(taken + not_prose(token.content, code=False))
        pieces += _source_pieces(token.content, token.map[0], taken, lines)
    return pieces


def block_tokens(md: MarkdownIt, body: str, env: dict) -> list:
    """Block tokens, without the inline parse (which `_skipped_spans` redoes with positions)."""
    state = _states()[0](body, md, env)
    for rule in md.core.ruler.__rules__:
        if rule.name == "inline":
            break
        if rule.enabled:
            rule.fn(state)
    return state.tokens


def _skipped_spans(md: MarkdownIt, rules: list, content: str, env: dict) -> list[Span]:
    """The [start, end) ranges of `content` taken by non-prose inline rules.

    The same loop as `ParserInline.tokenize`, at the top level only: what a
    link or code span contains is inside its own range anyway.
    """
    state = _states()[1](content, md, env, [])
    spans = []
    while state.pos < state.posMax:
        start = state.pos
        for name, rule in rules:
            back = scheme_before(name, state)
            if rule(state, False):
                if name not in PROSE_RULES:
                    spans.append((start - back, state.pos))
                break
        else:
            state.pending += state.src[state.pos]
            state.pos += 1
    return spans


def _merge(spans: list[Span]) -> list[Span]:
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


def _source_pieces(content: str, first_line: int, skipped: list[Span], lines: list[str]) -> list[Piece]:
    """Map prose of an inline `content` back to its source lines.

    Each content line is its source line minus a prefix (indent, list and
    quote markers) and trailing blanks; a line that does not map cleanly
    (tabs expanded, NUL replaced) is left out rather than guessed.
    """
    pieces = []
    offset = 0
    for number, text in enumerate(content.split("\n"), start=first_line):
        start, offset = offset, offset + len(text) + 1
        core = text.strip()
        if not core or number >= len(lines):
            continue
        source = lines[number].rstrip()
        if not source.endswith(core):
            continue
        core_start = start + len(text) - len(text.lstrip())
        shift = len(source) - len(core) - core_start  # source column = content offset + shift
        for piece_start, piece_end in _subtract((core_start, core_start + len(core)), skipped):
            pieces.append(Piece(number, piece_start + shift, piece_end + shift))
    return pieces


def _subtract(span: Span, skipped: list[Span]) -> list[Span]:
    start, end = span
    result = []
    for skip_start, skip_end in skipped:
        if skip_end <= start or skip_start >= end:
            continue
        if skip_start > start:
            result.append((start, skip_start))
        start = max(start, skip_end)
    if start < end:
        result.append((start, end))
    return result


@functools.cache
def _states() -> tuple[type, type]:
    """markdown-it's core and inline parse states, found once (it loads with the first parser, not with the passes;
    an import statement for each of an article's paragraphs added up)."""
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline

    return StateCore, StateInline
