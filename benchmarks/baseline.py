"""The yardstick of issue 6: a plain single-process markdown-it-py render of a folder.

    python benchmarks/baseline.py WIKI_DIR

Reads every Markdown file, splits off the frontmatter with python-frontmatter,
renders the body with markdown-it-py (CommonMark plus tables) and does
nothing else: no links, no templates, no writes. Prints files and seconds.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import frontmatter
from markdown_it import MarkdownIt


def render_all(root: Path) -> tuple[int, float]:
    md = MarkdownIt("commonmark").enable("table")
    started = time.perf_counter()
    count = 0
    for path in sorted(root.rglob("*.md")):
        post = frontmatter.loads(path.read_text(encoding="utf-8"))
        md.render(post.content)
        count += 1
    return count, time.perf_counter() - started


if __name__ == "__main__":
    files, seconds = render_all(Path(sys.argv[1]))
    print(f"{files} files rendered in {seconds:.2f}s")
