"""The html pass: Markdown to the HTML of a page, from the other passes' results."""

from __future__ import annotations

from pipeline.inline import run_inline
from pipeline.passes.html import split_footnotes


def html_of(files, path="a.md", **options):
    return run_inline(files, options=options)["html"][path]


def test_links_render_from_the_wikilinks_resolution_with_base_url():
    out = html_of({"a.md": "---\ntitle: A\n---\n\n[[B]] and [[Nope]]\n", "b.md": "---\ntitle: B\n---\n\nB\n"},
                  base_url="/docs")  # fmt: skip
    assert '<a href="/docs/b/" class="wikilink">B</a>' in out["html"]
    assert '<a href="/docs/special/wanted/#wanted-nope" class="new"' in out["html"]


def test_raw_html_is_escaped_unless_allowed():
    files = {"a.md": "---\ntitle: A\n---\n\n<div onclick=x>hi</div>\n\nText <i>x</i>\n"}
    assert "<div" not in html_of(files)["html"] and "&lt;div onclick=x&gt;" in html_of(files)["html"]
    assert "<div onclick=x>hi</div>" in html_of(files, raw_html=True)["html"]


def test_tables_task_lists_footnotes_and_heading_anchors():
    body = "## Intro {#start}\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n- [x] done\n\nNote.[^n]\n\n[^n]: the note\n"
    out = html_of({"a.md": "---\ntitle: A\n---\n\n" + body})
    assert '<h2 id="start">Intro<a class="headerlink" href="#start"' in out["html"] and "<table>" in out["html"]
    assert 'type="checkbox"' in out["html"] and 'href="#fn1"' in out["html"]
    assert "the note" in out["references_html"] and "the note" not in out["html"]
    assert out["toc"] == [{"level": 2, "text": "Intro", "id": "start"}]


def test_frontmatter_references_become_the_cited_footnotes():
    text = "---\ntitle: A\nreferences:\n  - id: 1\n    text: A book\n    url: https://e.org/b\n---\n\nSaid.[^1]\n"
    out = html_of({"a.md": text})
    assert 'href="#fn1"' in out["html"]
    assert "A book" in out["references_html"] and 'href="https://e.org/b"' in out["references_html"]


def test_embeds_are_rendered_and_cycles_stop():
    files = {
        "a.md": "---\ntitle: A\n---\n\nBefore\n\n![[b]]\n",
        "b.md": "---\ntitle: B\n---\n\nB says [[a]].\n\n![[a]]\n",
    }
    out = html_of(files)
    assert '<div class="embed" data-target="b">' in out["html"]
    assert '<a href="/a/" class="wikilink">a</a>' in out["html"]
    assert "already embedded above" in out["html"]


def test_tags_link_to_their_page_in_the_page_language_and_block_ids_are_anchors():
    files = {"a.es.md": "---\ntitle: A\n---\nTexto #ayuda y #edición/formato. ^intro\n\n`#no`\n"}
    html = html_of(files, "a.es.md", base_url="/w", languages=["en", "es"])["html"]
    assert html == (
        '<p id="^intro">Texto <a class="tag" href="/w/es/tags/ayuda/">#ayuda</a> y '
        '<a class="tag" href="/w/es/tags/edición/formato/">#edición/formato</a>.</p>\n<p><code>#no</code></p>\n'
    )


def test_a_section_or_block_embed_shows_that_part_only():
    b = "Intro [[a]]. ^intro\n\n## Desktop\n### Install\nDesk.\n## Mobile\n### Install\nMob [[a]].\n## Next\nNext.\n"
    a = "![[b#Mobile]]\n\n![[b#^intro]]\n\n![[b#Nope]]\n\n![[#Top]]\n\n# Top\n"
    html = html_of({"a.md": f"---\ntitle: A\n---\n{a}", "b.md": f"---\ntitle: B\n---\n{b}"})["html"]
    section, block, missing, own = html.split('<div class="embed')[1:5]
    assert "Mobile" in section and "Mob " in section and '<a href="/a/" class="wikilink">' in section  # its links resolved
    assert "Desk." not in section and "Next" not in section  # the section ends at the next heading of its level
    assert '<p id="^intro">Intro ' in block and "Desktop" not in block
    assert missing.startswith(' missing">') and 'href="/b/#Nope"' in missing  # no such heading: a link
    assert "embed-cycle" in own  # a page never embeds (a part of) itself


def test_apply_mode_links_mentions_and_keeps_later_links_in_place():
    files = {
        "a.md": "---\ntitle: A\n---\n\nRead about Gamma here and [[b]] too.\n",
        "b.md": "---\ntitle: B\n---\n\nB.\n",
        "g.md": "---\ntitle: Gamma\n---\n\nG.\n",
    }
    applied = html_of(files, autolink="apply")["html"]
    assert '<a href="/g/" class="wikilink">Gamma</a>' in applied
    assert '<a href="/b/" class="wikilink">b</a>' in applied  # shifted by the mention, still resolved
    assert 'href="/g/"' not in html_of(files)["html"]  # suggest mode changes nothing


def test_split_finds_the_last_footnotes_section():
    assert split_footnotes("<p>x</p>\n") == ("<p>x</p>\n", "")
