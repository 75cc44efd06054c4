"""Each language's wiki pages: its home page, all pages, categories and each category, wanted pages, recent changes."""

from __future__ import annotations

from pipeline.site.emitters.base import Emitter
from pipeline.site.page_links import Link
from pipeline.site.render import Planned
from pipeline.urls import home_url, special_url

# The wiki pages that show an article's own parts (its revisions), planned after any edit. The lists of pages
# (all pages, a category's) show each page's title and URL (`Link`s): a page summary's, planned when page summaries change.
PATCHED = ("home", "recent")


def emit(site, out) -> None:
    for page in language_pages(site):
        out.page(page)


def emit_changed(site, changes, out) -> None:
    for page in language_pages(site, None if changes.lists else PATCHED):
        out.page(page)


def language_pages(site, kinds: tuple[str, ...] | None = None) -> list[Planned]:
    """Each language's wiki pages, or those of `kinds` only (their keys' first part: `home`, `all`, ...)."""
    model = site.model
    default = model.default_language
    chosen = (lambda kind: True) if kinds is None else (lambda kind: kind in kinds)
    categories, recent = site.categories, site.recent
    planned = []
    homes = {page.url for page in model.articles}
    for lang in model.languages:
        t = site.settings.words(lang)
        if home_url(lang, default) not in homes and chosen("home"):  # a language's `index.md` is its home page
            context = {"categories": categories[lang], "recent": recent[lang][:10]}
            planned.append(Planned(home_url(lang, default), lang, "home.html", t["home"], context, ("home",)))
        contexts = {  # made only for the pages planned (the list of all pages sorts thousands)
            "categories": ("categories.html", t["categories"], lambda: {"categories": categories[lang]}),
            "all": ("all.html", t["all_pages"], lambda: {"pages": _all_pages(model, lang)}),
            "wanted": ("wanted.html", t["wanted"], lambda: {"wanted": site.wanted[lang]}),
            "recent": ("recent.html", t["recent"], lambda: {"revisions": recent[lang]}),
        }
        for name, (template, title, context) in contexts.items():
            if chosen(name):
                url, sitemap = special_url(name, lang, default), name in ("categories", "all")
                planned.append(Planned(url, lang, template, title, context(), (name,), sitemap))
        for category in categories[lang] if chosen("category") else ():
            title = f"{t['category']}: {category.name}"
            planned.append(Planned(category.url, lang, "category.html", title, {"category": category}, ("category", category.id)))
    return planned


def _all_pages(model, lang: str) -> list[Link]:
    """The language's pages by title, as links: what the list shows of each is its page summary's (its title and URL)."""
    listing = [Link(page.title, page.url, lang) for page in model.articles if page.lang == lang]
    return sorted(listing, key=lambda link: link.title.casefold())


EMITTER = Emitter("special_pages", emit, emit_changed)
