"""The one render path: the site's emitters, in their table's order, over one model; their pages rendered together.

Every build that renders runs each emitter (`emitters/base.py`): its `emit`,
or, when the last site is in place and only articles changed
(`page_digests.patch`), its `emit_changed` where it has one. The HTML pages
they plan are rendered once all of them ran, in one pass over several
processes (`render.render_planned`); the emitters that list the pages (the
sitemap, the redirects) run after the others planned theirs. After an edit,
the last build's files that no emitter put are kept as they are, but those
of an emitter without `emit_changed`: it put all of its files again, and
what it no longer puts goes.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any, Callable

from jinja2 import Environment

from pipeline.config import Config
from pipeline.errors import UserError
from pipeline.site import SiteReport
from pipeline.site import navigation
from pipeline.site import pages as wiki_pages
from pipeline.site.model import Model
from pipeline.site.page_digests import SiteState, patch, site_state
from pipeline.site.sidebar import INPUTS, SKELETON
from pipeline.site.render import (
    PageJob, Planned, Previous, Rendered, Settings, alternates, nav, page_file, render_page, render_planned,
)  # fmt: skip

# What the render path is handed for each emitter: (name as configured, the Emitter, its options).
Entry = tuple[str, Any, dict]


@dataclass(frozen=True)
class Changes:
    """What changed since the last site, when only articles did (`page_digests.patch`)."""

    articles: frozenset[str]  # the articles whose own pages (page, history page) are rendered again
    added: frozenset[str]  # the articles the last site did not have (in `articles` too)
    lists: bool  # the wiki pages (lists of titles, red links) may show a change
    # Every page is planned again (articles were added: the sitemap and the redirects list every page), though
    # only those of `articles` are rendered.
    every_page: bool
    # A navigation tree too big for every page to list whole lists other pages (a title in it changed, a page was
    # added): the articles whose part of the tree may show it, whose pages are planned too; only those whose part
    # of the tree changed are rendered.
    tree_pages: frozenset[str] = frozenset()


@dataclass
class Site:
    """What every output reads: the wiki model and settings, and what several outputs share, made once."""

    config: Config
    model: Model
    settings: Settings
    revisions: list[wiki_pages.Revision]  # the capture log, oldest first
    histories: dict[str, list[wiki_pages.Revision]]  # article path -> its revisions, newest first
    attachments: dict[str, str] = field(default_factory=dict)  # path -> sha256 of each file not a note
    workers: int = 1  # processes the outputs may use
    search_later: Any = None  # the preview's BackgroundIndex: the search index is made in the background
    git: Any = None  # the content folder's git history (content/git_history.py's GitLog), None outside a repository

    @cached_property
    def categories(self) -> dict[str, list[wiki_pages.Category]]:
        """lang -> its categories; made before any page is planned: it gives each article its category links."""
        return wiki_pages.categories(self.model)

    @cached_property
    def navigation(self) -> dict[str, navigation.Tree]:
        """lang -> its navigation tree (`navigation.py`): the sidebar of every page, each article's breadcrumbs."""
        return navigation.trees(self.model, self.config.nav, self.categories)

    @cached_property
    def recent(self) -> dict[str, list[wiki_pages.Revision]]:
        return wiki_pages.recent_changes(self.model, self.revisions)

    @cached_property
    def wanted(self) -> dict[str, list[wiki_pages.Wanted]]:
        return wiki_pages.wanted(self.model)


class Output:
    """Where emitters put the site's files: HTML pages planned for the render path, other files as bytes."""

    def __init__(self, writer, env: Environment, settings: Settings, navs: dict, default_language: str) -> None:
        self.writer, self.env, self.settings, self.navs = writer, env, settings, navs
        self.default_language = default_language
        self.planned: list[Planned] = []
        self.rendered_alone = 0  # pages rendered by `render_page` (the 404 page)
        self.puts: Counter[str] = Counter()  # emitter -> files it put
        self.owned: dict[str, dict] = {}  # emitter without `emit_changed` -> {"files", "pages"} (SiteState.emitted)
        self.steps: list[Callable[[SiteReport], None]] = []
        self.emitter = ""
        self._listed = False

    def start(self, name: str, owns: bool) -> None:
        """The emitter `name` puts the next files; `owns`: the files it puts are all of its files."""
        self.emitter = name
        if owns:
            self.owned[name] = {"files": [], "pages": 0}

    def page(self, page: Planned) -> None:
        """Plan an HTML page, rendered with every other once all emitters ran."""
        if self._listed:
            raise RuntimeError(f"emitter {self.emitter}: a page planned after the pages were listed (lists_pages)")
        self.planned.append(page)
        owned = self.owned.get(self.emitter)
        if owned is not None:  # (not per page of an emitter that has `emit_changed`: the articles', thousands)
            owned["files"].append(page_file(page.url))
            owned["pages"] += 1

    def put(self, rel: str, data: bytes) -> None:
        """Write the file `rel` (relative to the output folder) now, where its bytes changed."""
        self.writer.put(rel, data)
        self.puts[self.emitter] += 1
        if self.emitter in self.owned:
            self.owned[self.emitter]["files"].append(rel)

    def taken(self) -> set[str]:
        """The files put so far by every emitter, and those the other emitters put last build (an emitter that
        keeps its last files after an edit does not put them again)."""
        return set(self.writer.files) | (set(self.writer.previous()) - set(self.writer.last_copies))

    def copy(self, rel: str, source, digest: str) -> None:
        """Copy the file `source` to `rel`, streamed, unless the last build copied the same bytes (`digest`) there."""
        self.writer.copy(rel, source, digest)
        self.puts[self.emitter] += 1
        if self.emitter in self.owned:
            self.owned[self.emitter]["files"].append(rel)

    def render(self, template: str, **context) -> bytes:
        """A template of the theme (the wiki's own first) with `context`, as bytes."""
        return self.env.get_template(template).render(**context).encode()

    def render_page(self, page: Planned) -> bytes:
        """One HTML page rendered now, as every planned page is (navigation, settings), for a file of its own name."""
        self.rendered_alone += 1
        if self.emitter in self.owned:
            self.owned[self.emitter]["pages"] += 1
        return render_page(self.env, self.settings, page, self.navs[page.lang].for_page(page.url))

    @property
    def pages(self) -> list[Planned]:
        """Every HTML page planned (for the emitters that list them), each with its translations (`alternates`)."""
        if not self._listed:
            alternates(self.planned, self.default_language)
            self._listed = True
        return self.planned

    def after(self, step: Callable[[SiteReport], None]) -> None:
        """Run `step` once every file of the site is in place (and the preview reloaded): the search index."""
        self.steps.append(step)


def render_files(
    site: Site, env: Environment, writer, emitters: list[Entry], previous: Previous, tick: Callable[[int], None],
) -> tuple[Rendered, Output]:
    """Run every emitter into `writer` (a SiteWriter) and render the pages they planned.

    Article and history pages whose inputs are those of the file already in the output folder are
    not rendered again. After an edit (`Changes`), only the emitters' changed files are put; the
    writer keeps the rest of the last build's files. Pages are rendered by `site.workers` processes.
    """
    model, settings = site.model, site.settings
    known = previous.state.sections if previous.state is not None else {}
    navs = {lang: nav(env, model, settings, lang, site.navigation[lang], known.get(lang)) for lang in model.languages}
    salts = {lang: hashlib.sha256(repr((settings, shown.shared, previous.salt)).encode()).hexdigest() for lang, shown in navs.items()}
    sections = {lang: shown.sections for lang, shown in navs.items() if not shown.full}
    state = replace(site_state(model, salts, site.histories), sections=sections)
    changes = changes_since(previous.state, state, model, emitters)
    # A big tree changed (a page added, retitled): the article pages under its changed sections are planned too; the
    # changed articles' pages are digested, the others' parts of the tree alone (`PageJob.moved`), and only the pages
    # whose digest changed are rendered. The other outputs (histories, sitemap, redirects) show no page's tree: they
    # are told what changed.
    digest_all = changes is not None and previous.state is not None and previous.state.sections != sections
    changed = _changed_sections(previous.state, navs) if digest_all else {}
    if digest_all:
        changes = replace(changes, tree_pages=_under_changed_sections(model, navs, changed))
    site.categories  # noqa: B018 (made now: each article's page shows its category links)
    out = Output(writer, env, settings, navs, model.default_language)
    problems = sorted({problem for tree in site.navigation.values() for problem in tree.problems})
    if problems:  # `nav:` entries naming no article: warnings (`--strict` fails)
        out.after(lambda report: report.warnings.extend(problems))
    for name, emitter, options in sorted(emitters, key=lambda entry: entry[1].lists_pages):  # stable: table order
        out.start(name, owns=emitter.emit_changed is None)
        _run(name, emitter, site, changes, out, options)
    if changes is None:  # every article page will ask for its backlinks
        model.backlinks.index()
    only = changes.articles if changes is not None and changes.every_page and not digest_all else None
    moved = changes.articles if digest_all else None  # the other articles' pages: changed if their part of the tree did
    job = PageJob(env, settings, navs, previous, salts, only, moved, changed)
    keys = render_planned(job, out.pages, writer, tick, site.workers)
    if previous.pages is not None:
        previous.pages.forget(_replaced(previous.keys, keys, every=changes is None))
    if changes is not None:
        _keep_last_files(writer, previous, out)
        keys = {**previous.keys, **keys}
    pages, redirects = _counts(previous.state, changes, out)
    return Rendered(pages, redirects, keys, replace(state, pages=pages, redirects=redirects, emitted=out.owned)), out


def _changed_sections(last: SiteState, navs: dict) -> dict[str, frozenset[int]]:
    """lang -> the ids of the sections of its big tree that list other pages than the last build's, where the
    sections themselves and the pages at the top are the last build's (else the language is left out: any page's
    part of the tree may have changed)."""
    changed = {}
    for lang, shown in navs.items():
        before, now = last.sections.get(lang), shown.sections
        if shown.full or not isinstance(before, dict) or any(before.get(key) != now[key] for key in (SKELETON, "")):
            continue
        places = {place for place in now.keys() | before.keys() if before.get(place) != now.get(place)} - {INPUTS}
        if places <= shown.section_ids.keys():
            changed[lang] = frozenset(shown.section_ids[place] for place in places)
    return changed


def _under_changed_sections(model: Model, navs: dict, changed: dict[str, frozenset[int]]) -> frozenset[str]:
    """The articles whose part of their language's tree may show a change: those on a branch through a section that
    changed (`changed`), and every article of a language where any part may have (`_changed_sections` left it out)."""
    same = lambda page: navs[page.lang].same_tree(page.url, changed.get(page.lang))  # noqa: E731
    return frozenset(page.path for page in model.articles if not same(page))


def _run(name: str, emitter, site: Site, changes: Changes | None, out: Output, options: dict) -> None:
    try:
        if changes is None or emitter.emit_changed is None:
            emitter.emit(site, out, **options)
        else:
            emitter.emit_changed(site, changes, out, **options)
    except (OSError, UserError):  # a full disk, a file that cannot be written: the build's own messages
        raise
    except Exception as exc:  # an emitter's code (a wiki's own, an installed package's): one line naming it
        raise UserError(f"emitter {name} failed: {type(exc).__name__}: {exc}") from exc


def changes_since(last: SiteState | None, now: SiteState, model: Model, emitters: list[Entry]) -> Changes | None:
    """What changed since the last site (None: anything may have: every emitter emits all). An emitter that lists
    every page and has no `emit_changed` has every page planned again."""
    found = patch(last, now, model)
    if found is None:
        return None
    every = found.every or any(emitter.lists_pages and emitter.emit_changed is None for _, emitter, _ in emitters)
    added = frozenset(now.own.keys() - last.own.keys())
    return Changes(frozenset(found.articles), added, found.lists or every, every)


def _replaced(last: dict[str, str], keys: dict[str, str], every: bool) -> list[str]:
    """The digests of the last build's pages that `keys` (this render's pages) replaced, and with `every` (every page
    was planned) of those no page has now."""
    replaced = [old for rel, key in keys.items() if (old := last.get(rel, key)) != key]
    return replaced + [key for rel, key in last.items() if rel not in keys] if every else replaced


def _keep_last_files(writer, previous: Previous, out: Output) -> None:
    """Count the last build's files that no emitter put as this build's, but those of an emitter that puts all
    of its files every build (what it put no more goes)."""
    put = set(writer.files)
    gone = {rel for owned in previous.state.emitted.values() for rel in owned["files"]}
    writer.keep([rel for rel in previous.files() if rel not in put and rel not in gone])


def _counts(last: SiteState | None, changes: Changes | None, out: Output) -> tuple[int, int]:
    """The site's pages and redirects: when every page was planned, those planned; else (after an edit) the
    last build's, with the pages of the emitters that put all of theirs counted again."""
    if changes is None or changes.every_page:
        return len(out.planned) + out.rendered_alone, out.puts["redirects"]
    again = sum(owned["pages"] - last.emitted.get(name, {}).get("pages", 0) for name, owned in out.owned.items())
    return last.pages + again, last.redirects
