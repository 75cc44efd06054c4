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
CUT_MARGIN = 40  # characters: longer than any HTML entity a cut may split
TAG = re.compile(r"<[^>]*>")
# As Jinja's `tojson`: a preview served as something else than JSON holds no markup.
ESCAPES = ((b"<", b"\\u003c"), (b">", b"\\u003e"), (b"&", b"\\u0026"), (b"'", b"\\u0027"))


def preview(page: ArticlePage) -> bytes:
    """`preview.json`, made as the page is rendered (from the body its render reads: read here first, as text, for
    both; no template): JSON text."""
    value = page.body.value
    value["html"] = body = str(value["html"])
    start = body.find("<p>")  # the first paragraph (markdown-it writes no attribute on a <p>)
    end = body.find("</p>", start) if start >= 0 else -1
    text = lead(body[start + 3 : end]) if end >= 0 else ""
    data = orjson.dumps({"title": page.title, "description": page.short_description or "", "lead": text})
    for character, escaped in ESCAPES:
        data = data.replace(character, escaped)
    return data


def lead(markup: str) -> str:
    """The text of a paragraph's `markup`, cut at LEAD_LENGTH characters: read from its start alone when that holds
    enough text (a first paragraph may be long), else whole."""
    if len(markup) > LEAD_LENGTH * 4:
        start = markup[: LEAD_LENGTH * 4]
        if start.rfind("<") > start.rfind(">"):  # a tag cut in two: left out
            start = start[: start.rfind("<")]
        text = _text(start)
        if len(text) > LEAD_LENGTH + CUT_MARGIN:  # what the cut may have changed (a word, an entity) lies past the lead
            return text[: LEAD_LENGTH - 1].rstrip() + "…"
    text = _text(markup)
    return text if len(text) <= LEAD_LENGTH else text[: LEAD_LENGTH - 1].rstrip() + "…"


def _text(markup: str) -> str:
    return " ".join(html.unescape(TAG.sub("", markup)).split())


def emit(site, out) -> None:
    for page in site.model.articles:
        out.page(article_page(page, site.navigation[page.lang]))


def emit_changed(site, changes, out) -> None:
    """The pages of the changed articles (every page when the sitemap lists them again), and after a change of a
    big navigation tree those under its sections that changed too: the render path renders those of the changed
    articles, and those whose part of the tree changed."""
    model = site.model
    for page in model.articles if changes.every_page else model.pages_at(changes.articles | changes.tree_pages):
        out.page(article_page(page, site.navigation[page.lang]))


EMITTER = Emitter("articles", emit, emit_changed)
