"""Rendering a parse before its links are resolved, and rendering the links afterwards.

An article is parsed before the wikilinks pass knows where its links go. So
the links pass renders that parse with every wikilink, every Markdown link
destination and every embed left as a numbered hole (`held.HOLE`), and the
html pass fills the holes with what `fills` renders from the resolution: the
page is parsed once, not once per round. `held.fill(template, fills(...))`
is the HTML `render_with_embeds` gives, for a page without embeds (an
embed's body is rendered where it is embedded, so a page with one is
rendered whole by the html pass).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.markdown.headings import permalink_label
from pipeline.markdown.tags import tag_href
from pipeline.markdown.wikilinks import anchor, attachment, escape_html, page_href
from pipeline.storage.text_refs import HOLE

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


class Slots:
    """The slots of one rendering, in the order they were left: `env["slots"]` while rendering."""

    def __init__(self) -> None:
        self.entries: list[dict] = []

    def add(self, entry: dict) -> str:
        self.entries.append(entry)
        return f"{HOLE}{len(self.entries) - 1}{HOLE}"


def render_slotted(md: MarkdownIt, tokens: list, env: dict) -> tuple[str, list[dict]]:
    """(HTML with holes, what each hole stands for) of parsed `tokens`; `env` is the parse's, left unchanged."""
    slots = Slots()
    html = md.renderer.render(tokens, md.options, {**env, "slots": slots})
    return html, slots.entries


def has_embeds(slots: list[dict]) -> bool:
    return any("embed" in entry for entry in slots)


def fills(slots: list[dict], options, env: dict) -> list[str]:
    """Each slot as `render_with_embeds` renders it with `env` (links, hrefs, lang): what fills its hole."""
    return [
        anchor(slot["link"], slot["inner"], options, env) if "link" in slot
        else attachment(slot["media"], options, env) if "media" in slot
        else permalink_label(env.get("lang")) if "permalink_label" in slot
        else escape_html(tag_href(slot["tag"], options, env)) if "tag" in slot
        else escape_html(page_href(slot["href"], options, env))
        for slot in slots
    ]  # fmt: skip
