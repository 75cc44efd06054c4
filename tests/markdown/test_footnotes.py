"""References as footnotes: which are appended, and a parse that keeps to the body's own tokens."""

from __future__ import annotations

from pipeline.markdown.footnotes import definitions, frontmatter_references, in_body, parse_article


def test_references_come_from_the_frontmatter_then_the_registry_and_the_first_of_an_id_wins():
    frontmatter = {"references": [{"id": 1, "text": " One "}, {"id": "1", "text": "again"}, {"title": "no id"},
                                  {"id": "b", "title": "Bee", "url": "https://b"}]}  # fmt: skip
    registry = [{"id": "b", "text": "registry b", "url": None}, {"id": "c", "text": "Cee", "url": None}]
    assert frontmatter_references(frontmatter, registry) == [
        {"id": "1", "text": "One", "url": None},
        {"id": "b", "text": "Bee", "url": "https://b"},
        {"id": "c", "text": "Cee", "url": None},
    ]
    assert frontmatter_references(None) == [] and frontmatter_references({"references": "not a list"}) == []


def test_definitions_skip_references_the_body_defines():
    refs = [{"id": "1", "text": "One", "url": None}, {"id": "2", "text": "Two\nlines", "url": "https://x"}]
    assert definitions(refs, "[^1]: mine\n") == "\n\n[^2]: Two lines <https://x>\n"
    both = "\n\n[^1]: One\n[^2]: Two lines <https://x>\n"
    assert definitions(refs, "See [^1]: not at a line start.\n") == both  # defines nothing
    assert definitions(refs, "Text.\n[^2]: mine\n") == "\n\n[^1]: One\n"


def test_the_body_is_parsed_with_its_references_and_keeps_to_its_own_tokens():
    body = "## Heading [^1]\n\nSee [^1] and [a](b.md).\n"
    frontmatter = {"references": [{"id": 1, "text": "# Not a heading of the body", "url": "https://r"}]}
    tokens, env, appended = parse_article(body, frontmatter)
    assert [ref["id"] for ref in appended] == ["1"] and ":1" in env["footnotes"]["refs"]
    own = in_body(tokens, body)
    assert [t.type for t in own if t.type == "heading_open"] == ["heading_open"]  # not the footnote's
    assert all(t.map[0] < 4 for t in own if t.map)
    refs = [c for t in own for c in t.children or () if c.type == "footnote_ref"]
    assert len(refs) == 2  # `[^1]` is a footnote in the body, as on the page
