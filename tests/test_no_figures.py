"""No module in pipeline/ holds a benchmark figure: timings, sizes and ratios measured on benchmarks live in
docs/performance.md ("Figures that were in the code"), the reasons stay in the code in words."""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

PIPELINE = Path(__file__).resolve().parent.parent / "pipeline"

FIGURE = re.compile(
    r"\d[\d.,]*\s*(?:-|–)?\s*\d*[\d.,]*\s*(?:ms|µs|us|s|MB|GB|KB|kB)\b"  # a timing or a size
    r"|\d[\d.]*\s*(?:x|×)(?!\w)"  # a ratio
    r"|\bat \d+(?:[.,]\d+)?k\b"  # "at 10k"
    r"|\b\d{1,3}(?:,\d{3})+\b"  # a count such as 13,000 or 10,000
    r"|\b\d+k\b"  # a benchmark wiki's size, "a 10k wiki"
    r"|\d[\d.]*\s*%"  # a share
)
# Documented limits, settings and hostile inputs, not measurements: (file, text) pairs allowed on their line.
ALLOWED: set[tuple[str, str]] = {
    ("pipeline/runtime/safe_yaml.py", "100,000"),  # the nesting that crashes libyaml, why MAX_DEPTH exists
    ("pipeline/runtime/safe_yaml.py", "5,000"),  # an integer Python refuses to make
    ("pipeline/storage/store.py", "30 s"),  # the busy timeout the store sets
    ("pipeline/storage/store.py", "16 MB"),  # the cache size the store sets
}


def _prose(path: Path):
    """(line, text) of each comment and docstring of the module at `path`."""
    source = path.read_text()
    docstrings = set()
    for node in ast.walk(ast.parse(source)):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
            docstrings.add((body[0].lineno, body[0].col_offset))
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT or (token.type == tokenize.STRING and token.start in docstrings):
            for offset, text in enumerate(token.string.splitlines()):
                yield token.start[0] + offset, text


def figures() -> list[str]:
    found = []
    for path in sorted(PIPELINE.rglob("*.py")):
        rel = path.relative_to(PIPELINE.parent).as_posix()
        for line, text in _prose(path):
            for match in FIGURE.finditer(text):
                if (rel, match.group().strip()) not in ALLOWED:
                    found.append(f"{rel}:{line}: {match.group().strip()!r} in {text.strip()!r}")
    return found


def test_no_module_in_pipeline_holds_a_benchmark_figure():
    assert figures() == []


def test_the_patterns_find_benchmark_figures_and_pass_plain_prose():
    found = [FIGURE.search(text) for text in ("(56-70 ms -> 31-43 ms)", "13,000 a pass", "5.4 MB", "at 10k",
                                              "0.17x the time", "+57% on its folder", "2 us each")]
    assert all(found)
    assert not FIGURE.search("a build reads one per file, once, in a big wiki (HTTP 404)")
