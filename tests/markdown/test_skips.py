"""Ranges of no prose noted during the shared parse: the same as the prose module's own scan finds."""

from __future__ import annotations

import pytest

from pipeline.markdown import parse
from pipeline.markdown.skips import SKIPS, skipped
from pipeline.passes.prose import pieces_of, prose_pieces

BODIES = [
    "`Ring` in code, [a *ring*](x.md), ![an image](i.png), [[ring]], <https://ring.example> and &amp;.\n",
    "Ring <span>ring</span> and <!-- ring -->.\n\n<div>\nRing\n</div>\n",
    "- item `code` Ring\n  continued [link][ref]\n> quote \\*ring\\*\n\n[ref]: https://example.org\n",
    "A note[^1] and an inline one^[with `code`].\n\n[^1]: The note, with [a link](y.md).\n",
    "Same.\n\nSame.\n\n`x`\n\n`x`\n",  # equal paragraphs: each token's content is its own
    "Ring at https://ring.example/ring, (http://ring.example) and ftp://ring.example: https not linked.\n",  # bare URLs
]


@pytest.mark.parametrize("body", BODIES, ids=range(len(BODIES)))
def test_noted_ranges_give_the_pieces_scanning_gives(body):
    tokens, env = parse(body, "", True)
    assert env[SKIPS] and any(skipped(env, t) for t in tokens if t.type == "inline")  # found by each paragraph's text
    assert pieces_of(tokens, body, env) == prose_pieces(body)


def test_a_parse_without_the_key_notes_nothing():
    tokens, env = parse("`Ring`\n", "", True)
    assert skipped({}, tokens[1]) is None and skipped(env, tokens[1]) == [(0, 6)]


@pytest.mark.slow
def test_the_real_wiki_gives_the_same_pieces_either_way(pointsav):
    checked = 0
    for path in sorted(pointsav.rglob("*.md")):
        body = path.read_text(encoding="utf-8-sig")  # frontmatter and all: text to parse either way
        tokens, env = parse(body, "", True)
        assert pieces_of(tokens, body, env) == prose_pieces(body), path
        checked += 1
    assert checked > 500
