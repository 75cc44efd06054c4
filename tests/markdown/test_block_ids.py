"""Block ids (`^id`, markdown/block_ids.py): fixtures, what the headings pass reads of them, and prose."""

from __future__ import annotations

from pipeline.markdown import make_parser, parse
from pipeline.markdown.skips import skipped


def test_the_named_block_carries_the_id_for_the_headings_pass():
    tokens = make_parser().parse("Para ^p1\n\n- item ^li\n\n| a |\n|---|\n| b |\n\n^t1\n", {})
    named = [(token.type, token.meta["block_id"]) for token in tokens if "block_id" in token.meta]
    assert named == [("paragraph_open", "p1"), ("list_item_open", "li"), ("table_open", "t1")]


def test_a_heading_keeps_its_own_id():
    tokens = make_parser().parse("# Title ^x\n\n## Next\n\n^y\n", {})
    assert [t.attrGet("id") for t in tokens if t.type == "heading_open"] == ["title-x", "next"]
    assert not [t for t in tokens if "block_id" in t.meta]


def test_a_block_id_is_not_prose():
    body = "Words here ^intro\n"
    tokens, env = parse(body)
    inline = next(token for token in tokens if token.type == "inline")
    assert (body.index("^"), len(inline.content)) in skipped(env, inline)
