"""`==highlight==`, and the GFM syntaxes beside it (`~~strike~~`, task lists): fixtures and hostile runs."""

from __future__ import annotations

import pytest

from pipeline.markdown import make_parser
from pipeline.markdown.extensions import setting


def test_highlight_in_a_link_label_but_not_in_a_wikilink_label():
    html = make_parser().render("[==a==](https://example.org) and [[Page|==b==]]\n", {})
    assert '<a href="https://example.org"><mark>a</mark></a>' in html
    assert ">==b==</a>" in html  # a wikilink's label is text


def test_turned_off_it_leaves_the_markers():
    assert make_parser(markdown=setting([{"highlight": False}])).render("==a==\n", {}) == "<p>==a==</p>\n"


@pytest.mark.slow
@pytest.mark.parametrize(
    "text", ["==" * 100_000 + " a", "==a " * 50_000, "=" * 200_001, "==a ~~b " * 25_000],
    ids=["run", "openers", "odd-run", "mixed"],
)
def test_hostile_runs_of_markers_parse(text):
    html = make_parser().render(text, {})
    assert html.count("<mark>") == html.count("</mark>")
