"""Callouts and GitHub alerts: fixtures, every type and alias, places of what they hold, hostile nesting."""

from __future__ import annotations

import re

import pytest

from pipeline.inline import run_inline
from pipeline.markdown import make_parser
from pipeline.markdown.callout_icons import ALIASES, ICONS, KINDS
from pipeline.markdown.wikilinks import LINK_TYPES

ASIDE = re.compile(r'<aside class="callout callout-([a-z]+)" data-callout="([^"]*)" role="note">')
OBSIDIAN = {  # Obsidian's callout types and their aliases, as its help lists them
    "note": [], "abstract": ["summary", "tldr"], "info": [], "todo": [], "tip": ["hint", "important"],
    "success": ["check", "done"], "question": ["help", "faq"], "warning": ["caution", "attention"],
    "failure": ["fail", "missing"], "danger": ["error"], "bug": [], "example": [], "quote": ["cite"],
}  # fmt: skip


@pytest.mark.parametrize(("name", "kind"), [(n, k) for k, names in OBSIDIAN.items() for n in [k, *names]])
def test_every_obsidian_type_and_alias_in_any_case_is_its_kind_with_its_icon(name, kind):
    for written in (name, name.upper(), name.capitalize()):
        html = make_parser().render(f"> [!{written}]\n> body\n", {})
        assert ASIDE.search(html).groups() == (kind, name)
        assert ICONS[kind] in html and f'<span class="callout-title-text">{name.capitalize()}</span>' in html


def test_the_table_is_obsidians_and_every_kind_has_an_icon():
    assert {kind: list(aliases) for kind, aliases in ALIASES.items()} == OBSIDIAN
    assert set(KINDS.values()) == set(ICONS)


def test_github_alerts_are_callouts():
    html = make_parser().render("> [!NOTE]\n> a\n\n> [!TIP]\n\n> [!IMPORTANT]\n\n> [!WARNING]\n\n> [!CAUTION]\n", {})
    assert [match.groups() for match in ASIDE.finditer(html)] == [
        ("note", "note"), ("tip", "tip"), ("tip", "important"), ("warning", "warning"), ("warning", "caution")]


def test_icons_are_inline_svg_hidden_from_screen_readers():
    for icon in ICONS.values():
        assert icon.startswith("<svg") and 'aria-hidden="true"' in icon and "href" not in icon and "url(" not in icon


def test_a_marker_in_code_or_an_escaped_one_is_no_callout():
    html = make_parser().render("```\n> [!note] x\n```\n\n> \\[!note] y\n\n    > [!note] z\n", {})
    assert "callout" not in html and "[!note] x" in html and "[!note] y" in html


def test_links_and_headings_inside_callouts_keep_their_places():
    text = "intro\n\n> [!note] See [[Title Link]]\n> text [[Body]]\n> > [!tip]- [[Nested]]\n> > ## Deep heading\n"
    tokens = make_parser().parse(text, {})
    links = [(c.meta["target"], c.meta["line"], c.meta["col"]) for t in tokens for c in t.children or ()
             if c.type in LINK_TYPES]  # fmt: skip
    assert links == [("Title Link", 3, 15), ("Body", 4, 8), ("Nested", 5, 13)]
    heading = next(t for t in tokens if t.type == "heading_open")
    assert (heading.map[0], heading.meta["id"]) == (5, "deep-heading")


def test_the_passes_see_links_and_headings_of_callouts_at_their_lines():
    page = "---\ntitle: T\n---\n> [!warning] See [[Gone]]\n> ## Inside\n> [[Also gone]]\n"
    out = run_inline({"page.md": page})
    assert [(d["code"], d["line"]) for d in out["wikilinks"]["page.md"]["diagnostics"]] == [
        ("broken-link", 4), ("broken-link", 6)]
    assert [(h["text"], h["line"]) for h in out["headings"]["page.md"]["headings"]] == [("Inside", 5)]
    assert 'class="callout callout-warning"' in out["html"]["page.md"]["html"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    ["> " * 10_000 + "[!note] deep\n", "".join("> " * depth + "[!note] t\n" for depth in range(1, 2_000)),
     "> [!note]- t\n> body\n\n" * 10_000, "> [!note]\n" * 10_000],
    ids=["one-line", "deepening-lines", "many", "lazy-lines"],
)
def test_hostile_nesting_and_numbers_of_callouts_parse(text):
    html = make_parser().render(text, {})
    assert html.count("<aside") == html.count("</aside>") and html.count("<details") == html.count("</details>")
