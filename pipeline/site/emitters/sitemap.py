"""`sitemap.xml`: every page meant for search engines (not drafts, histories, wanted pages or recent changes), with
the day it last changed and its translations."""

from __future__ import annotations

from pipeline.site.emitters.base import Emitter


def emit(site, out) -> None:
    out.put("sitemap.xml", out.render("sitemap.xml", pages=[page for page in out.pages if page.sitemap]))


def emit_changed(site, changes, out) -> None:
    """After an edit the sitemap is the last one (a changed day plans everything: `page_digests.patch`), unless
    articles were added."""
    if changes.every_page:
        emit(site, out)


EMITTER = Emitter("sitemap", emit, emit_changed, lists_pages=True)
