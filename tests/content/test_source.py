"""Reading a file's bytes: frontmatter, body (derived from the text), language and slug."""

from __future__ import annotations

import pytest

from pipeline.content.source import parse_source
from tests.runtime.test_safe_yaml import alias_bomb


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


@pytest.mark.parametrize(
    "written", ["../../../tmp/x", "javascript://%0aalert(document.domain)//", "english", "e", "en us"]
)
def test_a_frontmatter_language_that_is_not_a_language_tag_is_not_the_files_language(written):
    assert parse_source("guide.md", f"---\nlang: '{written}'\n---\n".encode(), "en").lang == "en"
    assert parse_source("guide.es.md", f"---\nlanguage: '{written}'\n---\n".encode(), "en").lang == "es"
    assert parse_source("guide.md", b"---\nlang: zh-Hant-TW\n---\n", "en").lang == "zh-Hant-TW"


def test_frontmatter_past_the_yaml_limits_is_an_error_at_its_line_and_the_body_still_splits():
    parsed = parse_source("bomb.md", f"---\ntitle: Bomb\n{alias_bomb(9)}---\nBody\n".encode(), "en")
    assert parsed.frontmatter is None
    assert parsed.frontmatter_error == "YAML has aliases that stand for more than 10,000 values"
    assert (parsed.frontmatter_error_line, parsed.body) == (7, "Body\n")  # the `e:` line, after the fence and title
    deep = parse_source("deep.md", b"---\nx: " + b"[" * 600 + b"]" * 600 + b"\n---\nBody\n", "en")
    assert (deep.frontmatter_error, deep.frontmatter_error_line) == ("YAML nests deeper than 100 levels", 2)
    date = parse_source("date.md", b"---\ntitle: A\ndate: 2024-13-45\n---\n", "en")
    assert date.frontmatter_error == "YAML does not parse: '2024-13-45' is not a valid timestamp"
    assert date.frontmatter_error_line == 3


def test_small_shared_values_are_kept():
    raw = b"---\nd: &d 2024-01-02\nshared: [*d, *d]\nbase: &b {x: 1}\nm:\n  <<: *b\n---\n"
    shared = parse_source("a.md", raw, "en").frontmatter
    assert shared == {"d": "2024-01-02", "shared": ["2024-01-02", "2024-01-02"], "base": {"x": 1}, "m": {"x": 1}}
