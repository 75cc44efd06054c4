"""The links pass renders each body once, in the first round, with holes for its links; the html pass fills them."""

from __future__ import annotations

from pipeline.inline import articles_from, run_inline
from pipeline.passes import html

ARTICLE = """---
title: A
references:
  - id: 2
    text: Second
  - id: 1
    text: "First,  spaced"
    url: https://e.org/1
---

Cites [^1] then [^2], links [[b]] and [a page](b.md).
"""
FILES = {"a.md": ARTICLE, "b.md": "---\ntitle: B\n---\n\nB.\n"}


def test_links_leaves_a_hole_for_each_link_and_names_the_footnotes_it_appended():
    out = run_inline(FILES)["links"]["a.md"]
    # the wikilink, the Markdown link, and the link of reference 1's URL in its footnote
    assert [sorted(slot) for slot in out["slots"]] == [["inner", "link"], ["href"], ["href"]]
    assert out["slots"][1:] == [{"href": "b.md"}, {"href": "https://e.org/1"}]
    assert out["definitions"] == [["1", "First, spaced", "https://e.org/1"], ["2", "Second", None]]
    assert 'href="#fn1"' in out["html"] and "\x00" in out["html"]


def test_html_fills_the_holes_into_the_page_a_whole_render_gives():
    results = run_inline(FILES)
    page = results["html"]["a.md"]
    assert '<a href="/b/" class="wikilink">b</a>' in page["html"] and '<a href="/b/">a page</a>' in page["html"]
    assert "First, spaced" in page["references_html"] and "\x00" not in page["html"]


def inputs_of(files: dict, path: str) -> tuple:
    """The article at `path` and the html pass's inputs for it, as a build would hand them over."""
    from pipeline.inline import DEFAULT_OPTIONS
    from pipeline.passes.base import Wiki

    articles = articles_from(files)
    results = run_inline(files)
    by_path = {a.path: a.capture_id for a in articles}
    wiki = Wiki(options=dict(DEFAULT_OPTIONS), articles=articles,
                results={name: {by_path[p]: out for p, out in outs.items()} for name, outs in results.items()})  # fmt: skip
    article = next(a for a in articles if a.path == path)
    return article, html.select(article, wiki)


def test_a_page_whose_footnotes_differ_from_its_rendering_is_rendered_whole():
    article, inputs = inputs_of(FILES, "a.md")
    assert html._prerendered(inputs["markup"], inputs, article.body)
    stale = {**inputs["markup"], "definitions": [], "html": "stale", "slots": []}
    out = html.run(article, {**inputs, "markup": stale})
    assert out == html.run(article, {**inputs, "markup": None})
    assert "First, spaced" in out["references_html"]


def test_pages_with_linked_mentions_are_rendered_whole():
    article, inputs = inputs_of(FILES, "a.md")
    suggestion = {"suggestions": [{"mention": "x"}]}
    assert not html._prerendered(inputs["markup"], {**inputs, **suggestion}, article.body)


EMBEDS = {
    **FILES,
    "b.md": "---\ntitle: B\n---\n\nB links [[a]], #tag and [a page](a.md).\n\n## Part\n\nIn part. ^blk\n\n![[a]]\n",
    "c.md": "---\ntitle: C\n---\n\n![[b]]\n\n![[b#Part]] and ![[b#^blk]]\n\n![[d]]\n\n![[missing]] and ![[c]]\n\n![[e]]\n",
    "d.md": "---\ntitle: D\n---\n\nD embeds ![[b]] and ![[c]], cites [^n].\n\n[^n]: A note.\n",
    "e.md": "---\ntitle: E\n---\n\nA formula that does not parse: $x^$.\n",
    "x.md": "---\ntitle: X\n---\n\nX links [[b]] and #tag.\n\n## Heading\n",
    "y.md": "---\ntitle: Y\n---\n\nY embeds ![[x]] in a line.\n",
    "w.md": "---\ntitle: W\n---\n\nOnly whole notes without footnotes: ![[y]]\n\n> ![[x]]\n",
}


def test_a_page_with_embeds_is_its_rendering_filled_as_a_whole_render_makes_it():
    for path in ("b.md", "c.md", "d.md", "w.md"):
        article, inputs = inputs_of(EMBEDS, path)
        assert html._prerendered(inputs["markup"], inputs, article.body), path
        assert html.run(article, inputs) == html.run(article, {**inputs, "markup": None}), path
    page = html.run(*inputs_of(EMBEDS, "c.md"))["html"]
    assert '<div class="embed missing">' in page and "c is already embedded above" in page
    assert '<div class="embed" data-target="b#^blk">\n<p id="^blk">In part.</p>\n</div>' in page
    assert 'id="fn-embed6-1"' in page  # the footnotes of the sixth body embedded, as numbered in a whole render
    assert '<code class="math-error" title=' in page  # reported by its own page, not this one (no data-line)


def test_an_embedded_whole_note_is_not_parsed_again(monkeypatch):
    from markdown_it import MarkdownIt

    article, inputs = inputs_of(EMBEDS, "w.md")
    parsed = []
    monkeypatch.setattr(MarkdownIt, "parse", lambda self, src, env=None: parsed.append(src))
    out = html.run(article, inputs)
    assert parsed == [] and "Y embeds" in out["html"] and out["html"].count('<a class="tag"') == 2
