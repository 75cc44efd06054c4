"""A markdown-it-py plugin for `[[wikilinks]]` and `![[embeds]]`.

Syntax: `[[target]]`, `[[target|label]]`, `[[target#heading]]`,
`[[target#heading|label]]`, `[[#heading]]` (same page), `[[folder/target]]`;
a label may wrap onto the next line; `![[target]]` embeds the target's body.
The rule runs only on inline content, so code blocks and fences never hold
links, and a code span wins over a link it overlaps, as in CommonMark.

Each link becomes a `wikilink` (or `wikilink_embed`) token whose `meta` holds
target, fragment, label, embed, raw (the source text of the link) and line and
col: the 1-based position of its `[[` (or `![[`) in the text given to the
parser (`positions.py`). Rendering reads `env["wikilinks"]`, keyed by (line, col), with the
resolution the wikilinks pass computed (`link_env` builds it), and
`env["embeds"]`, keyed by `embed_key`, with the HTML of each embedded body
(`render_with_embeds` builds it, cycle-safe and depth-limited).
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from pipeline.markdown.comments import BODY_END
from pipeline.markdown.embeds import embed_blocks
from pipeline.markdown.media import SIZE, media_html
from pipeline.markdown.positions import LINK_TYPES, placing_inline_footnotes, wikilink_positions
from pipeline.text import heading_slug
from pipeline.urls import content_href, is_attachment, wanted_url

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt
    from markdown_it.rules_core import StateCore
    from markdown_it.rules_inline import StateInline

# Within a table row a `|` inside `[[...]]` separates target and label, not cells (as in Obsidian).
# The table rule sees it masked as NUL, which markdown-it's normalizer has removed from any source.
PIPE_MASK = "\x00"
IN_LINK = re.compile(r"\[\[[^\[\]\n|]*\|[^\[\]\n]*\]\]")  # a `[[...]]` with a `|`: the others need no mask
FORBIDDEN_IN_TARGET = re.compile(r"[\[\]{}<>\n]")
MAX_LINK_LENGTH = 1000  # bounds the scan for `]]`, so unclosed `[[` cost linear time
SLOT_FIELDS = ("target", "fragment", "line", "col")  # what `anchor` reads of a link's meta
OWN_ENV = ("wikilinks", "embeds", BODY_END)  # what of a page's env is of its own body: an embedded body has its own


@dataclass(frozen=True)
class Parts:
    target: str
    fragment: str | None
    label: str | None
    display: str


def wikilinks_plugin(
    md: MarkdownIt, *, base_url: str = "", default_language: str = "en", heading_text: str = "written"
) -> None:
    """Add the `wikilink` inline rule, its position and table helpers, and its renderers. `heading_text`: how a link
    to a heading or block without a label reads: `written` (`Note#Heading`) or `obsidian` (`Note > Heading`)."""
    from markdown_it.rules_block.table import table  # markdown-it loads with the first parser

    md.inline.ruler.before("link", "wikilink", wikilink_rule)
    md.core.ruler.after("block", "wikilink_unmask", unmask_cells)
    md.core.ruler.after("inline", "wikilink_positions", wikilink_positions)
    footnote_inline = next((rule for rule in md.inline.ruler.__rules__ if rule.name == "footnote_inline"), None)
    if footnote_inline is not None:  # a `^[...]` footnote's text is parsed on its own: its links are placed in the block
        md.inline.ruler.at("footnote_inline", placing_inline_footnotes(footnote_inline.fn), {"alt": footnote_inline.alt})
    md.core.ruler.push("wikilink_embed_blocks", embed_blocks)  # `embeds.py`
    if "table" in md.block.ruler.get_all_rules():
        md.block.ruler.at("table", _masking_table(table), {"alt": ["paragraph", "reference"]})
    md.options["wikilinks"] = {"base_url": base_url, "default_language": default_language, "heading_text": heading_text}
    md.add_render_rule("wikilink", render_wikilink)
    md.add_render_rule("wikilink_embed", render_embed)
    md.add_render_rule("link_open", render_link_open)
    md.add_render_rule("image", render_image)


def parse_inner(inner: str, as_obsidian: bool = False) -> Parts | None:
    """Split what is between `[[` and `]]`; None when it is no link (empty, or a bad target). `as_obsidian`: a link to
    another note's heading or block without a label reads `Note > Heading`, as Obsidian shows it."""
    target_part, pipe, label = inner.partition("|")
    if pipe and target_part.endswith("\\"):  # `[[a\|b]]`: a pipe escaped for a table
        target_part = target_part[:-1]
    if FORBIDDEN_IN_TARGET.search(target_part):
        return None
    target, hash_, fragment = target_part.strip().partition("#")
    target, fragment = target.strip(), fragment.strip()
    if not target and not fragment:
        return None
    label = label.strip() if pipe else ""
    display = label or (f"{target} > {' > '.join(filter(None, map(str.strip, fragment.split('#'))))}"
                        if as_obsidian and target and fragment else target_part.strip())
    return Parts(target, fragment if hash_ and fragment else None, label or None, display)


def wikilink_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    embed = src.startswith("![[", pos)
    if not embed and not src.startswith("[[", pos):
        return False
    start = pos + (3 if embed else 2)
    end = _closing(src, start, min(state.posMax, start + MAX_LINK_LENGTH))
    if end is None:
        return False
    parts = parse_inner(src[start:end], state.md.options["wikilinks"]["heading_text"] == "obsidian")
    if parts is None:
        return False
    if not silent:
        token = state.push("wikilink_embed" if embed else "wikilink", "", 0)
        token.content = parts.display
        token.markup = "![[" if embed else "[["
        token.meta = {
            "target": parts.target, "fragment": parts.fragment, "label": parts.label, "embed": embed,
            "raw": src[pos : end + 2], "offset": pos, "line": 0, "col": 0,
        }  # fmt: skip
    state.pos = end + 2
    return True


def _closing(src: str, pos: int, maximum: int) -> int | None:
    """Index of the `]]` closing a link opened before `pos`; code spans inside are skipped whole."""
    while pos < maximum:
        char = src[pos]
        if char == "]" and src.startswith("]]", pos):
            return pos
        if char == "[" and src.startswith("[[", pos):
            return None  # links do not nest
        if char == "`":
            pos = _after_code_span(src, pos, maximum)
            continue
        pos += 1
    return None


def _after_code_span(src: str, pos: int, maximum: int) -> int:
    run = pos
    while run < maximum and src[run] == "`":
        run += 1
    width = run - pos
    closer = re.compile(r"(?<!`)`{%d}(?!`)" % width)
    match = closer.search(src, run, maximum)
    # A code span that closes past `]]` swallows the `]]`: then there is no link (code spans win).
    return match.end() if match else run


def unmask_cells(state: StateCore) -> None:
    """Give table cells back the `|` masked inside their links: the cells are split by now, and
    nothing else (a code span, plain text) may show the mask."""
    for token in state.tokens:
        if token.type == "inline" and PIPE_MASK in token.content:
            token.content = token.content.replace(PIPE_MASK, "|")


def _masking_table(table_rule: Callable) -> Callable:
    def masked_table(state, start_line: int, end_line: int, silent: bool) -> bool:
        masked = getattr(state, "_wikilink_masked", None)
        if masked is None or masked[0] is not state.src:
            masked = (state.src, IN_LINK.sub(lambda m: m.group().replace("|", PIPE_MASK), state.src))
            state._wikilink_masked = masked
        state.src = masked[1]
        try:
            return table_rule(state, start_line, end_line, silent)
        finally:
            state.src = masked[0]

    return masked_table


# Rendering ---------------------------------------------------------------


def link_env(links: list[dict], body_line: int) -> dict[tuple[int, int], dict]:
    """`env["wikilinks"]` from the wikilinks pass's links (file lines) for a body starting at `body_line`."""
    return {(link["line"] - body_line + 1, link["col"]): link for link in links}


def embed_key(meta: dict) -> str:
    return meta["target"] + (f"#{meta['fragment']}" if meta.get("fragment") else "")


def render_link_open(self, tokens, idx, options, env) -> str:
    """A Markdown link to another article (`guide.md`, `../x/`) or a file points at that article's page, or where
    the file is published, as in MkDocs.

    `env["hrefs"]` maps a link destination, as markdown-it normalized it, to
    the URL the wikilinks pass resolved it to.
    """
    return _with_resolved(tokens[idx], "href", env, lambda: self.renderToken(tokens, idx, options, env), options)


def render_image(self, tokens, idx, options, env) -> str:
    """A Markdown image of the wiki's own files (`![Logo](../assets/logo.png)`) shows the file where it is published."""
    return _with_resolved(tokens[idx], "src", env, lambda: self.image(tokens, idx, options, env), options)


def _with_resolved(token, attribute: str, env, render: Callable[[], str], options) -> str:
    value = token.attrGet(attribute)
    slots = (env or {}).get("slots")
    if value is None:
        return render()
    # Resolved later: leave a slot; else the URL resolved. The token is left as it was.
    token.attrSet(attribute, slots.add({"href": value}) if slots is not None else page_href(value, options, env or {}))
    try:
        return render()
    finally:
        token.attrSet(attribute, value)


def page_href(href: str, options, env: dict) -> str:
    """A Markdown link's destination, or the page URL the wikilinks pass resolved it to."""
    url = (env.get("hrefs") or {}).get(href)
    if url is None:  # no page: only http, https and mailto leave the site
        return content_href(href, options["wikilinks"].get("base_url", ""))
    return url if url.startswith("#") else f"{options['wikilinks'].get('base_url', '')}{url}"


def href_env(links: list[dict]) -> dict[str, str]:
    """`env["hrefs"]` from the wikilinks pass's links: each resolved Markdown link's destination -> page URL."""
    return {
        link["raw"][1:-1]: link["url"]
        for link in links
        if link.get("kind") == "markdown" and link["status"] in ("ok", "fallback") and link.get("url") is not None
    }


def render_wikilink(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    slots = (env or {}).get("slots")
    if slots is not None:
        return slots.add({"link": {name: token.meta[name] for name in SLOT_FIELDS}, "inner": escape_html(token.content)})
    return anchor(token.meta, escape_html(token.content), options, env or {})


def anchor(meta: dict, inner_html: str, options, env: dict) -> str:
    """The HTML of a link: resolved, language fallback, ambiguous, self, or red (broken or unresolved)."""
    settings = {**options.get("wikilinks", {}), **env}
    entry = (env.get("wikilinks") or {}).get((meta["line"], meta["col"]))
    if entry is None and not meta["target"]:
        entry = {"status": "self", "url": f"#{heading_slug(meta['fragment'])}"}
    if entry is None or entry.get("status") == "broken" or not entry.get("url"):
        return _red_link(meta, inner_html, settings, entry)
    url = entry["url"]
    if entry.get("status") == "self" and "#" not in url:
        return f'<strong class="selflink">{inner_html}</strong>'  # as MediaWiki: a page does not link to itself
    href = url if url.startswith("#") else f"{settings.get('base_url', '')}{url}"
    classes, extra = "wikilink", ""
    if entry.get("status") in ("fallback", "ambiguous"):
        classes += f" {entry['status']}"
    if entry.get("status") == "fallback" and entry.get("target_lang"):
        extra = f' hreflang="{escape_html(entry["target_lang"])}"'
    return f'<a href="{escape_html(href)}" class="{classes}"{extra}>{inner_html}</a>'


def attachment(meta: dict, options, env: dict) -> str:
    """An embedded file as its element (`markdown/media.py`); a red link when the wiki has no such file."""
    entry = (env.get("wikilinks") or {}).get((meta["line"], meta["col"]))
    if entry is None or not entry.get("attachment"):
        label = meta.get("label") if not SIZE.match(meta.get("label") or "") else None  # `|300` is a width
        return anchor(meta, escape_html(label or meta["target"]), options, env)
    href = f"{options.get('wikilinks', {}).get('base_url', '')}{entry['url']}"
    return media_html(href, meta["target"], meta.get("label"), meta.get("fragment"), escape_html)


def _red_link(meta: dict, inner_html: str, settings: dict, entry: dict | None) -> str:
    """MediaWiki's red link: class `new`, pointing at the wanted-pages list."""
    default = settings.get("default_language", "en")
    url = (entry or {}).get("url") or wanted_url(meta["target"] or "-", settings.get("lang", default), default)
    href = f"{settings.get('base_url', '')}{url}"
    title = f"{meta['target']} (page does not exist)"
    return f'<a href="{escape_html(href)}" class="new" title="{escape_html(title)}">{inner_html}</a>'


def render_embed(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    env = env or {}
    if env.get("slots") is not None:
        if is_attachment(token.meta["target"]):  # a file is shown as an element: no body to render here
            return env["slots"].add({"media": {name: token.meta[name] for name in (*SLOT_FIELDS, "label")}})
        link = {name: token.meta[name] for name in SLOT_FIELDS}  # shown as a link when nothing is embedded
        return env["slots"].add({"embed": embed_key(token.meta), "link": link, "inner": escape_html(token.content)})
    if is_attachment(token.meta["target"]):
        return attachment(token.meta, options, env)
    key = embed_key(token.meta)
    html = (env.get("embeds") or {}).get(key)
    if html is None:
        return missing_embed(token.meta, escape_html(token.content), options, env)
    return embed_block(key, html)


def embed_block(key: str, html: str) -> str:
    return f'<div class="embed" data-target="{escape_html(key)}">\n{html}</div>\n'


def missing_embed(meta: dict, inner_html: str, options, env: dict) -> str:
    """An embed of nothing there (no such page, section or block): a link to it, red where the page is missing."""
    return f'<div class="embed missing">{anchor(meta, inner_html, options, env)}</div>\n'


# Transclusion ------------------------------------------------------------


@dataclass(frozen=True)
class Embedded:
    """What `fetch_body` returns for an embed target: a stable identity, the body, its own env; and where the body
    is rendered as its own page shows it, that rendering with holes (`slots.render_slotted`: HTML, slots)."""

    identity: str
    body: str
    env: dict
    rendered: tuple[str, list[dict]] | None = None


def render_with_embeds(
    md: MarkdownIt,
    body: str,
    env: dict,
    fetch_body: Callable[[dict], Embedded | None],
    depth: int = 3,
    identity: str | None = None,
    _stack: tuple[str, ...] = (),
) -> str:
    """Render `body`, replacing each `![[target]]` by the rendered body `fetch_body(meta)` returns.

    Cycle-safe: a body already being embedded higher up is not embedded
    again; depth-limited: below `depth` levels embeds stay links.
    `identity` names `body` itself so a page embedding itself is a cycle.
    """
    stack = _stack + ((identity,) if identity else ())
    env = dict(env)
    tokens = md.parse(body, env)
    embeds: dict[str, str] = {}
    for meta in _embed_metas(tokens):
        key = embed_key(meta)
        if key in embeds:
            continue
        found = fetch_body(meta)
        if found is None:
            continue  # rendered as a red link
        embeds[key] = embed_notice(key, found, depth, stack) or render_with_embeds(
            md, found.body, inner_env(env, found), fetch_body, depth - 1, found.identity, stack
        )  # fmt: skip
    env["embeds"] = {**(env.get("embeds") or {}), **embeds}
    return md.renderer.render(tokens, md.options, env)


def _embed_metas(tokens) -> list[dict]:
    return [
        child.meta
        for token in tokens
        if token.type == "inline" and token.children
        for child in token.children
        if child.type == "wikilink_embed"
    ]


def embed_notice(key: str, found: Embedded, depth: int, stack: tuple[str, ...]) -> str | None:
    """What shows instead of an embedded body already embedded above it (`stack`), or below `depth`; None: the body."""
    if found.identity in stack:
        return _note(f"{key} is already embedded above (not repeated)", "cycle")
    return _note(f"{key} is embedded too deeply (not shown)", "depth") if depth <= 0 else None


def inner_env(env: dict, found: Embedded) -> dict:
    """The env an embedded body renders with: the embedding one's, but for what is its own body's."""
    return {**{name: value for name, value in env.items() if name not in OWN_ENV}, **found.env}


def _note(message: str, kind: str) -> str:
    return f'<p class="embed-{kind}">{escape_html(message)}</p>\n'


def escape_html(text: str) -> str:
    """markdown-it's escaping of text in HTML (`&`, `<`, `>`, `"`), loaded with markdown-it: only a page rendered
    uses it, and the build's own process renders none when its jobs run beside it."""
    return _markdown_it_escape()(text)


@functools.cache
def _markdown_it_escape() -> Callable[[str], str]:
    # Found once: an import statement at each call costs several times the call itself, and a link makes two or three.
    from markdown_it.common.utils import escapeHtml

    return escapeHtml
