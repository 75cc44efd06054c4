"""Rendering a parse before its links are resolved, and rendering the links afterwards.

An article is parsed before the wikilinks pass knows where its links go. So
the links pass renders that parse with every wikilink, every Markdown link
destination and every embed left as a numbered hole (`text_refs.HOLE`), and the
html pass fills the holes with what `fills` renders from the resolution: the
page is parsed once, not once per round. `text_refs.fill(template, fills(...))`
is the HTML `render_with_embeds` gives. An embed's hole is filled with the
embedded body rendered where it is embedded (`embed_fills`): from that body's
own rendering with holes, filled the same way, where the html pass has one
to use (a whole note without footnotes), else by rendering the body given.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from pipeline.markdown.headings import permalink_label
from pipeline.markdown.tags import tag_href
from pipeline.markdown.wikilinks import (
    Embedded, anchor, attachment, embed_block, embed_notice, escape_html, inner_env, missing_embed, page_href,
    render_with_embeds,
)  # fmt: skip
from pipeline.storage.text_refs import HOLE, fill

if TYPE_CHECKING:
    from markdown_it import MarkdownIt


class Slots:
    """The slots of one rendering, in the order they were left: `env["slots"]` while rendering."""

    def __init__(self) -> None:
        self.entries: list[dict] = []
        self.shared: dict[str, str] = {}  # name -> the hole of a slot every use of that name shares

    def add(self, entry: dict) -> str:
        self.entries.append(entry)
        return f"{HOLE}{len(self.entries) - 1}{HOLE}"

    def add_shared(self, entry: dict) -> str:
        """The hole of `entry` (a dict of one key), left once in the rendering: each use of it is filled alike."""
        name = next(iter(entry))
        if name not in self.shared:
            self.shared[name] = self.add(entry)
        return self.shared[name]


def render_slotted(md: MarkdownIt, tokens: list, env: dict) -> tuple[str, list[dict]]:
    """(HTML with holes, what each hole stands for) of parsed `tokens`; `env` is the parse's, left unchanged."""
    slots = Slots()
    html = md.renderer.render(tokens, md.options, {**env, "slots": slots})
    return html, slots.entries


def fills(slots: list[dict], options, env: dict, embedded: Callable[[dict], str] | None = None) -> list[str]:
    """Each slot as `render_with_embeds` renders it with `env` (links, hrefs, lang): what fills its hole; an embed's
    as `embedded` makes it (`embed_fills`)."""
    return [
        embedded(slot) if "embed" in slot
        else anchor(slot["link"], slot["inner"], options, env) if "link" in slot
        else attachment(slot["media"], options, env) if "media" in slot
        else permalink_label(env.get("lang")) if "permalink_label" in slot
        else escape_html(tag_href(slot["tag"], options, env)) if "tag" in slot
        else escape_html(page_href(slot["href"], options, env))
        for slot in slots
    ]  # fmt: skip


Fetch = Callable[[dict], "Embedded | None"]


def embed_fills(
    md: MarkdownIt, slots: list[dict], env: dict, fetch: Fetch, depth: int, stack: tuple[str, ...]
) -> list[str]:
    """`fills` of a rendering with embeds, as `render_with_embeds(md, body, env, fetch, depth)` renders them, the
    rendered body's identity last in `stack`: each embed fetched once, in order (an embedded body's own embeds
    before the next: `fetch` numbers their footnotes), cycle-safe and at most `depth` deep."""
    done: dict[str, str] = {}

    def embedded(slot: dict) -> str:
        if slot["embed"] not in done:
            done[slot["embed"]] = _embed_fill(md, slot, env, fetch, depth, stack)
        return done[slot["embed"]]

    return fills(slots, md.options, env, embedded)


def _embed_fill(md: MarkdownIt, slot: dict, env: dict, fetch: Fetch, depth: int, stack: tuple[str, ...]) -> str:
    """What fills an embed's hole: the body `fetch` gives, rendered (a link where it gives none)."""
    found = fetch(slot["link"])
    if found is None:
        return missing_embed(slot["link"], slot["inner"], md.options, env)
    html = embed_notice(slot["embed"], found, depth, stack)
    if html is None and found.rendered is not None:
        template, slots = found.rendered
        inner = embed_fills(md, slots, inner_env(env, found), fetch, depth - 1, (*stack, found.identity))
        html = str(fill(template, inner))
    elif html is None:
        html = render_with_embeds(md, found.body, inner_env(env, found), fetch, depth - 1, found.identity, stack)
    return embed_block(slot["embed"], html)
