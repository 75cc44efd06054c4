"""links: every `[[wikilink]]`, `![[embed]]` and internal Markdown link of an article,
and the article's HTML with a hole where each of them goes.

Links in code spans, code blocks and fences are not links. Lines and
columns are 1-based positions in the file of the link's `[[` (or `![[`, or
the `(` before a Markdown link's destination); `raw` is the link's source
text as the parser saw it. A Markdown link is *internal* when its
destination has no scheme and names a page (`other.md`, `../guide/`,
`/section/`), as MkDocs checks them; images and other files are not pages.
Resolution is the wikilinks pass's job.

The body is parsed here once, with its references appended as footnotes
(`markdown.footnotes`, the parse the headings and citations passes share),
and rendered while the parse is at hand: every wikilink, Markdown link
destination and embed is left as a hole (`markdown.slots`) that the html
pass fills once links are resolved, so no page is parsed twice. The HTML
and the holes are lazy fields, read from the store by the html pass's
worker. Besides its capture, the pass reads the `citations.yaml` entries
the article cites (footnotes too) and the `raw_html` option (which changes
the parse: a wiki with it set parses once more for the HTML).

Output: `links`; `html` (with holes), `slots` (what each hole stands for:
a link's target, fragment, place and label HTML, a Markdown link's
destination, or an embed), `definitions` (the `[id, text, url]` of each
reference appended as a footnote), `prose` (the body's running text as
`[line, start, end]` pieces, `passes/prose.py`, for the mentions pass: found
from this parse, so that pass parses nothing; a body with `<` in it is
parsed again for them with raw HTML seen, unless `raw_html` is set) and
`words` (every folded word of that prose, space-separated: the mentions
pass's select keeps of a title index only the names the prose could hold,
so a new title re-runs the mentions jobs of the articles whose prose has
its words, not of every article). Diagnostics: `nesting-too-deep`, where
blocks nest past markdown-it's limit and the rest is kept as text, and
`too-many-links`, where the article holds more links, embeds and images
than a parse makes and the rest are kept as text (`markdown.limits`).
"""

from __future__ import annotations

import re
from urllib.parse import unquote

from pipeline.content.article import Article
from pipeline.markdown import make_parser
from pipeline.markdown.footnotes import definition_lines, in_body, parse_article
from pipeline.markdown.limits import MAX_LINKS, TOO_DEEP, TOO_MANY
from pipeline.markdown.slots import render_slotted
from pipeline.markdown.wikilinks import LINK_TYPES
from pipeline.passes import citations
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Wiki, diagnostic
from pipeline.passes.contract import Incremental, Pass
from pipeline.passes.names import words_read
from pipeline.passes.prose import block_tokens, pieces_of
from pipeline.passes.prose import parser as prose_parser
from pipeline.urls import is_attachment

LINK_SCHEMA = {
    "type": "object",
    "required": ["target", "fragment", "label", "embed", "line", "col", "raw"],
    "properties": {
        "target": {"type": "string"},
        "fragment": {"type": ["string", "null"]},
        "label": {"type": ["string", "null"]},
        "embed": {"type": "boolean"},
        "line": {"type": "integer", "minimum": 1},
        "col": {"type": "integer", "minimum": 1},
        "raw": {"type": "string", "minLength": 3},
        "kind": {"enum": ["wikilink", "markdown"]},
    },
}
CONTRACT = {
    "type": "object",
    "required": ["links", "html", "slots", "definitions", "prose", "words", "diagnostics"],
    "properties": {
        "links": {"type": "array", "items": LINK_SCHEMA},
        "html": {"type": "string"},
        "slots": {"type": "array", "items": {"type": "object"}},
        "definitions": {"type": "array", "items": {"type": "array", "minItems": 3, "maxItems": 3}},
        "prose": {"type": "array", "items": {"type": "array", "minItems": 3, "maxItems": 3}},
        "words": {"type": "string"},
        "diagnostics": DIAGNOSTICS_SCHEMA,
    },
}
FIELDS = ("target", "fragment", "label", "embed", "col", "raw")
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def select(article: Article, wiki: Wiki) -> dict:
    return {"raw_html": bool(wiki.options.get("raw_html")), **citations.select(article, wiki)}  # registry, markdown


def run(article: Article, inputs: dict) -> dict:
    body, registry, raw_html = article.body, inputs["registry"]["entries"], inputs["raw_html"]
    markdown = inputs.get("markdown", "")
    tokens, env, appended = parse_article(body, article.frontmatter, registry, markdown=markdown)
    links = extract_links(in_body(tokens, body), body, article.body_line)
    if raw_html:
        tokens, env, appended = parse_article(body, article.frontmatter, registry, True, markdown)
    html, slots = render_slotted(make_parser(raw_html=raw_html, markdown=markdown), tokens, env)
    # The parse at hand saw raw HTML as prose needs it when it was set, or when there is none.
    seen = (tokens, env) if raw_html or "<" not in body else _html_seen(body, appended, markdown)
    prose = _prose_of(body, *seen)
    lines = body.split("\n")
    words = " ".join(sorted(words_read(lines[line][start:end] for line, start, end in prose)))
    return {"links": links, "html": html, "slots": slots, "definitions": keys(appended), "prose": prose,
            "words": words, "diagnostics": limits_reached(env, article.body_line, len(lines))}  # fmt: skip


def limits_reached(env: dict, body_line: int, body_lines: int) -> list[dict]:
    """`nesting-too-deep` where the parse kept blocks nested past markdown-it's limit as text, and
    `too-many-links` where it kept the links past `MAX_LINKS` as text."""

    def file_line(line: int) -> int:
        return body_line + min(line, body_lines - 1)

    found = [diagnostic("nesting-too-deep", "blocks nested too deep (quotes, lists): the rest of this block is "
                        "shown as plain text", file_line(line)) for line in env.get(TOO_DEEP, [])]
    if TOO_MANY in env:
        found.append(diagnostic("too-many-links", f"more than {MAX_LINKS:,} links, embeds and images in this article: "
                                "from here on they are shown as plain text", file_line(env[TOO_MANY])))
    return found


def _prose_of(body: str, tokens: list, env: dict) -> list[list[int]]:
    """The body's prose pieces as `[line, start, end]`, from a parse that saw raw HTML as HTML."""
    return [[piece.line, piece.start, piece.end] for piece in pieces_of(in_body(tokens, body), body, env)]


def _html_seen(body: str, appended: list[dict], markdown: str) -> tuple[list, dict]:
    """Block tokens and env of the body with its references, raw HTML taken as HTML (as prose needs)."""
    env: dict = {}
    return block_tokens(prose_parser(markdown), body + definition_lines(appended), env), env


def keys(references: list[dict]) -> list[list]:
    """What of each appended reference its footnote shows, in one order whatever order the references came in."""
    return sorted([ref["id"], " ".join(ref["text"].split()), ref["url"]] for ref in references)


def extract_links(tokens: list, body: str, body_line: int = 1) -> list[dict]:
    """The links of `body` (parsed as `tokens`) in source order, with file lines for a body starting at `body_line`."""
    links = []
    lines = body.split("\n")
    for token in tokens:
        searched_from: dict[str, tuple[int, int]] = {}
        for child in token.children or ():
            if child.type in LINK_TYPES:
                link = {name: child.meta[name] for name in FIELDS}
                link["line"] = child.meta["line"] + body_line - 1
                links.append({**link, "kind": "wikilink"})
            elif child.type == "link_open" and is_internal(child.attrGet("href") or ""):
                links.append(_markdown_link(child.attrGet("href"), token.map, lines, body_line, searched_from))
            elif child.type == "image" and is_internal(child.attrGet("src") or ""):  # an image of the wiki's files
                image = _markdown_link(child.attrGet("src"), token.map, lines, body_line, searched_from)
                links.append({**image, "embed": True, "col": max(1, image["col"] - 1)})  # at its `![`
    return links


def is_internal(href: str) -> bool:
    """A destination that names a page or a file of this wiki (not a URL or an anchor)."""
    if not href or SCHEME.match(href) or href.startswith(("#", "//")):
        return False
    path = href.split("#", 1)[0].split("?", 1)[0]
    last = path.rstrip("/").rsplit("/", 1)[-1]
    return path.endswith("/") or last.lower().endswith(".md") or "." not in last or is_attachment(unquote(path))


def _markdown_link(href: str, block_map, lines: list[str], body_line: int, searched_from: dict) -> dict:
    """A Markdown link as a link record, placed at the `[` that opens it in the block's source lines (found
    from its `](destination`, written as the parser read it, percent-encoded, or in `<...>`)."""
    path, _, fragment = unquote(href).partition("#")
    needles = list(dict.fromkeys(("](" + href, "](" + unquote(href), "](<" + unquote(href))))
    first, last = block_map or (0, len(lines))
    line, col = searched_from.get(href, (first, 0))
    for index in range(line, min(last, len(lines))):
        begin = col if index == line else 0
        starts = [found for found in (_find_destination(lines[index], needle, begin) for needle in needles) if found >= 0]
        if starts:
            searched_from[href] = (index, min(starts) + 1)
            line, col = index, _opening(lines[index], min(starts))
            break
    else:
        line, col = first, 0
    return {"target": path, "fragment": fragment or None, "label": None, "embed": False,
            "line": line + body_line, "col": col + 1, "raw": f"({href})", "kind": "markdown"}  # fmt: skip


def _opening(line: str, close: int) -> int:
    """Where the `[` whose `]` is at `close` is (nested brackets counted); `close` when it is on another line."""
    depth = 0
    for index in range(close, -1, -1):
        char = line[index]
        if index and line[index - 1] == "\\":
            continue
        depth += char == "]"
        depth -= char == "["
        if depth == 0:
            return index
    return close


def _find_destination(line: str, needle: str, start: int) -> int:
    """Where `](destination` is in `line`, not as the start of a longer destination (`](/` in `](/guide/)`)."""
    found = line.find(needle, start)
    while found >= 0 and line[found + len(needle) : found + len(needle) + 1] not in ("", ")", " ", "\t", '"', "'", ">"):
        found = line.find(needle, found + 1)
    return found


PASS = Pass(
    name="links",
    version=10,
    contract=CONTRACT,
    run=run,
    select=select,
    wiki_options=("raw_html",),
    # The HTML and its holes reach the html pass, and the prose the mentions pass, as references their workers
    # read, never through the main process.
    lazy_fields=("html", "slots", "prose"),
    incremental=Incremental(
        reads=("options", "data"),  # raw_html and the Markdown extensions; the citations.yaml entries an article cites are footnotes too
    ),
    contract_version=3,
)
