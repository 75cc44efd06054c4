"""links pass: every wikilink with its file position, none from code; fixture files."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from pipeline.inline import run_inline
from pipeline.passes import links
from pipeline.passes.registry import spec_of

FIXTURES = Path(__file__).parent / "fixtures" / "links"


def run(files: dict) -> dict:
    return run_inline(files, specs=[spec_of(links)])["links"]


@pytest.mark.parametrize("line,title,text,expected", read_fixture_file(FIXTURES / "links.md"), ids=lambda v: str(v)[:30])
def test_fixture(line, title, text, expected):
    found = run({"a.md": text})["a.md"]["links"]
    rows = [
        f"{k['line']} {k['col']} {k['target']} {k['fragment']} {str(k['label']).replace(chr(10), chr(92) + 'n')} {k['embed']}\n"
        for k in found
    ]
    assert "".join(rows) == expected


def test_positions_are_in_the_file_after_frontmatter():
    text = "---\ntitle: T\n---\nx [[a]]\n"
    (link,) = run({"a.md": text})["a.md"]["links"]
    assert (link["line"], link["col"], link["raw"]) == (4, 3, "[[a]]")
    assert text.split("\n")[link["line"] - 1][link["col"] - 1 :].startswith(link["raw"])


def test_real_wiki_bash_tests_are_not_links(pointsav):
    path = "infrastructure/spot-vm-lifecycle-kill-switch.md"
    text = (pointsav / path).read_text(encoding="utf-8")
    assert 'if [[ -e "$KILL_SWITCH" ]]; then' in text
    found = run({path: text})[path]["links"]
    assert found, "the article has real links too"
    assert not [k for k in found if "KILL_SWITCH" in k["raw"]]
