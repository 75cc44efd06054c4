"""headings pass: ids from slugs, de-duplicated, explicit ids win; fixture files."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from pipeline.inline import run_inline
from pipeline.passes import headings
from pipeline.passes.registry import spec_of

FIXTURES = Path(__file__).parent / "fixtures" / "headings"


def run(body: str, front: str = "---\ntitle: T\n---\n") -> dict:
    return run_inline({"a.md": front + body}, specs=[spec_of(headings)])["headings"]["a.md"]


@pytest.mark.parametrize("line,title,text,expected", read_fixture_file(FIXTURES / "headings.md"), ids=lambda v: str(v)[:30])
def test_fixture(line, title, text, expected):
    out = run(text, front="")
    assert "".join(f"{h['level']} {h['id']} {h['line']}\n" for h in out["headings"]) == expected


def test_lines_are_file_lines_and_text_is_plain():
    out = run("intro\n\n## The `run` *step* {#run}\n")
    assert out["headings"] == [{"level": 2, "text": "The run step", "id": "run", "line": 6, "explicit": True}]
    assert out["diagnostics"] == []


def test_duplicate_explicit_id_is_reported_at_its_line():
    out = run("# A {#x}\n\n# B {#x}\n")
    assert [(d["code"], d["line"]) for d in out["diagnostics"]] == [("duplicate-heading-id", 6)]


def test_explicit_id_wins_over_an_earlier_slug():
    out = run("# Setup\n# Other {#setup}\n")
    assert [h["id"] for h in out["headings"]] == ["setup-1", "setup"]


def test_block_ids_are_listed_without_their_caret_and_only_the_body_s():
    front = "---\ntitle: T\nreferences:\n  - id: r\n    text: A source ^not-a-block\n---\n"
    out = run("Para. ^p1\n\n- item ^li\n\n| a |\n|---|\n| b |\n\n^table\n\n`^code`\n", front=front)
    assert out["blocks"] == ["p1", "li", "table"]
