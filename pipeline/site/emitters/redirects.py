"""A page at each old address (frontmatter aliases, `redirects.yaml`) that sends the reader on; none replaces a page."""

from __future__ import annotations

from pipeline.site import pages as wiki_pages
from pipeline.site.emitters.base import Emitter
from pipeline.site.render import page_file


def emit(site, out) -> None:
    taken = {page.url for page in out.pages}
    for redirect in wiki_pages.redirects(site.model, taken):
        t = site.settings.words(redirect.lang)
        html = out.render("redirect.html", target=redirect.target, lang=redirect.lang, t=t)
        out.put(page_file(redirect.source), html)


def emit_changed(site, changes, out) -> None:
    """Only an added article may take an address or bring an alias (any other change to them is a change
    to what every page shares: then `emit` runs)."""
    if changes.every_page:
        emit(site, out)


EMITTER = Emitter("redirects", emit, emit_changed, lists_pages=True)
