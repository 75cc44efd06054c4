"""The Markdown dialect of the wiki, as one configured markdown-it-py parser.

CommonMark plus GFM tables and strikethrough, footnotes, task lists,
explicit heading ids (`## Title {#id}`), heading anchors and wikilinks. Raw
HTML is escaped unless `raw_html` is set; blocks nested too deep stay as text
(`limits.py`). Passes and the renderer share these parsers, so what a pass
extracts is what the page shows.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from pipeline.markdown.skips import SKIPS

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@lru_cache(maxsize=16)
def make_parser(*, raw_html: bool = False, base_url: str = "", default_language: str = "en") -> MarkdownIt:
    """The shared parser for one set of options (cached: build once, parse many).

    Callers must not change the returned parser; pass per-page data in `env`.
    """
    # markdown-it loads with the first parser, not with the passes: a build's own process parses nothing when
    # its jobs run beside it (worker.WorkBeside), and importing it was 50 ms of an edit build at 10k.
    from markdown_it import MarkdownIt
    from mdit_py_plugins.footnote import footnote_plugin
    from mdit_py_plugins.tasklists import tasklists_plugin

    from pipeline.markdown.headings import heading_ids_plugin
    from pipeline.markdown.limits import limits_plugin
    from pipeline.markdown.newlines import newlines_plugin
    from pipeline.markdown.skips import noting_skips
    from pipeline.markdown.wikilinks import wikilinks_plugin

    md = MarkdownIt("commonmark", {"html": raw_html})
    md.enable(["table", "strikethrough"])
    md.use(footnote_plugin).use(tasklists_plugin)
    md.use(wikilinks_plugin, base_url=base_url, default_language=default_language)
    md.use(heading_ids_plugin).use(newlines_plugin).use(limits_plugin)
    noting_skips(md)
    # URL normalization is pure and costly (a URL parse and re-encode each time), and a wiki
    # repeats its URLs: remember the last few thousand.
    for name in ("normalizeLink", "normalizeLinkText", "validateLink"):
        setattr(md, name, lru_cache(maxsize=4096)(getattr(md, name)))
    return md


@lru_cache(maxsize=16)
def parse(body: str, appended: str = "", raw_html: bool = False) -> tuple[list, dict]:
    """(tokens, env) of `body` + `appended` with the shared parser, cached for the passes of one article.

    A worker runs the passes of one article one after another (the planner
    orders jobs that way), so headings, links and citations share one
    parse (`footnotes.parse_article` appends the references). Callers must
    treat both as read-only.
    """
    env: dict = {SKIPS: {}}  # where inline rules took no prose, for the links pass (`skips.py`)
    return make_parser(raw_html=raw_html).parse(body + appended, env), env
