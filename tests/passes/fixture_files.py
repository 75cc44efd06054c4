"""Fixture files whose input is a small wiki (several files, data files, options), in markdown-it-py's style.

A fixture file holds cases; each is a title line, a `.` line, the input, a
`.` line, the expected output and a `.` line (`read_fixture_file`; lines
between cases other than a title are notes). The input is a wiki:

    options: pairing=suffix languages=[en,es]
    === guide.md
    ---
    title: Guide
    ---
    Text.
    === guide.es.md
    ...
    === redirects.yaml
    /old: /guide

- An optional first line `options: key=value ...` sets pass options, each
  value read as YAML (`raw_html=true`, `languages=[en,es]`).
- `=== path` starts a file (a path may hold spaces). Text before the first
  header, such as an input without any header, is the file `a.md`.
  `=== path encoding=latin-1` stores the file in that encoding, to write
  bytes that are not UTF-8. A file cannot hold a line starting `=== `.
- `=== <name>.yaml` is a data file of the content root, parsed and passed
  as `data[<name>]` (`redirects`, `citations`, `categories`); `=== facts.yaml`
  is passed as `facts` (`git_times`, `history`).

The expected part renders the pass output of the first file; or, when it
starts with `=== path` lines, of each file named, in that order. Only the
pass and the passes it needs run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import yaml
from markdown_it.utils import read_fixture_file

from pipeline.inline import run_inline
from pipeline.passes.registry import load_passes

HEADER = "=== "
OPTIONS = "options:"
DEFAULT_PATH = "a.md"
ATTRIBUTE = re.compile(r"\s+(\w+)=(\S+)$")


@dataclass(frozen=True)
class Case:
    """One fixture case: the wiki to build and what the expected part shows."""

    line: int
    title: str
    files: dict[str, str | bytes]
    expected: str
    options: dict = field(default_factory=dict)
    data: dict = field(default_factory=dict)
    facts: dict = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.line + 1}-{self.title[:40]}"


def read_cases(path: Path) -> list[Case]:
    """The cases of one fixture file."""
    return [parse_case(line, title, given, expected) for line, title, given, expected in read_fixture_file(path)]


def parse_case(line: int, title: str, given: str, expected: str) -> Case:
    options = {}
    first, _, rest = given.partition("\n")
    if first.startswith(OPTIONS):
        options = parse_options(first[len(OPTIONS) :])
        given = rest
    files, data, facts = {}, {}, {}
    for header, text in sections(given, DEFAULT_PATH):
        path, settings = header_attributes(header)
        if set(settings) - {"encoding"}:
            raise ValueError(f"line {line + 1}: unknown setting in '=== {header}'")
        if path == "facts.yaml":
            facts = yaml.safe_load(text) or {}
        elif path.endswith(".yaml"):
            data[path[: -len(".yaml")]] = yaml.safe_load(text)
        else:
            files[path] = text.encode(settings["encoding"]) if "encoding" in settings else text
    return Case(line, title, files, expected, options, data, facts)


def header_attributes(header: str) -> tuple[str, dict[str, str]]:
    """`path key=value ...` -> (path, {key: value}); a path may hold spaces."""
    settings = {}
    while match := ATTRIBUTE.search(header):
        settings[match[1]] = match[2]
        header = header[: match.start()]
    return header, settings


def parse_options(text: str) -> dict:
    """`key=value ...`, each value read as YAML."""
    return {key: yaml.safe_load(value) for key, value in (item.split("=", 1) for item in text.split())}


def sections(text: str, default: str) -> list[tuple[str, str]]:
    """(header, text) per `=== header` line; text before the first header is a section named `default`."""
    found: list[tuple[str, list[str]]] = [(default, [])]
    for line in text.splitlines(keepends=True):
        if line.startswith(HEADER):
            found.append((line[len(HEADER) :].strip(), []))
        else:
            found[-1][1].append(line)
    if not found[0][1] and len(found) > 1:
        found.pop(0)
    return [(header, "".join(lines)) for header, lines in found]


def shown_paths(case: Case) -> list[str] | None:
    """The files the expected part names with `=== path`, or None when it shows the first file only."""
    if not case.expected.startswith(HEADER):
        return None
    return [header for header, _ in sections(case.expected, DEFAULT_PATH)]


def outputs(case: Case, pass_name: str) -> dict[str, dict]:
    """path -> output of `pass_name` over the case's wiki (running only that pass and what it needs)."""
    specs = list(specs_for(pass_name))
    return run_inline(case.files, options=case.options, data=case.data, facts=case.facts, specs=specs)[pass_name]


@lru_cache(maxsize=None)
def specs_for(pass_name: str) -> tuple:
    """The built-in pass `pass_name` and the passes it needs, directly or not."""
    specs = {spec.name: spec for spec in load_passes(entry_points=False)}
    wanted, stack = set(), [pass_name]
    while stack:
        name = stack.pop()
        if name not in wanted:
            wanted.add(name)
            stack += specs[name].needs
    return tuple(spec for name, spec in specs.items() if name in wanted)


def render_case(case: Case, pass_name: str, render) -> str:
    """The case's actual output in the shape of its expected part, `render(output) -> str` per file."""
    found = outputs(case, pass_name)
    paths = shown_paths(case)
    if paths is None:
        return render(found[next(iter(case.files))])
    return "".join(f"{HEADER}{path}\n{render(found[path])}" for path in paths)
