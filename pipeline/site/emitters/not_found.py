"""The page a host shows for an address the site does not have: `404.html` in the default language, and one in
each other language's folder (`es/404.html`), for hosts that serve the nearest one (content/navigation-and-theme.md)."""

from __future__ import annotations

from pipeline.site.emitters.base import Emitter
from pipeline.site.render import Planned
from pipeline.urls import home_url, lang_prefix, special_url


def not_found_file(lang: str, default: str) -> str:
    """`404.html` for the default language, `<lang>/404.html` for another."""
    return f"{lang_prefix(lang, default)}404.html"


def emit(site, out) -> None:
    default = site.model.default_language
    for lang in site.model.languages:
        rel = not_found_file(lang, default)
        title = site.settings.words(lang)["not_found"]
        context = {"home": home_url(lang, default), "all_pages": special_url("all", lang, default)}
        out.put(rel, out.render_page(Planned(rel, lang, "404.html", title, context, ("404",), sitemap=False)))


def emit_changed(site, changes, out) -> None:
    """The pages show only the navigation and settings, which an edit does not change; they are rendered again
    when every page is planned, which counts them with them."""
    if changes.every_page:
        emit(site, out)


EMITTER = Emitter("not_found", emit, emit_changed)
