"""Frontmatter references as footnote definitions, parsed with the body they belong to.

A page shows `references:` entries (and `citations.yaml` entries named under
`cites:`) as footnotes: `[^id]: text <url>` lines appended to the body, so a
`[^id]` marker in the body becomes a numbered footnote. The article is parsed
once with them (`parse_article`), and every pass reading that parse keeps to
the body's own tokens (`in_body`): the headings, links and citation markers
the appended lines add are not the article's.
"""

from __future__ import annotations

import re

from pipeline.content.data_files import clean_text, entry_id  # one rule for references: and citations.yaml
from pipeline.markdown import parse


def reference(item) -> dict | None:
    """`{id, text, url}` of one `references:` item; None when it names no id."""
    ident = entry_id(item.get("id")) if isinstance(item, dict) else None
    if ident is None:
        return None
    text = clean_text(item.get("text")) or clean_text(item.get("title")) or ident
    return {"id": ident, "text": text, "url": clean_text(item.get("url"))}


def frontmatter_references(frontmatter: dict | None, registry: list[dict] = ()) -> list[dict]:
    """The references a page defines: its `references:` items, then `registry` entries; the first of an id wins."""
    items = (frontmatter or {}).get("references")
    found = [ref for ref in map(reference, items if isinstance(items, list) else []) if ref]
    by_id: dict[str, dict] = {}
    for ref in [*found, *registry]:
        by_id.setdefault(ref["id"], ref)
    return list(by_id.values())


def undefined(references: list[dict], body: str) -> list[dict]:
    """The references the body does not define itself (a `[^id]:` line of its own wins)."""
    kept = []
    for ref in references:
        marker = f"[^{ref['id']}]:"
        # The substring test first: scanning a whole body by regex cost more than rendering it.
        if not (marker in body and re.search(rf"^{re.escape(marker)}", body, re.MULTILINE)):
            kept.append(ref)
    return kept


def definition_lines(references: list[dict]) -> str:
    """`[^id]: text <url>` for each reference, after a blank line that ends whatever block the body ended in."""
    lines = [f"[^{ref['id']}]: {' '.join(ref['text'].split())}" + (f" <{ref['url']}>" if ref["url"] else "")
             for ref in references]  # fmt: skip
    return "\n\n" + "\n".join(lines) + "\n" if lines else ""


def definitions(references: list[dict], body: str) -> str:
    """Footnote definitions for the references the body does not define itself."""
    return definition_lines(undefined(references, body))


def parse_article(
    body: str, frontmatter: dict | None, registry: list[dict] = (), raw_html: bool = False, markdown: str = ""
) -> tuple[list, dict, list[dict]]:
    """(tokens, env, appended references) of `body` parsed with its references as footnotes
    (`markdown`: the wiki's extensions, see `extensions.setting`).

    Cached: the passes of one article that read the same references share one parse.
    """
    appended = undefined(frontmatter_references(frontmatter, registry), body)
    tokens, env = parse(body, definition_lines(appended), raw_html, markdown)
    return tokens, env, appended


def in_body(tokens: list, body: str) -> list:
    """The tokens of `body` itself, without those of the definitions appended to it."""
    lines = body.count("\n") + 1
    return [token for token in tokens if token.map is None or token.map[0] < lines]
