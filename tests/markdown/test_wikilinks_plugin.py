"""The wikilinks markdown-it plugin: fixtures, positions, rendering with resolutions, embeds."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.markdown import make_parser
from pipeline.markdown.wikilinks import LINK_TYPES, Embedded, link_env, render_with_embeds


def links_of(text: str) -> list[dict]:
    return [c.meta for t in make_parser().parse(text, {}) for c in t.children or () if c.type in LINK_TYPES]


def test_meta_holds_parts_and_positions():
    text = "# T\n\n> quote [[a#h|b\nc]] and ![[e]]\n- item [[f/g]]\n"
    metas = links_of(text)
    assert [(m["target"], m["fragment"], m["label"], m["embed"], m["line"], m["col"]) for m in metas] == [
        ("a", "h", "b\nc", False, 3, 9),
        ("e", None, None, True, 4, 9),
        ("f/g", None, None, False, 5, 8),
    ]


def test_escaped_pipe_in_table_cell_is_a_separator_with_its_position():
    (meta,) = links_of("| a |\n|---|\n| [[t\\|lab]] |\n")
    assert (meta["target"], meta["label"], meta["line"], meta["col"]) == ("t", "lab", 3, 3)


def test_a_code_span_in_a_table_cell_shows_its_pipe():
    # The `|` inside `[[...]]` is masked while the row is split into cells; no cell may keep the mask.
    html = make_parser().render("| a |\n|---|\n| `[[x|Y]]` [[p|Q]] |\n", {})
    assert "<code>[[x|Y]]</code>" in html and ">Q</a>" in html
    assert "\x00" not in html


def test_render_uses_resolutions_and_base_url():
    text = "[[a]] [[b|B]] [[c#x]] [[d]]\n"
    links = [
        {"line": 10, "col": 1, "status": "ok", "url": "a/"},
        {"line": 10, "col": 7, "status": "fallback", "url": "es/b/", "target_lang": "es"},
        {"line": 10, "col": 15, "status": "self", "url": "c/#x"},
        {"line": 10, "col": 23, "status": "broken", "url": "special/wanted/#wanted-d"},
    ]
    env = {"wikilinks": link_env(links, body_line=10), "base_url": "/w/"}
    assert make_parser().render(text, env) == (
        '<p><a href="/w/a/" class="wikilink">a</a> '
        '<a href="/w/es/b/" class="wikilink fallback" hreflang="es">B</a> '
        '<a href="/w/c/#x" class="wikilink">c#x</a> '
        '<a href="/w/special/wanted/#wanted-d" class="new" title="d (page does not exist)">d</a></p>\n'
    )


def test_self_link_without_fragment_is_bold_text():
    env = {"wikilinks": {(1, 1): {"status": "self", "url": "me/"}}}
    assert make_parser().render("[[me]]", env) == '<p><strong class="selflink">me</strong></p>\n'


def test_embeds_are_transcluded_cycle_safe_and_depth_limited():
    bodies = {"a": "A says ![[b]]", "b": "B says ![[a]] and ![[c]]", "c": "C says ![[d]]", "d": "D"}

    def fetch(meta):
        target = meta["target"]
        return Embedded(target, bodies[target], {}) if target in bodies else None

    html = render_with_embeds(make_parser(), bodies["a"], {}, fetch, depth=2, identity="a")
    assert html.count('<div class="embed" data-target="b">') == 1
    assert 'class="embed-cycle">a is already embedded above' in html
    assert '<div class="embed" data-target="c">' in html
    assert 'class="embed-depth">d is embedded too deeply' in html
    missing = render_with_embeds(make_parser(), "![[zzz]]", {}, fetch)
    assert 'class="embed missing"' in missing and 'class="new"' in missing


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("[]!|#`\\ \n\t>-*|ab:{}<^")), max_size=80))  # `^[...]`: inline footnotes
def test_parser_never_crashes_and_positions_map_back(text):
    assert "\x00" not in make_parser().render(text, {})  # tables of links and code spans, too
    lines = text.replace("\r\n", "\n").split("\n")
    for meta in links_of(text):
        opener = "![[" if meta["embed"] else "[["
        assert lines[meta["line"] - 1][meta["col"] - 1 :].startswith(opener)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_parser_never_crashes_on_any_text(text):
    assert "\x00" not in make_parser().render(text, {})  # slots (markdown/slots.py) are marked by NUL
    for meta in links_of(text):
        assert meta["line"] >= 1 and meta["col"] >= 1


def test_a_link_to_a_heading_or_block_reads_as_obsidian_shows_it_under_links_obsidian():
    import pytest

    from pipeline.errors import ConfigError
    from pipeline.markdown.extensions import setting

    text = "[[Note#Heading]] [[Note#A#B]] [[Note#^abc]] [[Note#H|label]] [[#Local]] [[Note]]"
    shown = lambda markdown: [t.content for t in make_parser(markdown=markdown).parseInline(text, {})[0].children  # noqa: E731
                              if t.type == "wikilink"]  # fmt: skip
    assert shown(setting([])) == ["Note#Heading", "Note#A#B", "Note#^abc", "label", "#Local", "Note"]
    obsidian = ["Note > Heading", "Note > A > B", "Note > ^abc", "label", "#Local", "Note"]
    assert shown(setting([], "obsidian")) == obsidian
    assert shown(setting([{"wikilinks": {"heading_text": "obsidian"}}])) == obsidian  # asked for in a wiki's links
    assert shown(setting([{"wikilinks": {"heading_text": "written"}}], "obsidian"))[0] == "Note#Heading"  # its own
    with pytest.raises(ConfigError, match="markdown: wikilinks: heading_text must be one of written, obsidian"):
        setting([{"wikilinks": {"heading_text": "both"}}])  # as wiki.yaml's options are read, before any job
