"""The Markdown dialect of the wiki, as one configured markdown-it-py parser.

CommonMark plus the extensions of the table in `extensions.py`: by default
GFM tables and strikethrough, footnotes, task lists, `==highlight==`,
`%%comments%%` and `<!-- -->` dropped, callouts, wikilinks, explicit
heading ids (`## Title {#id}`) and heading anchors, Obsidian's block ids
(`^id`) and inline `#tags`, and the limits that keep
hostile text linear (`limits.py`); a wiki adds or turns off extensions with
`markdown:` in `wiki.yaml`. Raw HTML is escaped unless `raw_html` is set. Passes and the renderer share these parsers, so what a pass
extracts is what the page shows.
"""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from pipeline.markdown.comments import BODY_END
from pipeline.markdown.skips import SKIPS

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


@lru_cache(maxsize=16)
def make_parser(
    *, raw_html: bool = False, base_url: str = "", default_language: str = "en", markdown: str = ""
) -> MarkdownIt:
    """The shared parser for one set of options (cached: build once, parse many).

    `markdown` is the `markdown` option passes read (`extensions.setting`; "" for the default
    table). Callers must not change the returned parser; pass per-page data in `env`.
    """
    # markdown-it loads with the first parser, not with the passes: a build's own process may parse
    # nothing at all (its jobs can run in other processes).
    from markdown_it import MarkdownIt

    from pipeline.markdown.extensions import enabled
    from pipeline.markdown.newlines import newlines_plugin
    from pipeline.markdown.skips import noting_skips

    md = MarkdownIt("commonmark", {"html": raw_html})
    md.options["site"] = {"base_url": base_url, "default_language": default_language}
    for extension, options in enabled(markdown):
        extension.plugin(md, **options)
    md.use(newlines_plugin)
    noting_skips(md)  # after every extension: it notes what their inline rules took
    # URL normalization is pure and costly (a URL parse and re-encode each time), and a wiki
    # repeats its URLs: remember the last few thousand.
    for name in ("normalizeLink", "normalizeLinkText", "validateLink"):
        setattr(md, name, lru_cache(maxsize=4096)(getattr(md, name)))
    return md


def markdown_input(options: dict) -> dict:
    """What a pass that parses Markdown adds to its `select`: the `markdown` option (the extension table's
    text, `extensions.setting`), when the options name one."""
    markdown = options.get("markdown")
    return {"markdown": markdown} if markdown else {}


@lru_cache(maxsize=16)
def parse(body: str, appended: str = "", raw_html: bool = False, markdown: str = "") -> tuple[list, dict]:
    """(tokens, env) of `body` + `appended` with the shared parser, cached for the passes of one article.

    A worker runs the passes of one article one after another (the planner
    orders jobs that way), so headings, links and citations share one
    parse (`footnotes.parse_article` appends the references). Callers must
    treat both as read-only.
    """
    env: dict = {SKIPS: {}}  # where inline rules took no prose, for the links pass (`skips.py`)
    if appended:
        env[BODY_END] = body.count("\n") + 1  # a comment left open in the body hides none of `appended`
    return make_parser(raw_html=raw_html, markdown=markdown).parse(body + appended, env), env
