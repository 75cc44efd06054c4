"""Bare URLs: a URL written in the text (`see https://example.org/guide.`) is a link, as Obsidian, GitHub and Hugo
show it.

Only a URL that starts with `http://` or `https://` is linked, as Obsidian links them: not a bare domain, a `www.`
name or an e-mail address, and never another scheme (`ftp://`, `//host`): only http and https leave the site this
way (`urls.leaves_site`). markdown-it-py's own inline rule finds them, at the `:` of `://`, with linkify-it-py,
which knows where a URL ends: a trailing full stop or comma is text, balanced parentheses are part of the URL.
A URL in code, in a link's label or destination, in a wikilink or in a comment stays as it is. Each counts
towards a parse's links (`limits.py`), and its text is not prose (`skips.py`: no mention is found in a URL).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

RULE = "linkify"  # markdown-it-py's inline rule for URLs with a scheme (its core rule, for the others, stays off)
# linkify-it-py's schemes but http and https, and its options for links with no scheme: none of them is linked.
UNLINKED_SCHEMES = ("ftp:", "//", "mailto:")
NO_SCHEME = {"fuzzy_link": False, "fuzzy_email": False, "fuzzy_ip": False}


def autolinks_plugin(md: MarkdownIt) -> None:
    md.linkify = _finder()
    md.options["linkify"] = True
    md.inline.ruler.enable(RULE)


@functools.cache
def _finder():
    """One URL finder per process: its patterns compile on its first match, once."""
    from linkify_it import LinkifyIt

    finder = LinkifyIt(options=NO_SCHEME)
    for scheme in UNLINKED_SCHEMES:
        finder.add(scheme, None)
    return finder
