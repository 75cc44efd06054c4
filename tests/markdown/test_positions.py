"""Wikilink positions: every link of a long line, and of a line the block rules changed, placed in one walk."""

from __future__ import annotations

import re

from pipeline.markdown import make_parser
from pipeline.markdown.limits import MAX_LINKS
from pipeline.markdown.positions import LINK_TYPES


def places(text: str) -> list[tuple[int, int]]:
    tokens = make_parser().parse(text, {})
    return [(c.meta["line"], c.meta["col"]) for t in tokens for c in t.children or () if c.type in LINK_TYPES]


def test_every_link_of_a_long_line_is_placed():
    count = MAX_LINKS - 1  # and `[[b]]`: as many links as an article may make
    assert places("# T\n\nintro\n" + "[[a]] " * count + "\nnext [[b]]\n") == (
        [(4, 1 + 6 * i) for i in range(count)] + [(5, 6)]
    )


def test_links_of_a_table_row_changed_by_the_block_rule_keep_their_order():
    # `\|` in a cell is not in the inline content: each link takes the opener of the same rank in the source.
    row = "| " + " ".join(f"[[t{i}\\|x]]" for i in range(2_000)) + " |"
    found = places("| h |\n|---|\n" + row + "\n")
    assert found == [(3, match.start() + 1) for match in re.finditer(r"\[\[", row)] and len(found) == 2_000
