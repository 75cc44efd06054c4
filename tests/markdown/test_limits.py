"""Hostile Markdown: bracket runs parse as text in one step; blocks nested too deep stay as text, noted."""

from __future__ import annotations

import re

from pipeline.markdown import make_parser
from pipeline.markdown.limits import TOO_DEEP
from pipeline.markdown.skips import SKIPS


def rendered(text: str) -> tuple[str, dict]:
    env: dict = {}
    return make_parser().render(text, env), env


def test_blocks_nested_past_the_limit_are_kept_as_text_and_their_line_noted():
    html, env = rendered("intro\n\n" + "> " * 25 + "deep <b>text</b>\n\nafter\n")
    assert "deep &lt;b&gt;text&lt;/b&gt;" in html and "<p>after</p>" in html  # escaped, and nothing lost
    assert html.count("<blockquote>") == 20 and env[TOO_DEEP] == [2]


def test_a_list_nested_too_deep_keeps_what_follows_it():
    html, env = rendered("- " * 25 + "deep item\n\nafter the list\n")
    assert "deep item" in html and "<p>after the list</p>" in html  # markdown-it dropped both
    assert env[TOO_DEEP] == [0]


def test_blocks_nested_by_indentation_are_noted_at_the_line_past_the_limit():
    text = "".join("  " * level + f"- level {level}\n" for level in range(14)) + "\nend\n"
    html, env = rendered(text)
    assert all(f"level {level}" in html for level in range(14)) and "<p>end</p>" in html
    assert env[TOO_DEEP] == [9]  # the tenth list: its item would open level 20


def test_text_within_the_limit_notes_nothing():
    html, env = rendered("> " * 5 + "fine\n\n- a\n  - b\n")
    assert TOO_DEEP not in env and "fine" in html


def test_a_run_of_brackets_with_nothing_closing_it_is_text_and_prose():
    html, env = rendered("[" * 5000 + "x *y*\n")
    assert html == "<p>" + "[" * 5000 + "x <em>y</em></p>\n"
    assert rendered("[[[[x [a](u) [[b]]\n")[0].count("<a ") == 2  # a later `]`: links still parse
    parse_env: dict = {SKIPS: {}}
    make_parser().parse("[[[ word\n", parse_env)
    assert list(parse_env[SKIPS].values()) in ([], [[]])  # the brackets are prose, as before the rule


def test_every_character_of_deep_inline_nesting_is_kept():
    for text in ["[" * 30 + "core" + "](u)" * 30, "^[" * 30 + "core" + "]" * 30, "*_" * 30 + "core" + "_*" * 30]:
        html, env = rendered(text)
        assert "core" in re.sub("<[^>]+>", "", html) and TOO_DEEP not in env
