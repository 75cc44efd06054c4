"""Each article's page: its body, contents, references, categories, translations, "What links here", and its place in
the navigation (breadcrumbs, previous and next); and beside it, its hover preview (`preview.json`: its title, short
description and first paragraph, which `assets/preview.js` shows on a link to it)."""

from __future__ import annotations

import html
import re
from functools import partial

import orjson

from pipeline.site.emitters.base import Emitter
from pipeline.site.model import ArticlePage
from pipeline.site.navigation import Tree
from pipeline.site.render import Planned


def article_page(page: ArticlePage, tree: Tree) -> Planned:
    """The page of `page`; in the sitemap unless a draft, listing its translations; its place in `tree` (its
    language's): breadcrumbs, previous and next pages."""
    key = ("article", min([page.path, *page.pair_paths]))
    previous, following = tree.neighbours(page.url)
    context = {"page": page, "breadcrumbs": tree.trail(page), "previous_page": previous, "next_page": following}
    planned = Planned(page.url, page.lang, "article.html", page.title, context, key, not page.draft, page.updated)
    planned.alternates = [(page.lang, page.url)] + [(t.lang, t.url) for t in page.translations]
    planned.companion = (f"{page.url}preview.json", partial(preview, page))
    return planned


LEAD_LENGTH = 300  # characters of a body's first paragraph a preview shows
PARAGRAPH = re.compile(r"<p>(.*?)</p>", re.S)
TAG = re.compile(r"<[^>]*>")
# As Jinja's `tojson`: a preview served as something else than JSON holds no markup.
ESCAPES = {ord("<"): "\\u003c", ord(">"): "\\u003e", ord("&"): "\\u0026", ord("'"): "\\u0027"}


def preview(page: ArticlePage) -> bytes:
    """`preview.json`, made when the page is rendered (from the body its render read; no template): JSON text."""
    found = PARAGRAPH.search(str(page.body.value["html"]))
    lead = " ".join(html.unescape(TAG.sub("", found[1])).split()) if found else ""
    if len(lead) > LEAD_LENGTH:
        lead = lead[: LEAD_LENGTH - 1].rstrip() + "…"
    data = {"title": page.title, "description": page.short_description or "", "lead": lead}
    return orjson.dumps(data).decode().translate(ESCAPES).encode()


def emit(site, out) -> None:
    for page in site.model.articles:
        out.page(article_page(page, site.navigation[page.lang]))


def emit_changed(site, changes, out) -> None:
    """The pages of the changed articles (every page when the sitemap lists them again: the render path
    renders those of the changed articles only)."""
    for page in site.model.articles:
        if changes.every_page or page.path in changes.articles:
            out.page(article_page(page, site.navigation[page.lang]))


EMITTER = Emitter("articles", emit, emit_changed)
