"""Spans that are not prose (`[[...]]`, code spans): as the regular expressions found them, in linear time."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from pipeline.markdown.spans import masked, not_prose

WIKILINK = re.compile(r"\[\[.*?\]\]")
WIKILINK_OR_CODE = re.compile(r"\[\[.*?\]\]|(`+).*?\1")  # what citations masked with before
TEXTS = st.text(alphabet="[]`a\n", max_size=30)


@given(TEXTS)
def test_wikilink_spans_are_those_the_regular_expression_finds(text):
    assert not_prose(text, code=False) == [match.span() for match in WIKILINK.finditer(text)]


@given(TEXTS.filter(lambda text: "``" not in text))
def test_with_single_backticks_code_spans_are_those_the_regular_expression_finds(text):
    assert not_prose(text) == [match.span() for match in WIKILINK_OR_CODE.finditer(text)]
    assert masked(text) == WIKILINK_OR_CODE.sub(lambda match: " " * len(match[0]), text)


def test_code_spans_pair_runs_of_the_same_length():
    assert not_prose("``a`b`` `c` ``d") == [(0, 7), (8, 11)]  # `` ... `` holds `a`b`; the last run is text
    assert not_prose("[[x `]] `y`") == [(0, 7), (8, 11)]  # a wikilink first holds half a code span


def test_hostile_lines_are_masked_whole():
    brackets = "[" * 200_000 + "a]]" + " [[b" * 50_000
    assert not_prose(brackets, code=False) == [(0, 200_003)]
    assert masked("`" * 100_000 + " x") == "`" * 100_000 + " x"  # one run: no code span
    assert masked("`a" * 100_000) == "   a" * 50_000
    assert masked("x`a`" * 50_000 + "\n[[y]]") == "x   " * 50_000 + "\n     "
