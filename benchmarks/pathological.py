"""Hostile Markdown: the time to process one article made of one pathological line, at 1x and 4x its size.

    python benchmarks/pathological.py [--size 250000] [--kinds wikilinks,brackets] [--build] [--once]

Each kind repeats a snippet on one line up to `--size` bytes (10 MB:
`--size 10000000`) and times every pass over that article, in process, as
a worker runs them (`pipeline.inline`), then the same at four times the
size. Work linear in the size shows a ratio near 4; the issue that asked
for this found 100,000 wikilinks taking minutes (a ratio near 16). With
`--build`, a whole `pipeline build` (capture, store, site, no search index)
of a folder holding that article is timed instead; with `--once`, at
`--size` only. The issue's goal, a 10 MB line of wikilinks or of `[`
built in under 10 s, is timed by

    python benchmarks/pathological.py --size 10000000 --build --once --kinds wikilinks,brackets

Never run by CI; a small run is part of the tests.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from pathlib import Path

from pipeline.config import Config
from pipeline.inline import run_inline

SNIPPETS = {
    "wikilinks": "[[a]] ",  # each a link to resolve and render
    "brackets": "[",
    "open-wikilinks": "[[",
    "wikilink-pipes-in-table": "| [[a|b]] ",
    "backticks": "`",
    "code-spans": "`a` ",
    "footnote-markers": "[^1] ",
    "numeric-markers": "[1] ",
    "links": "[a](b) ",
    "embeds": "![[b]] ",  # each the other article's body, rendered in place
    "images": "![a](b.png) ",
    "autolinks": "<https://a.example> ",
    "emphasis": "*a _b ",
    "nested-quotes": "> ",
    "nested-lists": "- ",
}


def body(kind: str, size: int) -> str:
    snippet = SNIPPETS[kind]
    return "# Title\n\n" + snippet * max(1, size // len(snippet)) + "\n"


def time_passes(text: str) -> float:
    started = time.perf_counter()
    run_inline({"a.md": text, "b.md": "# B\n"})
    return time.perf_counter() - started


def time_build(text: str) -> float:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "content").mkdir()
        (root / "content" / "a.md").write_text(text, encoding="utf-8")
        (root / "content" / "b.md").write_text("# B\n", encoding="utf-8")  # what links and embeds find
        from pipeline.build import build  # the build loads more than the passes need

        config = Config(content_dir=root / "content", state_dir=root / "state", out_dir=root / "site", search=False)
        started = time.perf_counter()
        build(config, site=True)
        return time.perf_counter() - started


def measure(
    kinds: list[str], size: int, whole_build: bool = False, once: bool = False
) -> list[tuple[str, float, float | None]]:
    """(kind, seconds at `size`, seconds at 4 x `size` or None with `once`) for each kind."""
    timer = time_build if whole_build else time_passes
    return [
        (kind, _uncollected(timer, body(kind, size)), None if once else _uncollected(timer, body(kind, 4 * size)))
        for kind in kinds
    ]


def _uncollected(timer, text: str) -> float:
    """`timer(text)` without the cyclic garbage collector, as the command line runs (`lifespan.short_lived`):
    its passes over millions of tokens would add time that grows faster than the text."""
    gc.collect()
    gc.disable()
    try:
        return timer(text)
    finally:
        gc.enable()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=250_000, help="bytes of the line at 1x")
    parser.add_argument("--kinds", default=",".join(SNIPPETS), help="comma-separated: " + ", ".join(SNIPPETS))
    parser.add_argument("--build", action="store_true", help="time a whole build, not the passes alone")
    parser.add_argument("--once", action="store_true", help="time at --size only, not at 4x")
    args = parser.parse_args(argv)
    kinds = [kind for kind in args.kinds.split(",") if kind]
    unknown = set(kinds) - set(SNIPPETS)
    if unknown:
        parser.error(f"unknown kind(s): {', '.join(sorted(unknown))}")
    print(f"{'kind':26} {args.size:>11,} B" + ("" if args.once else f" {4 * args.size:>11,} B  ratio"))
    for kind, once, four in measure(kinds, args.size, args.build, args.once):
        four_text = "" if four is None else f" {four:12.2f}s  {four / max(once, 1e-6):5.1f}"
        print(f"{kind:26} {once:12.2f}s{four_text}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
