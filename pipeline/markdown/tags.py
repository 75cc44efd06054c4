"""Inline tags: `#tag` and `#nested/tag`, as Obsidian writes them, each a link to the tag's page.

A tag is `#` then letters and marks of any script, digits, `_`, `-` and `/`,
with at least one character that is not a digit (`#1984` is no tag,
`#y1984` is), after the start of the text or a space. Inline rules never run
in code, and a heading's `# ` is no tag; a URL's `#fragment` has no space
before it. Unlike Obsidian, a CSS colour (`#fff`, `#f5f6f8`: 3, 4, 6 or 8
hexadecimal digits) is no tag: in a wiki it is a colour far more often.
A tag renders as `<a class="tag" href="...">#tag</a>` to its page
(`urls.tag_url`, in the page's language); the links pass leaves the href as
a hole (`slots.py`), filled once the page's language and base URL are known.
Each `tag` token's `meta["tag"]` is the tag as written, without `#`.
"""

from __future__ import annotations

import re
import unicodedata
from typing import TYPE_CHECKING

from pipeline.markdown.wikilinks import escape_html
from pipeline.urls import tag_url

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline

PUNCTUATION = frozenset("_-/")
COLOUR = re.compile(r"(?:[0-9A-Fa-f]{3,4}|[0-9A-Fa-f]{6}|[0-9A-Fa-f]{8})")


def tags_plugin(md: MarkdownIt) -> None:
    md.inline.ruler.push("tag", tag_rule)
    md.add_render_rule("tag", render_tag)


def tag_rule(state: StateInline, silent: bool) -> bool:
    src, pos = state.src, state.pos
    if src[pos] != "#" or (pos > 0 and not src[pos - 1].isspace()) or state.linkLevel > 0:
        return False
    end = pos + 1
    while end < state.posMax and _in_tag(src[end]):
        end += 1
    name = src[pos + 1 : end].rstrip("/")
    if not name or name[0] == "/" or COLOUR.fullmatch(name) or all(char.isdigit() or char in "-/" for char in name):
        return False
    if not silent:
        token = state.push("tag", "", 0)
        token.content = f"#{name}"
        token.meta = {"tag": name}
    state.pos = pos + 1 + len(name)
    return True


def _in_tag(char: str) -> bool:
    return char.isalnum() or char in PUNCTUATION or unicodedata.category(char)[0] == "M"  # Thai, Bengali marks


def tag_href(tag: str, options, env: dict) -> str:
    """The URL of a tag's page from a page in `env["lang"]` (the default language without one)."""
    settings = {**options.get("site", {}), **env}
    default = settings.get("default_language", "en")
    return f"{settings.get('base_url', '')}{tag_url(tag, settings.get('lang', default), default)}"


def render_tag(self, tokens, idx, options, env) -> str:
    token, env = tokens[idx], env or {}
    tag, slots = token.meta["tag"], env.get("slots")
    href = slots.add({"tag": tag}) if slots is not None else escape_html(tag_href(tag, options, env))
    return f'<a class="tag" href="{href}">{escape_html(token.content)}</a>'
