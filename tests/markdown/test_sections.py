"""What a `#fragment` points at (markdown/sections.py): headings, heading paths, blocks, and their lines."""

from __future__ import annotations

import pytest

from pipeline.markdown import make_parser
from pipeline.markdown.sections import fragment_anchor, fragment_lines, page_anchors, token_anchors

BODY = "Intro. ^intro\n\n## Desktop\n### Install\nA.\n## Mobile\n### Install\nB.\n## Next {#after}\nC.\n"


@pytest.mark.parametrize("fragment,anchor", [
    ("Desktop", "desktop"), ("desktop", "desktop"), ("Install", "install"), ("install-1", "install-1"),
    ("Mobile#Install", "install-1"), ("Desktop#Install", "install"), (" Mobile # Install ", "install-1"),
    ("Next", "after"), ("after", "after"), ("^intro", "^intro"),
    ("Desktop#Mobile", None), ("Install#Mobile", None), ("^nope", None), ("Nope", None), ("#", None),
])  # fmt: skip
def test_fragment_anchor(fragment, anchor):
    assert fragment_anchor(fragment, token_anchors(make_parser().parse(BODY, {}))) == anchor


def test_the_headings_result_gives_the_same_anchors_as_the_parse():
    headings = [{"level": 2, "text": "Desktop", "id": "desktop"}, {"level": 3, "text": "Install", "id": "install"}]
    rows = [[2, "Desktop", "desktop"], [3, "Install", "install"], [0, "", "^intro"]]
    assert page_anchors(headings, ["intro"]) == rows


def test_fragment_lines_are_a_section_or_a_block():
    tokens, lines = make_parser().parse(BODY, {}), BODY.split("\n")
    assert fragment_lines(tokens, "Mobile", len(lines)) == (5, 8)  # up to `## Next`
    assert fragment_lines(tokens, "Next", len(lines)) == (8, len(lines))  # the last section runs to the end
    assert fragment_lines(tokens, "^intro", len(lines)) == (0, 1)
    assert fragment_lines(tokens, "Nope", len(lines)) is None
