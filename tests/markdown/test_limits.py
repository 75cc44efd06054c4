"""Hostile Markdown: bracket runs parse as text in one step; blocks nested too deep, and links past the limit,
stay as text, noted."""

from __future__ import annotations

import re

import pytest

from pipeline.markdown import limits, make_parser
from pipeline.markdown.limits import LINK_COUNT, MAX_LINKS, TOO_DEEP, TOO_MANY
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


def test_links_past_the_limit_are_their_source_text_and_the_line_of_the_first_is_noted():
    links = [f"[[p{number}]]" for number in range(MAX_LINKS + 50)]
    rows = [" ".join(links[start : start + 100]) for start in range(0, len(links), 100)]
    env: dict = {}
    tokens = make_parser().parse("intro\n\n" + "\n".join(rows) + "\n", env)
    made = [child.meta["target"] for token in tokens for child in token.children or () if child.type == "wikilink"]
    assert made == [f"p{number}" for number in range(MAX_LINKS)]
    html = make_parser().renderer.render(tokens, make_parser().options, env)
    assert " ".join(links[MAX_LINKS:]) in html  # nothing lost: the rest shown as written
    assert env[TOO_MANY] == 2 + MAX_LINKS // 100  # 0-based line of `[[p10000]]`


def test_links_embeds_images_and_autolinks_count_alike_and_past_the_limit_stay_text_as_written(monkeypatch):
    monkeypatch.setattr(limits, "MAX_LINKS", 3)
    text = "- [[a]] ![[b]]\n- [c](d) [[e]] [f](g) ![[h]]\n  [[i|j]] [[k `l`]] *m* [n] ![o](p.png) <https://q.example>\n"
    html, env = rendered(text)
    rest = "[[e]] [f](g) ![[h]]\n[[i|j]] [[k `l`]] <em>m</em> [n] ![o](p.png) &lt;https://q.example&gt;</li>"
    assert html.count("<a ") == 3 and 'href="d"' in html and rest in html
    assert env[TOO_MANY] == 1
    html, env = rendered("![a](b.png) <https://c.example> [[d]] *[[e]]* [[f]]\n")
    assert (html.count("<img "), html.count("<a ")) == (1, 2) and "<em>[[e]]</em> [[f]]" in html and env[TOO_MANY] == 0


def test_bare_urls_count_with_the_other_links_and_past_the_limit_stay_text(monkeypatch):
    monkeypatch.setattr(limits, "MAX_LINKS", 3)
    text = "[[a]] https://b.example\n\nhttps://c.example/1 [d](e) https://f.example, https://g.example.\n"
    html, env = rendered(text)
    assert html.count("<a ") == 3 and 'href="https://c.example/1"' in html and env[TOO_MANY] == 2
    assert "[d](e) https://f.example, https://g.example.</p>" in html  # as written: nothing lost
    assert rendered("https://a.example https://b.example\n")[0].count("<a ") == 2  # too few to count: all linked


def test_a_parse_counts_its_own_links_whatever_env_it_is_given(monkeypatch):
    monkeypatch.setattr(limits, "MAX_LINKS", 2)
    env: dict = {}
    assert rendered("[[a]] [[b]] [[c]]\n")[0].count("<a ") == 2
    make_parser().parse("[[a]] [[b]] [[c]]\n", env)
    assert make_parser().render("[[d]]\n", env).count("<a ") == 1 and TOO_MANY not in env  # an env handed on


PAST_THE_LIMIT = [
    "[[a]] [[ ]] [[#]] [x]() [a](b c) [a](b *c*) [[a{*b*}]] ![i](j.png) <ab:c> <javascript:x> [[a]](b)\n"
    "[[a]][[b]]\n[[c]]  \n[[d]] e",
    "[[a *b* c]] [a](<b c>) [[a|b]] ![[x#y]] [a](b 'c') <a@b.co> [[a]] &amp; [[b]] \\[[c]] `[[d]]` [[e]]",
    "*[[a]]* [[b]]_c_ [[d]]~~e~~ [^1] ^[[[f]]] [[g]]<span>h</span> [[i]]",
    "[[a]], [[b]] | [[c]] see: [[d]]#x (e) {#f} [[g]]  \n  h [[i]]\n[[j]]!",
]


@pytest.mark.parametrize("text", PAST_THE_LIMIT)
def test_a_run_past_the_limit_taken_at_once_is_the_text_one_link_at_a_time_gives(monkeypatch, text):
    monkeypatch.setattr(limits, "MAX_LINKS", 1)
    at_once = make_parser(raw_html=True).render("[[first]] " + text + "\n", {})
    monkeypatch.setattr(limits, "PLAIN_LINKS", re.compile(""))  # no run is plain: one link rule call each
    assert make_parser(raw_html=True).render("[[first]] " + text + "\n", {}) == at_once
    assert len(re.findall(r'<a href="(?!#fn)', at_once)) == 1  # `[[first]]`; footnotes are no links


EVERY_LINK = (
    "[[a]] [[b|B]] ![[c#h]] [d](e.md) ![f](g.png) <https://h.example> [i][ref] `[[code]]` *[[j]]* [^1] ^[[[k]]]\n"
    "<span>[[l]]</span> [[m `n`]] [o [[p]]](q) [[[r]]] [[s]] [[[[\n\n"
    "| [[t\\|u]] | [v](w) |\n|---|---|\n| x | [[y]] |\n\n[ref]: https://r.example\n[^1]: note [[z]]\n"
)


def test_a_text_that_could_pass_the_limit_parses_as_any_other_up_to_it(monkeypatch):
    def parsed() -> tuple[str, list, int]:
        env: dict = {SKIPS: {}}
        md = make_parser(raw_html=True)
        tokens = md.parse(EVERY_LINK, env)
        links = sum(child.type in ("wikilink", "wikilink_embed", "link_open", "image")
                    for token in tokens for child in token.children or ())  # fmt: skip
        return md.renderer.render(tokens, md.options, env), list(env[SKIPS].values()), links

    uncounted = parsed()
    monkeypatch.setattr(limits, "MAX_LINKS", uncounted[2])  # fewer than the `[` and `<`: every link is counted
    assert parsed() == uncounted and env_of(EVERY_LINK)[LINK_COUNT].made == uncounted[2]


def env_of(text: str) -> dict:
    env: dict = {}
    make_parser().parse(text, env)
    return env
