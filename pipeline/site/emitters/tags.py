"""Tag pages: one for each tag of each language (frontmatter `tags:` and inline `#tags`) listing the pages that carry
it, at `[lang/]tags/<tag>/` (`urls.tag_url`, where an inline tag links), and each language's tag index, `[lang/]tags/`.

Tags spelled alike but for case or punctuation (`Help`, `help`) share one page, named as the first spelling in
order. A page an article's URL already takes is left to the article. Which tag pages exist is part of what every
page shares (`page_digests.site_state`): one made or gone renders the site again; after an edit, only the pages of
the tags that gained or lost an article are put again, or every one when titles may have changed (`changes.lists`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.site.emitters.base import Emitter
from pipeline.site.page_links import Link
from pipeline.site.render import Planned
from pipeline.urls import lang_prefix, tag_url


@dataclass
class Tag:
    """One tag of one language, as its page and the index show it."""

    name: str
    url: str
    lang: str
    pages: list[Link] = field(default_factory=list)


def tags_of(model) -> dict[str, list[Tag]]:
    """lang -> its tags, by name, each with its pages by title (only the languages with tags). A nested tag's pages
    are its parents' too, as Obsidian searches them (`#help/start` is under `#help`)."""
    found: dict[str, dict[str, Tag]] = {}
    for page in model.articles:
        for link in page.tags:
            by_url = found.setdefault(page.lang, {})
            for name in with_parents(link.title):
                url = link.url if name == link.title else tag_url(name, page.lang, model.default_language)
                tag = by_url.get(url) or by_url.setdefault(url, Tag(name, url, page.lang))
                if not tag.pages or tag.pages[-1].url != page.url:  # (`Help` and `help` on one page: listed once)
                    tag.pages.append(Link(page.title, page.url, page.lang))
    for by_url in found.values():
        for tag in by_url.values():
            tag.pages.sort(key=lambda link: link.title.casefold())
    return {lang: sorted(by_url.values(), key=lambda tag: tag.name.casefold()) for lang, by_url in found.items()}


def with_parents(tag: str) -> list[str]:
    """`a/b/c` -> [`a`, `a/b`, `a/b/c`]: a nested tag and each tag above it."""
    parts = [part for part in tag.split("/") if part]
    return ["/".join(parts[: end + 1]) for end in range(len(parts))] or [tag]


def index_url(lang: str, default_language: str) -> str:
    return f"{lang_prefix(lang, default_language)}tags/"


def emit(site, out) -> None:
    for page in tag_pages(site):
        out.page(page)


def emit_changed(site, changes, out) -> None:
    """Every tag page when the lists of pages may show a change (a title), else those of the tags that an edited
    article took or dropped (their pages exist still: which tag pages exist did not change), and their indexes."""
    model = site.model
    if changes.lists:
        emit(site, out)
    elif model.retagged:
        pages, touched = model.by_path(), set()
        for path, old in model.retagged.items():
            page = pages.get(path)
            for tag in set(old) ^ {link.title for link in page.tags} if page else ():
                touched.update((page.lang, tag_url(name, page.lang, model.default_language)) for name in with_parents(tag))
        for planned in tag_pages(site, touched):
            out.page(planned)


def tag_pages(site, touched: set[tuple[str, str]] | None = None) -> list[Planned]:
    """The tag indexes and pages of every language, or the indexes and the pages of the tags `touched` ((lang, url)
    of each) only."""
    model = site.model
    tags, planned = tags_of(model), []
    taken = {page.url for page in model.articles} if tags else set()  # an article keeps its URL
    for lang, listed in tags.items():
        t = site.settings.words(lang)
        chosen = [tag for tag in listed if touched is None or (lang, tag.url) in touched]
        index = index_url(lang, model.default_language)
        if index not in taken:  # every language's (each lists the others as its translations): its counts change
            planned.append(Planned(index, lang, "tags.html", t["tags"], {"tags": listed}, ("tags",)))
        for tag in chosen:
            if tag.url not in taken:
                title, context = f"{t['tag']}: {tag.name}", {"tag": tag, "index": index}
                planned.append(Planned(tag.url, lang, "tag.html", title, context, ("tag", lang, tag.url)))
    return planned


EMITTER = Emitter("tags", emit, emit_changed)
