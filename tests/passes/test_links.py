"""links pass: every wikilink with its file position, none from code; fixture files."""

from __future__ import annotations

from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from pipeline.inline import run_inline
from pipeline.markdown.limits import MAX_LINKS
from pipeline.passes import links
from pipeline.passes.prose import prose_pieces
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


PROSE_BODIES = [
    "Plain Ring text.\n\nA `Ring` in code, [a ring](x.md), [[ring]] and <https://ring.example>.\n",
    "<div>\nRing in HTML\n</div>\n\nRing after <span>ring</span> inline.\n",
    "- item Ring\n  continued\n> quote ring\n\n| a | b |\n|---|---|\n| ring | x |\n\n```\nring\n```\n",
    "Setext Ring\n===\n\nAn &amp; entity, \\*escaped\\* Ring  \nand a hard break.\n",
]


@pytest.mark.parametrize("raw_html", [False, True])
@pytest.mark.parametrize("body", PROSE_BODIES, ids=range(len(PROSE_BODIES)))
def test_the_prose_found_from_the_parse_is_what_the_prose_module_finds(body, raw_html):
    """The mentions pass reads its prose from here: the same pieces, whether this parse saw raw HTML or not."""
    out = run_inline({"a.md": "---\ntitle: A\n---\n" + body}, specs=[spec_of(links)], options={"raw_html": raw_html})
    assert out["links"]["a.md"]["prose"] == [[p.line, p.start, p.end] for p in prose_pieces(body)]


def test_a_footnote_to_an_appended_reference_is_no_prose():
    front = "---\ntitle: A\nreferences:\n  - id: 1\n    text: A book\n---\n"
    out = run({"a.md": front + "Ring[^1] text.\n"})["a.md"]
    assert out["prose"] == [[0, 0, 4], [0, 8, 14]]


def test_blocks_nested_too_deep_are_reported_at_their_file_line_and_kept_in_the_page():
    text = "---\ntitle: T\n---\nintro\n\n" + "> " * 30 + "deep [[a]]\n\nafter\n"
    output = run({"a.md": text})["a.md"]
    (found,) = output["diagnostics"]
    assert (found["code"], found["severity"], found["line"]) == ("nesting-too-deep", "warning", 6)
    assert "deep [[a]]" in output["html"] and "<p>after</p>" in output["html"]  # shown as text, not lost
    assert run({"a.md": "> " * 10 + "fine\n"})["a.md"]["diagnostics"] == []


def test_links_past_the_limit_are_text_and_reported_once_at_the_file_line_of_the_first():
    names = [f"p{number}" for number in range(MAX_LINKS + 50)]
    rows = [" ".join(f"[[{name}]]" for name in names[start : start + 1000]) for start in range(0, len(names), 1000)]
    text = "---\ntitle: T\n---\nintro\n\n" + "\n".join(rows) + "\n\n`x` *after*\n"
    output = run({"a.md": text})["a.md"]
    assert [link["target"] for link in output["links"]] == names[:MAX_LINKS]
    ((code, line, message),) = [(found["code"], found["line"], found["message"]) for found in output["diagnostics"]]
    assert (code, line) == ("too-many-links", 6 + MAX_LINKS // 1000) and f"{MAX_LINKS:,}" in message
    assert rows[-1] in output["html"] and "<code>x</code> <em>after</em>" in output["html"]
    assert run({"a.md": "[[a]] " * 100})["a.md"]["diagnostics"] == []
