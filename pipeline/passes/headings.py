"""headings: each article's headings with stable anchor ids.

An id is the GitHub slug of the heading's plain text (letters of any script
kept), de-duplicated with `-1`, `-2` suffixes; an explicit `{#id}` at the end
of the heading wins. The ids are what the table of contents and `#heading`
links use; the page renderer gets the same ids from the same parser. Reports
`duplicate-heading-id` when an explicit id is already taken (the heading
then gets a suffixed id). `blocks` are the article's block ids (`^id` at the
end of a block, `markdown/block_ids.py`), without their caret: what
`[[note#^id]]` links are checked against; `block_lines` the 0-based
[start, end) body lines of each (None: not known), what `![[note#^id]]` embeds.
"""

from __future__ import annotations

from pipeline.content.article import Article
from pipeline.markdown import markdown_input
from pipeline.markdown.footnotes import in_body, parse_article
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Wiki, diagnostic
from pipeline.passes.contract import Incremental, Pass

CONTRACT = {
    "type": "object",
    "required": ["headings", "diagnostics"],
    "properties": {
        "headings": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["level", "text", "id", "line", "explicit"],
                "properties": {
                    "level": {"type": "integer", "minimum": 1, "maximum": 6},
                    "text": {"type": "string"},
                    "id": {"type": "string", "minLength": 1},
                    "line": {"type": "integer", "minimum": 1},
                    "explicit": {"type": "boolean"},
                },
            },
        },
        "blocks": {"type": "array", "items": {"type": "string", "minLength": 1}},
        "block_lines": {
            "type": "array",
            "items": {
                "type": ["array", "null"], "items": {"type": "integer", "minimum": 0}, "minItems": 2, "maxItems": 2,
            },
        },
        "diagnostics": DIAGNOSTICS_SCHEMA,
    },
}


def select(article: Article, wiki: Wiki) -> dict:
    return markdown_input(wiki.options)


def run(article: Article, inputs: dict) -> dict:
    headings, blocks, block_lines, diagnostics = [], [], [], []
    tokens, _, _ = parse_article(article.body, article.frontmatter, markdown=inputs.get("markdown", ""))
    for token in in_body(tokens, article.body):
        if "block_id" in token.meta:
            blocks.append(token.meta["block_id"])
            block_lines.append(list(token.map) if token.map else None)
        if token.type != "heading_open":
            continue
        line = article.body_line + (token.map[0] if token.map else 0)
        meta = token.meta
        headings.append(
            {"level": int(token.tag[1]), "text": meta["text"], "id": meta["id"], "line": line, "explicit": meta["explicit"]}
        )
        if "duplicate_of" in meta:
            message = f"heading id '{meta['duplicate_of']}' is already used above; this heading gets '{meta['id']}'"
            diagnostics.append(diagnostic("duplicate-heading-id", message, line))
    return {"headings": headings, "blocks": blocks, "block_lines": block_lines, "diagnostics": diagnostics}


PASS = Pass(
    name="headings",
    version=4,
    contract=CONTRACT,
    run=run,
    select=select,
    incremental=Incremental(
        reads=("options",),  # the Markdown extensions, when a wiki changes them
    ),
)
