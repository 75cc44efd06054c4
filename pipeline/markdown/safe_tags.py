"""A few inline HTML tags with no attribute (`<br>`, `<kbd>…</kbd>`, `<sup>`, `<sub>`...) as HTML when raw HTML is off.

READMEs and vaults write them where Markdown has no syntax (a line break in a table cell, a key, an exponent), and
GitHub and Obsidian show them. With `raw_html` off, any other HTML is still shown as text: a tag here takes no
attribute (no `style`, `href` or `on…`), so it can hold neither script nor link. With `raw_html` on, markdown-it's own
rule passes every tag, and this one adds nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt
    from markdown_it.rules_inline import StateInline

TAGS = ("br", "wbr", "kbd", "sup", "sub", "ins", "del", "s", "u", "mark", "small", "abbr", "b", "i", "em", "strong")
VOID = ("br", "wbr")
TAG = re.compile(rf"<(/?)({'|'.join(TAGS)})\s*(/?)>", re.IGNORECASE)


def safe_tags_plugin(md: MarkdownIt) -> None:
    if not md.options.get("html"):
        md.inline.ruler.before("html_inline", "safe_tag", safe_tag)


def safe_tag(state: StateInline, silent: bool) -> bool:
    if state.src[state.pos] != "<":
        return False
    match = TAG.match(state.src, state.pos)
    if match is None:
        return False
    closing, name, self_closing = match[1], match[2].lower(), match[3]
    if (closing and name in VOID) or (self_closing and name not in VOID):  # `</br>`, `<kbd/>`: text
        return False
    if not silent:
        state.push("html_inline", "", 0).content = f"<{closing}{name}>"
    state.pos = match.end()
    return True
