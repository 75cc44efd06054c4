"""Every fixture file of tests/markdown/fixtures/, in markdown-it-py's format: Markdown in, the HTML the wiki's
parser (its default extension table) renders out. One file per syntax (wikilinks, callouts, comments, code...)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from pipeline.markdown import make_parser

FIXTURES = Path(__file__).parent / "fixtures"
CASES = [
    pytest.param(text, expected, id=f"{path.stem}:{line}-{title[:40]}")
    for path in sorted(FIXTURES.glob("*.md"))
    for line, title, text, expected in read_fixture_file(path)
]



def text_quotes(html: str) -> str:
    """`&quot;` and `"` mean the same in text between tags; Pygments escapes it there before 2.21 and not
    after, so the comparison leaves out that choice (attribute values keep their escapes)."""
    return re.sub(r">[^<]*<", lambda match: match.group(0).replace("&quot;", '"'), html)


@pytest.mark.parametrize("text, expected", CASES)
def test_fixture(text, expected):
    assert text_quotes(make_parser().render(text, {})) == text_quotes(expected)
