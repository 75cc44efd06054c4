"""Each article's page: its body, contents, references, categories, translations and "What links here"."""

from __future__ import annotations

from pipeline.site.emitters.base import Emitter
from pipeline.site.model import ArticlePage
from pipeline.site.render import Planned


def article_page(page: ArticlePage) -> Planned:
    """The page of `page`; in the sitemap unless a draft, listing its translations."""
    key = ("article", min([page.path, *page.pair_paths]))
    planned = Planned(page.url, page.lang, "article.html", page.title, {"page": page}, key, not page.draft, page.updated)
    planned.alternates = [(page.lang, page.url)] + [(t.lang, t.url) for t in page.translations]
    return planned


def emit(site, out) -> None:
    for page in site.model.articles:
        out.page(article_page(page))


def emit_changed(site, changes, out) -> None:
    """The pages of the changed articles (every page when the sitemap lists them again: the render path
    renders those of the changed articles only)."""
    for page in site.model.articles:
        if changes.every_page or page.path in changes.articles:
            out.page(article_page(page))


EMITTER = Emitter("articles", emit, emit_changed)
