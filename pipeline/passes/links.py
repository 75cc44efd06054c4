"""links: every `[[wikilink]]` and `![[embed]]` of an article, where it is in the file.

Links in code spans, code blocks and fences are not links. Lines and
columns are 1-based positions in the file of the link's `[[` (or `![[`);
`raw` is the link's source text as the parser saw it. Resolution is the
wikilinks pass's job; this pass reads only its capture.
"""

from __future__ import annotations

from pipeline.markdown import make_parser
from pipeline.markdown.wikilinks import LINK_TYPES
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Article

NAME = "links"
VERSION = 1
CONTRACT_VERSION = 1
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
        "raw": {"type": "string", "minLength": 4},
    },
}
CONTRACT = {
    "type": "object",
    "required": ["links", "diagnostics"],
    "properties": {"links": {"type": "array", "items": LINK_SCHEMA}, "diagnostics": DIAGNOSTICS_SCHEMA},
}
FIELDS = ("target", "fragment", "label", "embed", "col", "raw")


def run(article: Article, inputs: dict) -> dict:
    return {"links": extract_links(article.body, article.body_line), "diagnostics": []}


def extract_links(body: str, body_line: int = 1) -> list[dict]:
    """The links of `body` in source order, with file lines for a body starting at `body_line`."""
    links = []
    for token in make_parser().parse(body, {}):
        for child in token.children or ():
            if child.type in LINK_TYPES:
                link = {name: child.meta[name] for name in FIELDS}
                link["line"] = child.meta["line"] + body_line - 1
                links.append(link)
    return links
