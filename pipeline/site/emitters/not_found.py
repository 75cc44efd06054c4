"""`404.html`: the page a host shows for an address the site does not have, in the default language."""

from __future__ import annotations

from pipeline.site.emitters.base import Emitter
from pipeline.site.render import Planned
from pipeline.site.theme import strings


def emit(site, out) -> None:
    default = site.model.default_language
    page = Planned("404.html", default, "404.html", strings(default)["not_found"], {}, ("404",), sitemap=False)
    out.put("404.html", out.render_page(page))


def emit_changed(site, changes, out) -> None:
    """The page shows only the navigation and settings, which an edit does not change; it is rendered again
    when every page is planned, which counts it with them."""
    if changes.every_page:
        emit(site, out)


EMITTER = Emitter("not_found", emit, emit_changed)
