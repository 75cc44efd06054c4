"""Pages through the templates: the Jinja environment, a planned page, and rendering every planned page.

The emitters (`emitting.py`) plan the pages (URL, language, template,
context, and a key naming the same page in other languages), so hreflang
alternates are known before anything is rendered. The navigation is
rendered once per language (`sidebar.py`), each page's copy marking its place in the tree. An article's
pages are digested, and not rendered again when the file of the last build
was made from the same. Nothing here touches the disk but through the writer.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, NamedTuple

from jinja2 import (
    ChoiceLoader, Environment, FileSystemBytecodeCache, FileSystemLoader, FunctionLoader, StrictUndefined,
    select_autoescape,
)  # fmt: skip
from markupsafe import Markup

from pipeline.incremental.code_digest import code_digest
from pipeline.incremental.kept_pages import KeptFile, KeptPages
from pipeline.site.model import ArticlePage, Model
from pipeline.site.page_digests import SiteState, digest
from pipeline.site.navigation import Tree
from pipeline.site.parallel import render_pages
from pipeline.site.sharing import Sharing
from pipeline.site.sidebar import SLOT, LanguageNav
from pipeline.site.theme import builtin_root, language_name, strings
from pipeline.site.title_heading import without_title
from pipeline.urls import home_url, href, special_url

SPECIALS = ("categories", "all", "wanted", "recent")  # the wiki pages the navigation links to
DICT_NAMES = frozenset(dir(dict))


class ThemeEnvironment(Environment):
    """Jinja's environment, looking a plain dict's keys up first where that finds what Jinja's own order finds.

    Jinja reads `t.home` as an attribute, then as an item: for a dict (the words, the contents, a verdict), a raised
    and caught AttributeError on each of the dozens of such lookups of a page. A name no dict has as an attribute
    is looked up as an item at once; any other goes Jinja's way (`d.items` is still the method).
    """

    def getattr(self, obj, attribute):  # Jinja's own, but for the first step skipped
        if type(obj) is not dict or attribute in DICT_NAMES:
            try:
                return getattr(obj, attribute)
            except AttributeError:
                pass
        try:
            return obj[attribute]
        except (TypeError, LookupError, AttributeError):
            return self.undefined(obj=obj, name=attribute)


def environment(templates_dir: Path | None, base_url: str, compiled: Path | None = None) -> Environment:
    """Jinja2 with autoescape on; the wiki's templates first, then the built-in theme.

    `compiled`: a folder where templates compiled by one build are kept for the next (Jinja checks
    each against its source): compiling the theme was a noticeable part of every build. See `_compiled_cache`.
    """
    root = builtin_root()

    def builtin(name: str):
        file = root.joinpath(*name.split("/"))
        return file.read_text(encoding="utf-8") if file.is_file() else None

    loaders = [FileSystemLoader(str(templates_dir))] if templates_dir else []
    env = ThemeEnvironment(
        loader=ChoiceLoader([*loaders, FunctionLoader(builtin)]),
        autoescape=select_autoescape(["html", "xml"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_compiled_cache(compiled, base_url) if compiled else None,
        auto_reload=False,  # made for one build: no template is checked against its file again at each include
    )
    env.globals["base"] = base_url
    env.filters["url"] = lambda url: href(url, base_url)  # only http, https and mailto URLs leave the site
    env.filters["short"] = lambda sha: (sha or "")[:12]
    env.filters["day"] = lambda iso: (iso or "")[:10]
    env.filters["minute"] = lambda iso: (iso or "")[:16].replace("T", " ") + (" UTC" if iso else "")
    env.filters["without_title"] = without_title
    return env


def _compiled_cache(compiled: Path, base_url: str) -> FileSystemBytecodeCache:
    """The cache of compiled templates for `base_url` and this code, in its own folder below `compiled`.

    Jinja computes at compile time a filter given constants (`{{ 'assets/wiki.css'|url }}`): the compiled
    template holds the base URL and what the code's filters made of it, which Jinja's own key (the
    template's name and source) does not name. The folders of other keys are removed (an older
    version's, another base URL's): a build for another base URL compiles the theme again.
    """
    key = hashlib.sha256(f"{code_digest()}\n{base_url}".encode()).hexdigest()[:16]
    folder = compiled / key
    for other in compiled.iterdir() if compiled.is_dir() else ():
        if other.name != key:
            shutil.rmtree(other) if other.is_dir() else other.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    return FileSystemBytecodeCache(str(folder))


class Language(NamedTuple):
    """A language of the site as language switchers name it."""

    lang: str
    name: str  # what it calls itself
    home: str  # its home page's URL
    home_title: str  # and title, in it


@dataclass(frozen=True)
class Settings:
    site_name: str
    base_url: str  # ends with '/'
    search: bool
    templates_dir: Path | None = None
    emitters: str = ""  # the emitter table as wiki.yaml configures it ("": the built-in one): see site/emitters/
    ui_strings: dict = field(default_factory=dict)  # wiki.yaml's, over the theme's words (`theme.strings`)
    languages: tuple[Language, ...] = ()  # the site's, in order: each page's language switcher lists them
    sharing: Sharing = Sharing()  # absolute URLs, the edit link, the feeds (`sharing.py`)
    # lang -> the theme's words in it (`words`): made once, not for each page; not part of what the settings say.
    made_words: dict = field(default_factory=dict, repr=False, compare=False)

    def words(self, lang: str) -> dict[str, str]:
        if lang not in self.made_words:
            self.made_words[lang] = strings(lang, self.ui_strings)
        return self.made_words[lang]


class LanguageLink(NamedTuple):
    """One language in a page's language switcher: the page in it, else its home page (`translated` false)."""

    lang: str
    name: str
    url: str
    translated: bool
    home: str
    home_title: str


def site_languages(model: Model, ui_strings: dict) -> tuple[Language, ...]:
    return tuple(Language(lang, language_name(lang, ui_strings), home_url(lang, model.default_language),
                          strings(lang, ui_strings)["home"]) for lang in model.languages)  # fmt: skip


def language_links(page: Planned, languages: tuple[Language, ...]) -> list[LanguageLink]:
    """Each language of the site as `page` offers it: its counterpart there (its `alternates`), else that home page."""
    found = dict(page.alternates)
    found.setdefault(page.lang, page.url)
    return [LanguageLink(lang, name, found.get(lang, home), lang in found, home, home_title)
            for lang, name, home, home_title in languages]  # fmt: skip


@dataclass(slots=True)
class Planned:
    """One HTML page to render."""

    url: str
    lang: str
    template: str
    title: str
    context: dict
    key: tuple  # the same key in another language is this page's translation
    sitemap: bool = True
    lastmod: str | None = None
    alternates: list[tuple[str, str]] = field(default_factory=list)  # (hreflang, url)
    # A small file written beside the page whenever the page is rendered, made (first) from what its render reads (an
    # article's hover preview): (its path in the output folder, what makes its bytes). No page of its own: it
    # changes only with the page, whose digest names all it is made of.
    companion: tuple[str, Callable[[], bytes]] | None = None


# The context an article page takes from the navigation tree (a page's part of the tree: `PageJob.tree_key`).
TREE_PARTS = ("breadcrumbs", "previous_page", "next_page")
CONTENT = 48  # hex digits of a page digest naming all but its part of the tree; the rest name that part


def page_file(url: str) -> str:
    return f"{url}index.html"


@dataclass
class Rendered:
    pages: int  # HTML pages (articles, histories, wiki pages, 404)
    redirects: int
    keys: dict[str, str] = field(default_factory=dict)  # article and history page file -> digest of its inputs
    state: SiteState = field(default_factory=SiteState)  # what the pages were made of (page_digests.py)


@dataclass(frozen=True)
class Previous:
    """What the last build rendered: page file -> digest of its inputs, and which files are still there."""

    keys: dict[str, str] = field(default_factory=dict)
    exists: Callable[[str], bool] = lambda rel: False
    salt: str = ""  # the theme's digest: a changed template re-renders every page
    state: SiteState | None = None  # None unless every file it wrote is known to be in place: nothing is patched
    files: Callable[[], list[str]] = lambda: []  # every file it wrote
    pages: KeptPages | None = None  # the pages the last builds rendered, by digest: put back, not rendered again


@dataclass(frozen=True)
class PageJob:
    """What rendering one page needs besides the page."""

    env: Environment
    settings: Settings
    navs: dict[str, LanguageNav]
    previous: Previous
    salts: dict[str, str]  # lang -> digest of what all its pages share: settings, navigation, theme
    # The articles whose pages are rendered (None: all); the others' are the last build's (`emitting.Changes`).
    rendered: frozenset[str] | None = None
    # After a change of a big navigation tree: the articles whose pages may show another change; the others' pages
    # changed only if their part of the tree did (None: any page may have changed).
    moved: frozenset[str] | None = None
    # Then, lang -> the ids of the sections that list other pages than before, where only those may have changed
    # (`emitting._changed_sections`): a page whose branch holds none of them shows the tree it showed.
    changed_sections: dict[str, frozenset[int]] = field(default_factory=dict)
    records: dict[int, str] = field(default_factory=dict)  # id of an ArticlePage -> its digest

    def render(self, page: Planned) -> tuple[list[tuple[str, bytes | KeptFile | None]], str | None]:
        """The page's files (its own first, then its companion's), each with its bytes, None when the file there
        is already it, or the kept file it is (`kept_pages`); and the page's digest (None: not digested)."""
        rel = page_file(page.url)
        digested = page.key[0] in ("article", "history")
        if digested and self.rendered is not None and page.context["page"].path not in self.rendered \
                and rel in self.previous.keys:  # fmt: skip
            return _kept(rel, page), self.previous.keys[rel]
        unmoved = digested and self.moved is not None and page.context["page"].path not in self.moved
        last = self.previous.keys.get(rel, "") if unmoved else ""
        if last and self._same_tree(page) and self._in_place(rel, page):
            return _kept(rel, page), last
        tree = self.tree_key(page) if digested else ""
        if last and last[CONTENT:] == tree and self._in_place(rel, page):
            return _kept(rel, page), last
        key = self.digest(page, tree) if digested else None
        if key is not None and self.previous.keys.get(rel) == key and self._in_place(rel, page):
            return _kept(rel, page), key
        # A page missing from the output folder (emptied since: a CI job's) that a build before rendered is put back.
        # One in place is rendered to be compared: `written` names the files whose bytes changed.
        pages = self.previous.pages
        if key is not None and pages is not None and pages.any and not self.previous.exists(rel):
            rels = [rel] + ([page.companion[0]] if page.companion is not None else [])
            kept = pages.files(key, [os.path.basename(each) for each in rels])
            if kept is not None:
                return list(zip(rels, kept)), key
        beside = [(page.companion[0], page.companion[1]())] if page.companion is not None else []  # may read for both
        files = [(rel, render_page(self.env, self.settings, page, self.navs[page.lang].for_page(page.url))), *beside]
        if page.key[0] == "article":  # what its body read is not kept for the rest of the render
            page.context["page"].body.release()
        return files, key

    def write(self, page: Planned, writer) -> tuple[str, str | None]:
        """Render `page` into `writer` (a SiteWriter); return its file and its digest (None: not digested). A page
        rendered now is kept by its digest (`kept_pages`)."""
        files, key = self.render(page)
        for rel, data in files:
            if isinstance(data, KeptFile):
                writer.link(rel, data.path)
            else:
                writer.put(rel, data, kept=key is None)
        if key is not None and self.previous.pages is not None and isinstance(files[0][1], bytes):
            self.previous.pages.keep(key, [writer.path(rel) for rel, _ in files])
        return files[0][0], key

    def _same_tree(self, page: Planned) -> bool:
        return self.navs[page.lang].same_tree(page.url, self.changed_sections.get(page.lang))

    def _in_place(self, rel: str, page: Planned) -> bool:
        return self.previous.exists(rel) and (page.companion is None or self.previous.exists(page.companion[0]))

    def digest(self, page: Planned, tree: str) -> str:
        """Everything an article or history page is rendered from: the digest of all but its part of the navigation
        tree (CONTENT characters), then that part's (`tree`, its `tree_key`).

        An article's record is digested once, for its page and its history page
        (rendered one after the other, by the same process: `render_planned`).
        """
        context = tuple((name, self._record(value) if isinstance(value, ArticlePage) else value)
                        for name, value in page.context.items() if name not in TREE_PARTS)  # fmt: skip
        content = digest((page.template, page.title, page.url, page.lang, page.alternates, context, self.salts[page.lang]))
        return content[:CONTENT] + tree

    def tree_key(self, page: Planned) -> str:
        """What of its language's navigation tree a page shows: its own part of the sidebar, its breadcrumbs, and
        its previous and next pages."""
        context = page.context
        shown = (self.navs[page.lang].page_key(page.url), *(context.get(name) for name in TREE_PARTS))
        return digest(shown)[: 64 - CONTENT]

    def _record(self, record: ArticlePage) -> str:
        if id(record) not in self.records:
            self.records[id(record)] = digest(record)
        return self.records[id(record)]


def _kept(rel: str, page: Planned) -> list[tuple[str, None]]:
    """The files of a page the last build rendered from the same inputs: all kept as they are."""
    return [(rel, None)] + ([(page.companion[0], None)] if page.companion is not None else [])


def render_planned(
    job: PageJob, planned: list[Planned], writer, tick: Callable[[int], None], workers: int
) -> dict[str, str]:
    """Render every planned page into `writer`, by `workers` processes; return page file -> digest of its inputs.

    The pages of one article (its page, its history page) are handed on one after the other, so the
    process that renders them digests the article once; the other pages follow in their order.
    """
    return render_pages(job, by_article(planned), writer, tick, workers)


def by_article(planned: list[Planned]) -> list[Planned]:
    groups: dict[int, list[Planned]] = {}
    others = []
    for page in planned:
        record = page.context.get("page")
        if isinstance(record, ArticlePage):
            groups.setdefault(id(record), []).append(page)
        else:
            others.append(page)
    return [page for group in groups.values() for page in group] + others


def alternates(planned: list[Planned], default: str) -> None:
    """Pages sharing a key are one page in several languages; each lists all of them."""
    groups: dict[tuple, list[Planned]] = {}
    for page in planned:
        if not page.alternates:
            groups.setdefault(page.key, []).append(page)
    for group in groups.values():
        if len(group) > 1:
            for page in group:
                page.alternates = [(other.lang, other.url) for other in group]
    for page in planned:
        if len(page.alternates) > 1:
            fallback = next((url for lang, url in page.alternates if lang == default), page.alternates[0][1])
            page.alternates = sorted(set(page.alternates)) + [("x-default", fallback)]
        else:
            page.alternates = []


def nav(
    env: Environment, model: Model, settings: Settings, lang: str, tree: Tree, known: dict | None = None
) -> LanguageNav:
    """The shared navigation of one language, rendered once; each page's copy marks its place in `tree`. `known`: the
    last build's digests of its sections (`LanguageNav`)."""
    default = model.default_language
    homes = [(other, home_url(other, default)) for other in model.languages]
    specials = {name: special_url(name, lang, default) for name in SPECIALS}
    t = strings(lang, settings.ui_strings)
    html = env.get_template("nav.html").render(
        site_name=settings.site_name, lang=lang, t=t, home=home_url(lang, default), homes=homes,
        specials=specials, search=settings.search, tree=Markup(SLOT),
    )  # fmt: skip
    labels = {"all_url": specials["all"], "section_pages": t["section_pages"]}
    return LanguageNav(html, tree, settings.base_url, labels, known)


def render_page(env: Environment, settings: Settings, page: Planned, nav: Markup) -> bytes:
    html = env.get_template(page.template).render(
        site_name=settings.site_name, lang=page.lang, t=settings.words(page.lang), nav=nav,
        title=page.title, url=page.url, alternates=page.alternates, search=settings.search,
        language_links=language_links(page, settings.languages), sharing=settings.sharing,
        shared=settings.sharing.page(page.url, page.alternates, page.lang), **page.context,
    )  # fmt: skip
    return html.encode()
