"""Each article's page: its body, contents, references, categories, translations, "What links here", and its place in
the navigation (breadcrumbs, previous and next). A link's hover preview reads the linked page itself
(`assets/preview.js`): its title, short description and first paragraph."""

from __future__ import annotations

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
    return planned


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
