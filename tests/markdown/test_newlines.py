"""The `normalize` rule gives what markdown-it's own gives, and the wiki's parser uses it."""

import pytest
from markdown_it.rules_core import StateCore
from markdown_it.rules_core.normalize import normalize as markdown_it_normalize

from pipeline.markdown import make_parser
from pipeline.markdown.newlines import normalize


@pytest.mark.parametrize("src", ["", "a\nb\n", "a\r\nb\r\n", "a\rb\r", "a\r\r\n\n\rb", "nul\0here\0", "\r\0\r\n"])
def test_the_same_text_as_markdown_its_rule(src):
    ours, theirs = StateCore(src, make_parser(), {}), StateCore(src, make_parser(), {})
    normalize(ours)
    markdown_it_normalize(theirs)
    assert ours.src == theirs.src


def test_the_wikis_parser_normalizes_with_it():
    md = make_parser()
    assert normalize in md.core.ruler.getRules("")
    assert md.render("# Title\r\n\r\nLine one\rline two\0\r\n") == md.render("# Title\n\nLine one\nline two\ufffd\n")
