"""What a `#fragment` points at (markdown/sections.py): headings, heading paths, blocks, and their lines."""

from __future__ import annotations

import pytest

from pipeline.inline import articles_from
from pipeline.markdown.sections import fragment_anchor, fragment_lines, page_anchors
from pipeline.passes import headings as headings_pass

BODY = "Intro. ^intro\n\n## Desktop\n### Install\nA.\n## Mobile\n### Install\nB.\n## Next {#after}\nC.\n"


@pytest.mark.parametrize("fragment,anchor", [
    ("Desktop", "desktop"), ("desktop", "desktop"), ("Install", "install"), ("install-1", "install-1"),
    ("Mobile#Install", "install-1"), ("Desktop#Install", "install"), (" Mobile # Install ", "install-1"),
    ("Next", "after"), ("after", "after"), ("^intro", "^intro"),
    ("Desktop#Mobile", None), ("Install#Mobile", None), ("^nope", None), ("Nope", None), ("#", None),
])  # fmt: skip
def test_fragment_anchor(fragment, anchor):
    outline = headings_pass.run(articles_from({"a.md": BODY})[0], {})
    assert fragment_anchor(fragment, page_anchors(outline["headings"], outline["blocks"])) == anchor


def test_the_headings_result_gives_the_same_anchors_as_the_parse():
    headings = [{"level": 2, "text": "Desktop", "id": "desktop"}, {"level": 3, "text": "Install", "id": "install"}]
    rows = [[2, "Desktop", "desktop"], [3, "Install", "install"], [0, "", "^intro"]]
    assert page_anchors(headings, ["intro"]) == rows


def test_fragment_lines_are_a_section_or_a_block_as_the_headings_result_places_them():
    article = articles_from({"a.md": f"---\ntitle: A\n---\n{BODY}"})[0]
    outline, lines = headings_pass.run(article, {}), BODY.split("\n")
    assert outline["block_lines"] == [[0, 1]]
    assert fragment_lines(outline, article.body_line, "Mobile", len(lines)) == (5, 8)  # up to `## Next`
    assert fragment_lines(outline, article.body_line, "Next", len(lines)) == (8, len(lines))  # the last runs to the end
    assert fragment_lines(outline, article.body_line, "Mobile#Install", len(lines)) == (6, 8)
    assert fragment_lines(outline, article.body_line, "^intro", len(lines)) == (0, 1)
    assert fragment_lines(outline, article.body_line, "Nope", len(lines)) is None
