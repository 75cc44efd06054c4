"""Each article's history page: every revision the capture log holds of it, newest first."""

from __future__ import annotations

from pipeline.site.emitters.base import Emitter
from pipeline.site.model import ArticlePage
from pipeline.site.render import Planned
from pipeline.site.theme import strings


def history_page(page: ArticlePage, revisions: list) -> Planned:
    title = f"{strings(page.lang)['history_of']} {page.title}"
    context = {"page": page, "revisions": revisions}
    return Planned(page.history_url, page.lang, "history.html", title, context, ("history", page.path), sitemap=False)


def emit(site, out) -> None:
    for page in site.model.articles:
        out.page(history_page(page, site.histories.get(page.path, [])))


def emit_changed(site, changes, out) -> None:
    for page in site.model.articles:
        if changes.every_page or page.path in changes.articles:
            out.page(history_page(page, site.histories.get(page.path, [])))


EMITTER = Emitter("history", emit, emit_changed)
