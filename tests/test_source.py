"""Reading a file's bytes: frontmatter, body (derived from the text), language and slug."""

from __future__ import annotations

import pytest

from pipeline.source import parse_source


@pytest.mark.parametrize(
    "raw,body,body_line",
    [
        (b"---\ntitle: A\n---\nBody\nmore\n", "Body\nmore\n", 4),
        (b"No frontmatter\n", "No frontmatter\n", 1),
        (b"---\ntitle: A\n---", "", 4),  # the closing fence is the last line
        (b"---\ntitle: A\n---\n", "", 4),
        (b"---\ntitle: [unclosed\n---\nBody\n", "Body\n", 4),  # YAML error: the body is still split off
        (b"---\ntitle: A\nno closing fence\n", "---\ntitle: A\nno closing fence\n", 1),
        (b"\xef\xbb\xbf---\nslug: x\n---\r\nBody\r\n", "Body\r\n", 4),  # BOM dropped, CRLF kept
        (b"bad \xff bytes", "", 1),
    ],
)
def test_the_body_is_the_text_from_its_first_line_on(raw, body, body_line):
    parsed = parse_source("a.md", raw, "en")
    assert (parsed.body, parsed.body_line) == (body, body_line)


def test_language_and_slug_come_from_the_name_unless_the_frontmatter_says_otherwise():
    assert (parse_source("guide.es.md", b"x", "en").lang, parse_source("guide.es.md", b"x", "en").slug) == ("es", "guide")
    parsed = parse_source("guide.md", b"---\nlang: fr\nslug: guidage\n---\n", "en")
    assert (parsed.lang, parsed.slug) == ("fr", "guidage")
