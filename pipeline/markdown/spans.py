"""Spans of Markdown text that are not running prose: `[[...]]` and code spans, found in linear time.

Passes that look into text for what markdown-it leaves as text (citation
markers, mentions) blank these spans out first. A regular expression such as
`\\[\\[.*?\\]\\]` rescans the rest of the line from every `[[` with no `]]` after
it, so a line of brackets cost time quadratic in its length; here each
character is looked at a bounded number of times, whatever the text.
"""

from __future__ import annotations

import re

Span = tuple[int, int]
BACKTICKS = re.compile("`+")


def not_prose(text: str, code: bool = True) -> list[Span]:
    """[start, end) of each `[[...]]` of `text` and, with `code`, of each code span, left to right.

    A `[[` runs to the first `]]` after it on its line (as `\\[\\[.*?\\]\\]` finds it); a code span is a
    run of backticks and the next run of as many on its line, as CommonMark pairs them.
    """
    spans: list[Span] = []
    start = 0
    for line in text.split("\n"):
        spans += [(start + left, start + right) for left, right in _line_spans(line, code)]
        start += len(line) + 1
    return spans


def masked(text: str, code: bool = True) -> str:
    """`text` with its `not_prose` spans blanked, every other character in its place."""
    if "[[" not in text and (not code or "`" not in text):
        return text
    pieces, last = [], 0
    for left, right in not_prose(text, code):
        pieces += [text[last:left], " " * (right - left)]
        last = right
    pieces.append(text[last:])
    return "".join(pieces)


def _line_spans(line: str, code: bool) -> list[Span]:
    runs = [match.span() for match in BACKTICKS.finditer(line)] if code and "`" in line else []
    partners = _partners(runs)
    spans: list[Span] = []
    pos = run = 0
    brackets = "[[" in line
    while True:
        while run < len(runs) and runs[run][0] < pos:
            run += 1
        tick = runs[run][0] if run < len(runs) else len(line)
        opening = line.find("[[", pos, tick) if brackets else -1
        if opening >= 0:
            close = line.find("]]", opening + 2)
            if close >= 0:
                spans.append((opening, close + 2))
                pos = close + 2
                continue
            brackets = False  # no `]]` after this one: no later `[[` closes either
        if run >= len(runs):
            return spans
        partner = partners[run]
        if partner is not None:
            spans.append((runs[run][0], runs[partner][1]))
        pos = runs[run if partner is None else partner][1]


def _partners(runs: list[Span]) -> list[int | None]:
    """For each run of backticks, the index of the next run as long (None: it opens no code span)."""
    partners: list[int | None] = [None] * len(runs)
    following: dict[int, int] = {}
    for index in range(len(runs) - 1, -1, -1):
        length = runs[index][1] - runs[index][0]
        partners[index] = following.get(length)
        following[length] = index
    return partners
