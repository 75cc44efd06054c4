"""The render step of a build: the wiki model, through the emitters and the templates, into the output folder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from pipeline.config import Config
from pipeline.content.facts import Change
from pipeline.incremental.kept_pages import KEPT_PAGES, KeptPages
from pipeline.incremental.page_summaries import PageSummaries, load_summaries, save_summaries
from pipeline.passes.base import Wiki
from pipeline.runtime.lifespan import keep_until_exit
from pipeline.site import COMPILED_TEMPLATES, MANIFEST, SEARCH_PENDING, PAGE_SUMMARIES, LastRender, SiteReport
from pipeline.site import pages as wiki_pages
from pipeline.site.emitting import Entry, Site, render_files
from pipeline.site.model import Model, build_model
from pipeline.site.page_digests import SiteState, recorded_state
from pipeline.site.render import Previous, Settings, environment, site_languages
from pipeline.site.sharing import sharing
from pipeline.site.theme import check_ui_strings, theme_digest
from pipeline.site.writer import SiteWriter, in_output
from pipeline.urls import normalize_base

if TYPE_CHECKING:
    from pipeline.site.search import BackgroundIndex


def render_site(
    config: Config, wiki: Wiki, log: list[Change], versions: dict[str, int], emitters: list[Entry], setting: str = "", *,
    tick: Callable[[int], None] | None = None, workers: int = 1, intact: bool = False,
    written: Callable[[], None] = lambda: None, summaries: PageSummaries | None = None, search_later: BackgroundIndex | None = None,
    last_render: LastRender | None = None,
) -> SiteReport:
    """Render the wiki into `config.out_dir`; `versions` is pass name -> version of the results in `wiki`.

    `emitters`: (name, Emitter, options) of each output, in order (`site/emitters/`); `setting`: their table as
    wiki.yaml configures it, which every page's digest names.
    `intact`: every file of the last build is known to be in the output folder (the build
    looked, beside capture), so a page whose inputs are unchanged is not looked for again.
    `written` is called once the pages are in place, before the search index is rebuilt
    (the preview reloads then: in a big wiki the index takes longer than the build).
    `summaries`: the page summaries of the last build, when the caller keeps them (see `model_of`).
    `search_later` (the preview's): the search index is built in the background, not before returning.
    `last_render`: what the last build's render left, when the build read it ahead (`LastRender`).
    """
    check_ui_strings(config.ui_strings)  # before any work: an unknown word key is a wiki.yaml error
    left = last_render or LastRender(config)
    last = recorded_state(left.record.state) if intact else None
    known = summaries if summaries is not None else left.take_summaries  # taken by model_of: not held while rendering
    model = model_of(config, wiki, log, versions, known, last.summaries if last else {}, last.tags if last else None)
    settings = Settings(config.site_name, normalize_base(config.base_url), config.search, config.templates_dir, setting,
                        config.ui_strings, site_languages(model, config.ui_strings),
                        sharing(config, normalize_base(config.base_url), emitters))  # fmt: skip
    compiled = config.state_dir / COMPILED_TEMPLATES
    compiled.mkdir(exist_ok=True)
    env = environment(config.templates_dir, settings.base_url, compiled)
    writer, previous = _writer(config, left, last, intact)
    git = wiki.facts.get("git")
    revisions = wiki_pages.revisions(model, git)
    site = Site(config, model, settings, revisions, wiki_pages.histories(revisions), dict(wiki.attachments), workers,
                search_later, git)  # fmt: skip
    rendered, out = render_files(site, env, writer, emitters, previous, tick or (lambda n: None))
    files = writer.finish(rendered.keys, vars(rendered.state))  # not asdict: it would copy every own key
    report = SiteReport(
        pages=rendered.pages, redirects=rendered.redirects, files=len(writer.files), written=files.written,
        unchanged=files.unchanged, removed=files.removed, conflicts=model.conflicts, from_kept=files.linked,
    )  # fmt: skip
    written()
    for step in out.steps:  # the search index
        step(report)
    keep_until_exit(model, rendered, previous, writer, site, out)  # a command line's exit drops them (see `lifespan`)
    return report


def _writer(config: Config, left: LastRender, last: SiteState | None, intact: bool) -> tuple[SiteWriter, Previous]:
    """What writes this build's files (the last build's kept, to link back), and what it knows of the last build's
    pages: their keys, their state (`last`, when the output folder is `intact`), whether each file is still there."""
    exists = (lambda rel: True) if intact else in_output(config.out_dir)
    # Before its first write, so a build stopped while writing leaves the index to be made again too.
    pending = (lambda: (config.state_dir / SEARCH_PENDING).touch()) if config.search else (lambda: None)
    kept = KeptPages(config.state_dir / KEPT_PAGES)
    writer = SiteWriter(config.out_dir, config.state_dir / MANIFEST, before_writing=pending, last=left.record, kept=kept)
    previous = Previous(left.record.keys, exists, theme_digest(config.templates_dir), state=last, files=writer.previous,
                        pages=kept)  # fmt: skip
    return writer, previous


def model_of(
    config: Config, wiki: Wiki, log: list[Change], versions: dict[str, int],
    summaries: PageSummaries | Callable[[], PageSummaries], last_keys: dict, last_tags: dict | None = None,
) -> Model:
    """The model of `wiki`, made with the page summaries of the last build, which this build's replace.

    `summaries`: its `known` are the last build's (none: read from the state folder), and its `used` this one's;
    a caller that outlives the build (`serve`) keeps it; else it comes from a call (`LastRender.take_summaries`)
    and is let go once the model is made (the paths they link to are not held while rendering).
    `last_keys` (article path -> page summary key, of the last build's pages) names the page summaries that changed,
    `last_tags` the last build's tags (`build_model`).
    """
    kept = config.state_dir / PAGE_SUMMARIES
    summaries = summaries() if callable(summaries) else summaries
    if not summaries.known:
        summaries.known = load_summaries(kept).known
    model = build_model(wiki, log, versions, summaries, last_keys, last_tags)
    if summaries.changed or not kept.exists():
        save_summaries(kept, summaries)
    return model
