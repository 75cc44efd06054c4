"""An article body's leading `# heading` when it repeats the page's title: shown once, as the page's title.

Many wikis start each article with a `# ` line that says its title again (the title given in frontmatter, or
read from that very line). The page already shows its title above the body, as MkDocs, Docusaurus and
MediaWiki do, so such a heading is taken out of the body; its anchor moves to the page's title, where links
to it still land.
"""

from __future__ import annotations

import html
import re

from markupsafe import Markup

LEADING_H1 = re.compile(r'\s*<h1(?: id="([^"]*)")?>(.*?)</h1>\n?', re.S)
HEADERLINK = re.compile(r'<a class="headerlink".*?</a>', re.S)
TAG = re.compile(r"<[^>]+>")


def without_title(body: str, title: str) -> tuple[str, Markup]:
    """(the anchor of the body's leading heading, the body without it) when that heading's text is `title`;
    else ('', the body)."""
    match = LEADING_H1.match(body)
    if match is None or _words(html.unescape(TAG.sub("", HEADERLINK.sub("", match[2])))) != _words(title):
        return "", Markup(body)
    return match[1] or "", Markup(body[match.end() :])


def _words(text: str) -> str:
    return " ".join(text.split()).casefold()
