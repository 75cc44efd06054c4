"""Proposed edits to a source file, as unified diffs ready for `git apply`.

Passes that suggest a rewrite (canonical wikilinks, autolinked mentions)
describe it as replacements at file positions; `make_edit` turns them into
the `edit` object of their output: the diff against the captured text, the
sha256 of the edited text (so whoever applies it can check the result), and
whether the pass considers it applied.
"""

from __future__ import annotations

import hashlib
from typing import Iterable

NO_NEWLINE = "\\ No newline at end of file\n"
CONTEXT = 3  # lines of context around each change, as `diff -u` and `git diff` write

EDIT_SCHEMA = {
    "type": ["object", "null"],
    "required": ["diff", "edited_sha256", "applied"],
    "properties": {
        "diff": {"type": "string", "minLength": 1},
        "edited_sha256": {"type": "string", "pattern": "^[0-9a-f]{64}$"},
        "applied": {"type": "boolean"},
    },
}

Replacement = tuple[int, int, int, str]  # (file line, col, end col exclusive), 1-based, in characters


class EditError(ValueError):
    """Replacements that overlap or fall outside the text."""


def make_edit(article, replacements: Iterable[Replacement], applied: bool = False) -> dict | None:
    """The `edit` object for `replacements` in `article.text`, or None when nothing changes.

    Each replacement is (line, col, end_col, new_text): the characters
    `line[col-1 : end_col-1]` of the FILE (not the body) become `new_text`.
    Replacements on one line must not overlap; a replacement never spans lines.
    """
    text = getattr(article, "text", None)
    replacements = sorted(replacements)
    if text is None or not replacements:
        return None
    # Split on "\n" only: positions are counted in the file's "\n" lines, and str.splitlines
    # would also break on form feeds, U+2028 and the like.
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    if lines[-1] == "" and len(lines) > 1:
        lines.pop()
    edited = apply_replacements(lines, replacements)
    if edited == lines:
        return None
    return {
        "diff": unified_diff(article.path, lines, edited),
        "edited_sha256": hashlib.sha256("".join(edited).encode("utf-8")).hexdigest(),
        "applied": applied,
    }


def apply_replacements(lines: list[str], replacements: list[Replacement]) -> list[str]:
    """A copy of `lines` (with line endings) with the sorted `replacements` made."""
    edited = list(lines)
    by_line: dict[int, list[Replacement]] = {}
    for item in replacements:
        by_line.setdefault(item[0], []).append(item)
    for number, items in by_line.items():
        if not 1 <= number <= len(lines):
            raise EditError(f"line {number} is outside the text ({len(lines)} lines)")
        edited[number - 1] = _replace_in_line(lines[number - 1], items)
    return edited


def _replace_in_line(line: str, items: list[Replacement]) -> str:
    content = line.rstrip("\r\n")
    ending = line[len(content) :]
    previous_end = 1
    for _, col, end_col, _ in items:
        if col < previous_end or end_col < col or end_col - 1 > len(content):
            raise EditError(f"replacement at columns {col}-{end_col} overlaps another or leaves the line")
        previous_end = end_col
    # Right to left, so earlier columns stay valid.
    for _, col, end_col, new_text in reversed(items):
        content = content[: col - 1] + new_text + content[end_col - 1 :]
    return content + ending


def unified_diff(path: str, before: list[str], after: list[str]) -> str:
    """`git apply`-ready unified diff with a/ b/ prefixes, marking a last line without newline.

    `after` has as many lines as `before` (a replacement never spans lines), so the changed lines
    are found by position, and written as difflib writes them (three lines of context, a hunk
    per changes more than six lines apart). difflib matched every line with every other: a large
    part of a cold build's CPU when many articles get proposals; this takes a fraction of the time.
    """
    rows = []
    for group in _hunks(_changed_runs(before, after)):
        start, end = max(0, group[0][0] - CONTEXT), min(len(before), group[-1][1] + CONTEXT)
        rows.append(f"@@ -{_range(start, end)} +{_range(start, end)} @@\n")
        at = start
        for first, stop in group:
            rows += [" " + line for line in before[at:first]]
            rows += ["-" + line for line in before[first:stop]] + ["+" + line for line in after[first:stop]]
            at = stop
        rows += [" " + line for line in before[at:end]]
    if rows:
        rows = [f"--- a/{path}\n", f"+++ b/{path}\n", *rows]
    # Header rows always end with a newline; only a last content line may not.
    return "".join(row if row.endswith("\n") else row + "\n" + NO_NEWLINE for row in rows)


def _changed_runs(before: list[str], after: list[str]) -> list[tuple[int, int]]:
    """(first, stop) index ranges of consecutive lines that differ."""
    runs: list[tuple[int, int]] = []
    for index, (old, new) in enumerate(zip(before, after)):
        if old == new:
            continue
        if runs and runs[-1][1] == index:
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs


def _hunks(runs: list[tuple[int, int]]) -> list[list[tuple[int, int]]]:
    """The runs grouped into hunks: runs at most twice the context apart share one."""
    groups: list[list[tuple[int, int]]] = []
    for run in runs:
        if groups and run[0] - groups[-1][-1][1] <= 2 * CONTEXT:
            groups[-1].append(run)
        else:
            groups.append([run])
    return groups


def _range(start: int, end: int) -> str:
    """A hunk's range as unified diffs write it: first line (1-based) and count, the count left out when 1."""
    length = end - start
    return str(start + 1) if length == 1 else f"{start + 1},{length}"
