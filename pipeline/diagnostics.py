"""Diagnostics of a processed wiki: gathered from pass results, sorted, formatted.

Formats: `text` (`path:line:col: severity: code: message`), `json` (one
object per line) and `github` (workflow commands that annotate the diff).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path, PurePath
from typing import Iterable, NamedTuple

from pipeline.passes.base import Wiki, diagnostics_of

FORMATS = ("text", "json", "github")
GITHUB_LEVEL = {"error": "error", "warning": "warning", "info": "notice"}
# Workflow commands end at a line break and split properties at `,` and `::`, so a path or message from
# the content folder (a file name may hold any of these) is escaped as GitHub's runner unescapes it.
GITHUB_MESSAGE_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A"})
GITHUB_PROPERTY_ESCAPES = str.maketrans({"%": "%25", "\r": "%0D", "\n": "%0A", ":": "%3A", ",": "%2C"})
# Text is one line per diagnostic as well: GitHub's runner reads workflow commands from any output line.
LINE_BREAK_ESCAPES = str.maketrans({"\r": "%0D", "\n": "%0A"})


class Diagnostic(NamedTuple):
    """One finding: where (path, 1-based line and column), how bad (`error`, `warning`, `info`), what.

    A named tuple rather than a dataclass: a build of a big wiki with mention suggestions lists
    a great many, and tuples are made, hashed and ordered (by their fields, in order) in C:
    collecting them as frozen dataclasses took twice as long.
    """

    path: str
    line: int
    col: int
    severity: str
    code: str
    message: str


def collect(
    wiki: Wiki, problems: list[tuple[str, int, str]] = (), failures: list[tuple[str, str, str]] = (),
    notices: list[tuple[str, str, str]] = (),
):
    """Every diagnostic of the current captures, plus data-file problems, failed jobs and capture notices, sorted."""
    paths = {article.capture_id: article.path for article in wiki.articles}
    return listed((found for outputs in wiki.results.values() for found in diagnostics_of(outputs)), paths,
                  problems, failures, notices)  # fmt: skip


def listed(
    reports: Iterable[tuple[int, list]], paths: dict[int, str], problems: list[tuple[str, int, str]],
    failures: list[tuple[str, str, str]], notices: list[tuple[str, str, str]] = (),
) -> list[Diagnostic]:
    """The diagnostics of `reports` (capture id, diagnostics as results hold them), of the captures at `paths`
    (capture id -> path), plus data-file problems, failed jobs and the capture's notices (path, code, message:
    `skipped-file`, `not-utf8-name`), sorted, each once."""
    found = []
    for capture_id, diagnostics in reports:
        path = paths[capture_id]
        found += [Diagnostic(path, d["line"], d["col"], d["severity"], d["code"], d["message"]) for d in diagnostics]
    found += [Diagnostic(path, line, 1, "error", "data-error", message) for path, line, message in problems]
    found += [Diagnostic(path, 1, 1, "error", "job-failed", f"pass {name} failed: {error}")
              for path, name, error in failures]  # fmt: skip
    found += [Diagnostic(path, 1, 1, "warning", code, message) for path, code, message in notices]
    # Sorted, then each kept once: each pass's come in the order of its results (by path, mostly), runs
    # that a sort merges almost for free, where a set to drop repeats first
    # scrambled them (and the sort took ten times as long).
    return list(dict.fromkeys(sorted(found)))


def default_format() -> str:
    """GitHub annotations when running in GitHub Actions, plain text elsewhere."""
    return "github" if os.environ.get("GITHUB_ACTIONS") == "true" else "text"


def emit(diagnostics: list[Diagnostic], style: str, content_dir: Path, stream=None) -> None:
    """Print each diagnostic with its path as the user named the content folder.

    In one write: a big wiki reports thousands, and an unbuffered stream would
    make each line a system call (a tenth of a build that has nothing to do).
    """
    folder = str(PurePath(content_dir))
    prefix = "" if folder == "." else folder.rstrip("/") + "/"
    lines = [
        format_one(d._replace(path=prefix + d.path), style) + "\n"
        for d in diagnostics
    ]
    (stream or sys.stdout).write("".join(lines))


def exit_status(diagnostics: list[Diagnostic], strict: bool) -> int:
    return 1 if strict and fails_strict(diagnostics) else 0


def fails_strict(diagnostics: list[Diagnostic]) -> bool:
    return any(d.severity in ("error", "warning") for d in diagnostics)


def format_one(d: Diagnostic, style: str) -> str:
    if style == "json":
        return json.dumps(d._asdict(), ensure_ascii=False)
    if style == "github":
        message = f"{d.code}: {d.message}".translate(GITHUB_MESSAGE_ESCAPES)
        path = d.path.translate(GITHUB_PROPERTY_ESCAPES)
        return f"::{GITHUB_LEVEL[d.severity]} file={path},line={d.line},col={d.col}::{message}"
    line = f"{d.path}:{d.line}:{d.col}: {d.severity}: {d.code}: {d.message}"
    return line.translate(LINE_BREAK_ESCAPES) if "\n" in line or "\r" in line else line


def summary(diagnostics: list[Diagnostic], unlisted_info: int = 0) -> str:
    """Counts by severity, of `diagnostics` and of the info ones counted but not listed."""
    counts = {s: sum(d.severity == s for d in diagnostics) for s in ("error", "warning", "info")}
    return f"{counts['error']} error(s), {counts['warning']} warning(s), {counts['info'] + unlisted_info} info"


def listed_for(diagnostics: list[Diagnostic], info: bool) -> tuple[list[Diagnostic], int]:
    """The diagnostics a report lists (all, with `info`; else those not info), and how many it leaves out."""
    if info:
        return diagnostics, 0
    kept = [d for d in diagnostics if d.severity != "info"]
    return kept, len(diagnostics) - len(kept)
