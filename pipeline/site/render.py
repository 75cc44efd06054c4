"""The model and wiki pages, through the templates, as the files of the site: path -> bytes.

Every page is planned first (URL, language, template, context, and a key
naming the same page in other languages), so hreflang alternates are known
before anything is rendered. The navigation is rendered once per language
and handed to every page as Markup. Nothing here touches the disk.
"""

from __future__ import annotations

import hashlib
import shutil
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

from jinja2 import (
    ChoiceLoader, Environment, FileSystemBytecodeCache, FileSystemLoader, FunctionLoader, StrictUndefined,
    select_autoescape,
)  # fmt: skip
from markupsafe import Markup

from pipeline.incremental.code_digest import code_digest
from pipeline.site import pages as wiki_pages
from pipeline.site.model import ArticlePage, Link, Model
from pipeline.site.page_digests import Patch, SiteState, digest, patch, site_state
from pipeline.site.parallel import render_pages
from pipeline.site.theme import assets, builtin_root, strings
from pipeline.urls import home_url, href, special_url

SPECIALS = ("categories", "all", "wanted", "recent")
# The wiki pages that show an article's own parts (its revisions), planned after any edit. The lists of pages
# (all pages, a category's) show each page's title and URL (`Link`s): a page summary's, planned when page summaries change.
PATCHED = ("home", "recent")


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
    env = Environment(
        loader=ChoiceLoader([*loaders, FunctionLoader(builtin)]),
        autoescape=select_autoescape(["html", "xml"], default_for_string=True, default=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        bytecode_cache=_compiled_cache(compiled, base_url) if compiled else None,
    )
    env.globals["base"] = base_url
    env.filters["url"] = lambda url: href(url, base_url)  # only http, https and mailto URLs leave the site
    env.filters["short"] = lambda sha: (sha or "")[:12]
    env.filters["day"] = lambda iso: (iso or "")[:10]
    env.filters["minute"] = lambda iso: (iso or "")[:16].replace("T", " ") + (" UTC" if iso else "")
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


@dataclass(frozen=True)
class Settings:
    site_name: str
    base_url: str  # ends with '/'
    search: bool
    templates_dir: Path | None = None


@dataclass
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


def render_files(
    model: Model, settings: Settings, env: Environment, writer, tick: Callable[[int], None] = lambda n: None,
    previous: Previous = Previous(), workers: int = 1,
) -> Rendered:
    """Hand every file of the site to `writer` (`put(path, bytes)`), one at a time.

    Article and history pages whose inputs are those of the file already in
    the output folder are not rendered again (`writer` gets None for them).
    When only some articles' own parts changed, or page summaries that keep every page in
    place (`state.patch`), only their pages, those showing them and the lists
    are planned; the writer keeps the rest of the last build's files. When
    articles were added, every page is planned, but only those pages rendered:
    the other articles' are the last build's files. Pages are rendered by
    `workers` processes.
    """
    navs = {lang: _nav(env, model, settings, lang) for lang in model.languages}
    salts = {lang: hashlib.sha256(repr((settings, str(nav), previous.salt)).encode()).hexdigest() for lang, nav in navs.items()}
    revisions = wiki_pages.revisions(model)
    histories = wiki_pages.histories(revisions)
    state = site_state(model, salts, histories)
    only = patch(previous.state, state, model)
    every = only is None or only.every
    planned = plan_pages(model, revisions, histories, None if every else only)
    if only is None:  # every article page will ask for its backlinks
        model.backlinks.index()
    _alternates(planned, model.default_language)
    rendered = only.articles if only is not None and only.every else None
    keys = render_pages(PageJob(env, settings, navs, previous, salts, rendered), planned, writer, tick, workers)
    if not every:  # every other file is the last build's
        kept = set(writer.files)
        writer.keep([rel for rel in previous.files() if rel not in kept])
        pages, redirects = previous.state.pages, previous.state.redirects
        return Rendered(pages, redirects, {**previous.keys, **keys}, replace(state, pages=pages, redirects=redirects))
    redirects = _site_files(model, settings, env, writer, planned, navs)
    pages = len(planned) + 1
    return Rendered(pages, redirects, keys, replace(state, pages=pages, redirects=redirects))


def _site_files(model: Model, settings: Settings, env: Environment, writer, planned: list[Planned], navs) -> int:
    """Put the files that are not pages of `planned`: redirects, 404, sitemap, robots.txt, assets; return the redirects."""
    redirects = wiki_pages.redirects(model, {page.url for page in planned})
    for redirect in redirects:
        html = env.get_template("redirect.html").render(target=redirect.target, lang=redirect.lang, t=strings(redirect.lang))
        writer.put(page_file(redirect.source), html.encode())
    default = model.default_language
    not_found = Planned("404.html", default, "404.html", strings(default)["not_found"], {}, ("404",), sitemap=False)
    writer.put("404.html", _render(env, settings, not_found, navs[default]))
    writer.put("sitemap.xml", env.get_template("sitemap.xml").render(pages=[p for p in planned if p.sitemap]).encode())
    writer.put("robots.txt", env.get_template("robots.txt").render().encode())
    for rel, data in assets(settings.templates_dir).items():
        writer.put(rel, data)
    return len(redirects)


@dataclass(frozen=True)
class PageJob:
    """What rendering one page needs besides the page."""

    env: Environment
    settings: Settings
    navs: dict[str, Markup]
    previous: Previous
    salts: dict[str, str]  # lang -> digest of what all its pages share: settings, navigation, theme
    # The articles whose pages are rendered (None: all); the others' are the last build's (`state.patch`).
    rendered: set[str] | None = None
    records: dict[int, str] = field(default_factory=dict)  # id of an ArticlePage -> its digest

    def render(self, page: Planned) -> tuple[str, bytes | None, str | None]:
        """(file, bytes or None when the file there is already this page, digest or None)."""
        rel, nav = page_file(page.url), self.navs[page.lang]
        key = None
        if page.key[0] in ("article", "history"):
            if self.rendered is not None and page.context["page"].path not in self.rendered and rel in self.previous.keys:
                return rel, None, self.previous.keys[rel]
            key = self.digest(page)
            if self.previous.keys.get(rel) == key and self.previous.exists(rel):
                return rel, None, key
        data = _render(self.env, self.settings, page, nav)
        if page.key[0] == "article":  # what its body read is not kept for the rest of the render
            page.context["page"].body.release()
        return rel, data, key

    def digest(self, page: Planned) -> str:
        """Everything an article or history page is rendered from.

        An article's record is digested once, for its page and its history page
        (rendered one after the other, by the same process).
        """
        context = tuple((name, self._record(value) if isinstance(value, ArticlePage) else value)
                        for name, value in page.context.items())  # fmt: skip
        return digest((page.template, page.title, page.url, page.lang, page.alternates, context,
                        self.salts[page.lang]))  # fmt: skip

    def _record(self, record: ArticlePage) -> str:
        if id(record) not in self.records:
            self.records[id(record)] = digest(record)
        return self.records[id(record)]


def plan_pages(model: Model, revisions: list, histories: dict[str, list], only: Patch | None = None) -> list[Planned]:
    """Every HTML page of the site: articles, their histories, and each language's wiki pages.

    With `only`: its articles' pages, and the wiki pages that show what is an article's own
    (PATCHED), or all of them when page summaries changed, as a build planning only those needs.
    """
    categories = wiki_pages.categories(model)  # first: it gives each article its category links
    planned = []
    for page in model.articles:
        if only is None or page.path in only.articles:
            planned.append(_article(page))
            planned.append(
                Planned(page.history_url, page.lang, "history.html", f"{strings(page.lang)['history_of']} {page.title}",
                        {"page": page, "revisions": histories.get(page.path, [])}, ("history", page.path), sitemap=False)
            )  # fmt: skip
    recent = wiki_pages.recent_changes(model, revisions)
    if only is None or only.lists:
        return planned + _language_pages(model, categories, wiki_pages.wanted(model), recent)
    return planned + _language_pages(model, categories, {}, recent, PATCHED)


def _article(page: ArticlePage) -> Planned:
    key = ("article", min([page.path, *page.pair_paths]))
    planned = Planned(page.url, page.lang, "article.html", page.title, {"page": page}, key, not page.draft, page.updated)
    planned.alternates = [(page.lang, page.url)] + [(t.lang, t.url) for t in page.translations]
    return planned


def _language_pages(model: Model, categories, wanted, recent, kinds: tuple[str, ...] | None = None) -> list[Planned]:
    """Each language's wiki pages, or those of `kinds` only (their keys' first part: `home`, `all`, ...)."""
    default = model.default_language
    chosen = (lambda kind: True) if kinds is None else (lambda kind: kind in kinds)
    planned = []
    homes = {page.url for page in model.articles}
    for lang in model.languages:
        t = strings(lang)
        if home_url(lang, default) not in homes and chosen("home"):  # a language's `index.md` is its home page
            context = {"categories": categories[lang], "recent": recent[lang][:10]}
            planned.append(Planned(home_url(lang, default), lang, "home.html", t["home"], context, ("home",)))
        contexts = {  # made only for the pages planned (the list of all pages sorts thousands)
            "categories": ("categories.html", t["categories"], lambda: {"categories": categories[lang]}),
            "all": ("all.html", t["all_pages"], lambda: {"pages": _all_pages(model, lang)}),
            "wanted": ("wanted.html", t["wanted"], lambda: {"wanted": wanted[lang]}),
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


def _all_pages(model: Model, lang: str) -> list[Link]:
    """The language's pages by title, as links: what the list shows of each is its page summary's (its title and URL)."""
    listing = [Link(page.title, page.url, lang) for page in model.articles if page.lang == lang]
    return sorted(listing, key=lambda link: link.title.casefold())


def _alternates(planned: list[Planned], default: str) -> None:
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


def _nav(env: Environment, model: Model, settings: Settings, lang: str) -> Markup:
    """The shared navigation of one language, rendered once."""
    default = model.default_language
    homes = [(other, home_url(other, default)) for other in model.languages]
    specials = {name: special_url(name, lang, default) for name in SPECIALS}
    html = env.get_template("nav.html").render(
        site_name=settings.site_name, lang=lang, t=strings(lang), home=home_url(lang, default), homes=homes,
        specials=specials, search=settings.search,
    )  # fmt: skip
    return Markup(html)


def _render(env: Environment, settings: Settings, page: Planned, nav: Markup) -> bytes:
    html = env.get_template(page.template).render(
        site_name=settings.site_name, lang=page.lang, t=strings(page.lang), nav=nav, title=page.title,
        url=page.url, alternates=page.alternates, search=settings.search, **page.context,
    )  # fmt: skip
    return html.encode()
