"""Proposed edits as unified diffs: hunks found by position, written as difflib and `git diff` write them."""

import difflib
import subprocess
from types import SimpleNamespace

import pytest

from pipeline.passes.edits import NO_NEWLINE, make_edit, unified_diff


def _difflib(path: str, before: list[str], after: list[str]) -> str:
    rows = difflib.unified_diff(before, after, f"a/{path}", f"b/{path}", n=3)
    return "".join(row if row.endswith("\n") else row + "\n" + NO_NEWLINE for row in rows)


def _lines(count: int, last_newline: bool = True) -> list[str]:
    lines = [f"Line {number} of the text.\n" for number in range(1, count + 1)]
    if not last_newline:
        lines[-1] = lines[-1].rstrip("\n")
    return lines


def _changed(lines: list[str], *indexes: int) -> list[str]:
    return [f"[[{line.rstrip(chr(10))}]]" + ("\n" if line.endswith("\n") else "") if i in indexes else line
            for i, line in enumerate(lines)]  # fmt: skip


@pytest.mark.parametrize(
    ("count", "indexes", "last_newline"),
    [
        (1, (0,), True),
        (1, (0,), False),  # the only line, without a newline
        (20, (0,), True),  # the first line: no context above
        (20, (19,), False),  # the last line, without a newline
        (20, (5, 6, 7), True),  # one run of changed lines
        (30, (5, 12), True),  # six lines apart: one hunk
        (30, (5, 13), True),  # seven lines apart: two hunks
        (30, (2, 10, 11, 25, 29), False),
        (5, (), True),  # nothing changed
    ],
)
def test_a_diff_of_distinct_lines_is_the_one_difflib_writes(count, indexes, last_newline):
    before = _lines(count, last_newline)
    after = _changed(before, *indexes)
    assert unified_diff("a b/c.md", before, after) == _difflib("a b/c.md", before, after)


def test_where_lines_repeat_the_diff_names_the_line_that_changed(tmp_path):
    before = ["Intro.\n", "Foo\n", "Foo\n", "Bar\n", "end"]
    after = ["Intro.\n", "[[Foo]]\n", "Foo\n", "[[Bar]]\n", "end"]
    diff = unified_diff("p.md", before, after)
    # difflib matches the edited line with its copy below, and writes an insertion and a deletion around it
    assert "+[[Foo]]\n Foo\n-Foo\n-Bar\n+[[Bar]]\n" in _difflib("p.md", before, after)
    assert " Intro.\n-Foo\n+[[Foo]]\n Foo\n-Bar\n+[[Bar]]\n end\n" in diff
    (tmp_path / "p.md").write_text("".join(before))
    (tmp_path / "e.diff").write_text(diff)
    subprocess.run(["git", "apply", "e.diff"], cwd=tmp_path, check=True, capture_output=True)
    assert (tmp_path / "p.md").read_text() == "".join(after)


def test_an_edit_of_a_file_is_its_diff_and_the_edited_texts_digest(tmp_path):
    text = "".join(_lines(40)) + "Mentions Foo here.\n"
    article = SimpleNamespace(text=text, path="notes/p.md")
    edit = make_edit(article, [(3, 1, 5, "[[Line]]"), (41, 10, 13, "[[Foo]]")])
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "p.md").write_text(text)
    (tmp_path / "e.diff").write_text(edit["diff"])
    subprocess.run(["git", "apply", "e.diff"], cwd=tmp_path, check=True, capture_output=True)
    edited = (tmp_path / "notes" / "p.md").read_text()
    assert edited.splitlines()[2] == "[[Line]] 3 of the text." and edited.endswith("Mentions [[Foo]] here.\n")
    assert edit["diff"].count("@@ -") == 2 and not edit["applied"]
