"""Rendering with links left as holes, then filling them: the same HTML as rendering with the links known."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.markdown import make_parser
from pipeline.markdown.slots import embed_fills, render_slotted
from pipeline.markdown.wikilinks import href_env, link_env, render_with_embeds
from pipeline.storage.text_refs import fill

BODY = """# Title {#top}

See [[a]], [[b|the B page]], [[c#x]], [[Nope & co]] and [[#top]].

| link | code |
|---|---|
| [[a|A in a table]] | `[[a|b]]` |

A [Markdown link](guide.md?q=1&r=2) and [an anchor](#top) and [out](https://e.org/?a=1&b=2).

Cited.[^1]

[^1]: A note with [[a]].
"""
LINKS = [
    {"line": 3, "col": 5, "status": "ok", "url": "a/"},
    {"line": 3, "col": 12, "status": "fallback", "url": "es/b/", "target_lang": "es"},
    {"line": 3, "col": 31, "status": "ok", "url": "c/#x"},
    {"line": 3, "col": 42, "status": "broken", "url": "special/wanted/#wanted-nope-co"},
    {"line": 7, "col": 3, "status": "ok", "url": "a/"},
    {"line": 9, "col": 18, "status": "ok", "url": "guide/?q=1&r=2", "kind": "markdown", "raw": "(guide.md?q=1&r=2)"},
    {"line": 13, "col": 20, "status": "ok", "url": "a/"},
]


def whole_and_filled(body: str, links: list[dict], base_url: str = "/w/") -> tuple[str, str]:
    md = make_parser(base_url=base_url)
    env = {"wikilinks": link_env(links, 1), "hrefs": href_env(links), "lang": "en"}
    whole = render_with_embeds(md, body, env, lambda meta: None)
    parse_env: dict = {}
    html, slots = render_slotted(md, md.parse(body, parse_env), parse_env)
    return whole, fill(html, embed_fills(md, slots, env, lambda meta: None, 3, ()))


def test_filled_slots_are_the_whole_rendering():
    whole, filled = whole_and_filled(BODY, LINKS)
    assert filled == whole
    # and the fixture exercises what it claims: every kind of slot, escaped where it must be
    assert 'class="wikilink fallback" hreflang="es"' in whole and 'class="new"' in whole
    assert 'href="/w/guide/?q=1&amp;r=2"' in whole and 'href="https://e.org/?a=1&amp;b=2"' in whole
    assert "<code>[[a|b]]</code>" in whole and 'href="#fn1"' in whole


def test_the_headings_of_a_rendering_share_one_permalink_label_slot():
    md, env = make_parser(), {}
    html, slots = render_slotted(md, md.parse("## One\n\n## Two\n\n### Three\n", env), env)
    assert slots == [{"permalink_label": True}] and html.count("\x000\x00") == 3
    filled = fill(html, embed_fills(md, slots, {"lang": "es"}, lambda meta: None, 3, ()))
    assert filled.count('aria-label="Enlace a esta sección"') == 3


def test_rendering_with_slots_leaves_the_parse_as_it_was():
    md, env = make_parser(), {}
    tokens = md.parse(BODY, env)
    before = md.renderer.render(tokens, md.options, {**env})
    render_slotted(md, tokens, env)
    assert md.renderer.render(tokens, md.options, {**env}) == before
    assert "slots" not in env


def test_an_embed_of_nothing_fills_as_the_whole_rendering_shows_it():
    links = [{"line": 1, "col": 7, "status": "broken", "url": "special/wanted/#wanted-other"}]
    whole, filled = whole_and_filled("Intro ![[other]] and ![[other#Part|shown]]\n", links)
    assert filled == whole and whole.count('<div class="embed missing">') == 2 and 'class="new"' in whole


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]!|#`\\ \n>-*ab:&<()^")), max_size=120))
def test_filling_matches_the_whole_rendering_on_any_text(text):
    md, env = make_parser(), {}
    tokens = md.parse(text, env)
    links = [
        {"line": c.meta["line"], "col": c.meta["col"], "status": "ok" if i % 2 else "broken", "url": f"p{i}/"}
        for i, c in enumerate(c for t in tokens for c in t.children or () if c.type == "wikilink")
    ]  # fmt: skip
    whole, filled = whole_and_filled(text, links)
    assert filled == whole
