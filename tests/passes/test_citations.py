"""citations: footnotes, cites: with citations.yaml, numeric markers, diagnostics, order, and select."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.content.data_files import validated
from pipeline.inline import DEFAULT_OPTIONS
from pipeline.inline import articles_from, run_inline
from pipeline.passes import citations
from pipeline.passes.base import Wiki
from pipeline.passes.registry import spec_of

SPECS = [spec_of(citations)]
FIXTURES = Path(__file__).parent / "fixtures" / "citations"

REFERENCES = """---
title: Cited
references:
  - id: 1
    text: "First source."
    url: "https://example.org/one"
  - id: 2
    text: "Second source."
  - id: 3
    text: "Never cited."
---
"""


def cite(text: str, data=None) -> dict:
    """The citations output of one article `a.md`."""
    return run_inline({"a.md": text}, specs=SPECS, data={"citations": data})["citations"]["a.md"]


def codes(output: dict) -> list[tuple[str, int, int]]:
    return [(d["code"], d["line"], d["col"]) for d in output["diagnostics"]]


def test_footnotes_cite_frontmatter_references_in_citation_order():
    out = cite(REFERENCES + "Claim.[^2] Another.[^1] Again.[^2]\n")
    summary = [(r["id"], r["number"], r["cited"]) for r in out["references"]]
    assert summary == [("2", 1, True), ("1", 2, True), ("3", 3, False)]
    assert out["references"][1] == {
        "id": "1", "number": 2, "text": "First source.", "url": "https://example.org/one", "source": "frontmatter",
        "cited": True,
    }  # fmt: skip
    assert codes(out) == [("unused-reference", 9, 1)]


def test_an_undefined_footnote_is_reported_at_its_line_and_column_and_code_is_ignored():
    out = cite(REFERENCES + "Text [^1] and [^2] and [^3].\n\nMore `[^9]` then [^7].\n\n```\n[^8]\n```\n")
    assert codes(out) == [("undefined-citation", 14, 18)]
    assert "[^7]" in out["diagnostics"][0]["message"]


def test_a_footnote_defined_in_the_body_is_not_undefined():
    out = cite("---\ntitle: T\n---\nSee.[^note]\n\n[^note]: Defined here.\n")
    assert out["diagnostics"] == [] and out["references"] == []


def test_cites_resolve_against_citations_yaml_and_an_unknown_id_is_undefined():
    registry = [{"id": "ni-51-102", "text": "NI 51-102.", "url": "https://x.example/ni"}, {"id": "other", "text": "O."}]
    out = cite("---\ntitle: T\ncites:\n - ni-51-102\n - nowhere\n---\nBody.\n", registry)
    assert out["references"] == [{
        "id": "ni-51-102", "number": 1, "text": "NI 51-102.", "url": "https://x.example/ni", "source": "citations.yaml",
        "cited": True,
    }]  # fmt: skip
    assert codes(out) == [("undefined-citation", 5, 1)]


def test_a_footnote_places_a_cites_entry_in_the_text():
    registry = {"a": {"text": "A."}, "b": "B."}
    out = cite("---\ntitle: T\ncites: [a, b]\n---\nFirst.[^b]\n", registry)
    assert [(r["id"], r["text"]) for r in out["references"]] == [("b", "B."), ("a", "A.")]
    assert out["diagnostics"] == []


def test_without_citations_yaml_cites_are_not_checked():
    out = cite("---\ntitle: T\ncites:\n - ni-51-102\n---\nBody.\n", None)
    assert out == {"references": [], "diagnostics": []}


def test_a_citations_yaml_that_is_no_list_or_mapping_has_no_entries_and_cites_are_checked():
    out = cite("---\ntitle: T\ncites: [a]\n---\nBody.\n", 42)  # its data-error: `content/data_files.py`
    assert out["references"] == [] and codes(out) == [("undefined-citation", 3, 1)]


def test_numeric_markers_match_the_numbered_references_list():
    references = "## References\n\n1. One https://one.example/x.\n2. Two\n3. Three\n"
    out = cite("---\ntitle: T\n---\nA claim [2] and [1][3].\n\n" + references)
    summary = [(r["id"], r["number"], r["source"]) for r in out["references"]]
    assert summary == [("2", 2, "list"), ("1", 1, "list"), ("3", 3, "list")]
    assert out["references"][1]["url"] == "https://one.example/x" and out["references"][1]["text"].startswith("One")
    assert out["diagnostics"] == []


def test_numeric_markers_report_undefined_and_unused_entries():
    text = "---\ntitle: T\n---\nA claim [2] and [4], hashes[0] and `[5]`.\n\n## Referencias\n\n1. Uno\n2. Dos\n"
    out = cite(text)
    assert codes(out) == [("undefined-citation", 4, 17), ("unused-reference", 8, 1)]


def test_a_numbered_list_is_only_a_bibliography_when_nothing_cites_by_number():
    out = cite("---\ntitle: T\n---\nProse.\n\n## References\n\n1. A book\n2. Another\n")
    assert out["diagnostics"] == [] and [r["cited"] for r in out["references"]] == [False, False]


def test_a_numeric_marker_without_any_references_list_is_undefined():
    out = cite("---\ntitle: T\n---\nPretraining run [1]. See [[other]].\n")
    assert codes(out) == [("undefined-citation", 4, 17)]


def test_markers_inside_the_references_section_are_not_citations():
    out = cite("---\ntitle: T\n---\nClaim [1].\n\n## References\n\n1. Source [2], see [^x].\n\n## See also\n\nText.\n")
    assert out["diagnostics"] == []


@pytest.mark.parametrize("name", sorted(p.stem for p in FIXTURES.glob("*.md")))
def test_fixture(name):
    expected = json.loads((FIXTURES / f"{name}.json").read_text(encoding="utf-8"))
    text = (FIXTURES / f"{name}.md").read_text(encoding="utf-8")
    assert cite(text, expected.get("citations.yaml")) == expected["output"]


# ---------------------------------------------------------------- select


def slice_of(text: str, data) -> str:
    articles = articles_from({"a.md": text, "b.md": "---\ntitle: B\ncites: [y]\n---\n"})
    wiki = Wiki(options=dict(DEFAULT_OPTIONS), articles=articles, data={"citations": validated("citations", data)[0]})
    return json.dumps(citations.select(articles[0], wiki), sort_keys=True)


def test_select_holds_only_the_cited_registry_entries():
    text = "---\ntitle: T\ncites: [x]\n---\n"
    registry = [{"id": "x", "text": "X."}, {"id": "y", "text": "Y."}]
    edited = [{"id": "x", "text": "X."}, {"id": "y", "text": "Y, edited."}, {"id": "z", "text": "New."}]
    assert slice_of(text, registry) == slice_of(text, edited)
    assert slice_of(text, registry) != slice_of(text, [{"id": "x", "text": "X, edited."}])
    entries = [{"id": "x", "text": "X.", "url": None}]
    assert json.loads(slice_of(text, registry))["registry"] == {"exists": True, "entries": entries}  # and `markdown`


def test_select_tells_a_missing_registry_from_an_empty_one():
    text = "---\ntitle: T\ncites: [x]\n---\n"
    assert slice_of(text, None) != slice_of(text, [])


def test_thousands_of_markers_on_one_line_each_get_their_column():
    markers = [f"[^n{i}]" for i in range(3_000)] + ["[1]"] * 3_000
    line = " ".join(markers)
    found = codes(cite(f"# T\n\n{line}\n"))
    columns = [index + 1 for index in range(len(line)) if line.startswith("[", index) and line[index - 1 : index] != "["]
    assert found == [("undefined-citation", 3, col) for col in columns]
