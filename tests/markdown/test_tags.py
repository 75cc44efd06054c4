"""Inline tags (`#tag`, markdown/tags.py): fixtures, where they link to, and holes for the links pass."""

from __future__ import annotations

from pipeline.markdown import make_parser
from pipeline.markdown.slots import fills, render_slotted
from pipeline.urls import tag_url


def test_a_heading_is_no_tag_and_a_tag_in_a_heading_is_one():
    tokens = make_parser().parse("# Title\n\n## Intro #start\n", {})
    tags = [child.meta["tag"] for token in tokens for child in token.children or () if child.type == "tag"]
    assert tags == ["start"]


def test_tag_urls_are_in_the_page_language_under_the_base_url():
    assert tag_url("Help/Start", "en", "en") == "tags/help/start/"
    assert tag_url("ayuda", "es", "en") == "es/tags/ayuda/"
    md = make_parser(base_url="/w/")
    assert 'href="/w/es/tags/ayuda/"' in md.render("#ayuda\n", {"lang": "es"})


def test_a_tag_rendered_with_holes_is_filled_in_the_page_language():
    md = make_parser(base_url="/w/")
    html, slots = render_slotted(md, md.parse("#ayuda\n", {}), {})
    assert slots == [{"tag": "ayuda"}]
    (href,) = fills(slots, md.options, {"lang": "es"})
    assert href == "/w/es/tags/ayuda/"
