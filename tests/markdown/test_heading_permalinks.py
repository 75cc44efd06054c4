"""Heading ids and permalinks (`markdown/headings.py`)."""

from __future__ import annotations

from pipeline.inline import run_inline
from pipeline.markdown import make_parser
from pipeline.markdown.extensions import setting
from pipeline.markdown.headings import unique
from pipeline.markdown.slots import fills, render_slotted


def test_every_heading_ends_with_a_permalink_in_the_pages_language():
    assert make_parser().render("## Setup {#install}\n", {"lang": "es-MX"}) == (
        '<h2 id="install">Setup<a class="headerlink" href="#install" aria-label="Enlace a esta sección" '
        "data-pagefind-ignore>#</a></h2>\n"
    )
    assert 'aria-label="Link to this section"' in make_parser().render("# A\n", {"lang": "fr"})


def test_a_rendering_with_holes_leaves_the_label_to_fill():
    md = make_parser()
    html, slots = render_slotted(md, md.parse("## A\n", {}), {})
    (label,) = fills(slots, md.options, {"lang": "es", "wikilinks": {}, "hrefs": {}})
    assert label == "Enlace a esta sección" and "aria-label=\"\x00" in html


def test_permalinks_can_be_turned_off():
    assert make_parser(markdown=setting([{"heading_permalinks": False}])).render("## A\n", {}) == '<h2 id="a">A</h2>\n'


def test_the_permalink_is_not_heading_text_for_the_passes():
    out = run_inline({"a.md": "---\nlang: en\n---\n# Title\n\n## Part *one*\n"})
    (heading, part) = out["headings"]["a.md"]["headings"]
    assert (heading["text"], part["text"]) == ("Title", "Part one")
    assert out["metadata"]["a.md"]["title"] == "Title"
    assert out["html"]["a.md"]["toc"] == [{"level": 2, "text": "Part one", "id": "part-one"}]


class CountingSet(set):
    looks = 0

    def __contains__(self, item) -> bool:
        CountingSet.looks += 1
        return super().__contains__(item)


def test_many_headings_of_one_text_stay_linear():
    # Each `-N` suffix was looked for from 1 again: 30,000 headings "h" took minutes.
    used, suffixes = CountingSet(), {}
    for _ in range(1000):
        used.add(unique("h", (used,), suffixes))
    assert "h-999" in used and CountingSet.looks < 3 * 1000
