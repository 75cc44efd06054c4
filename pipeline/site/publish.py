"""The render step of a build: the wiki model, through the templates, into the output folder."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

from pipeline.config import Config
from pipeline.content.facts import Change
from pipeline.incremental.page_summaries import PageSummaries, load_summaries, save_summaries
from pipeline.passes.base import Wiki
from pipeline.runtime.lifespan import keep_until_exit
from pipeline.site import (
    COMPILED_TEMPLATES, MANIFEST, SEARCH_PENDING, PAGE_SUMMARIES, SiteReport, normalize_base, search_pending,
)  # fmt: skip
from pipeline.site.model import Model, build_model
from pipeline.site.page_digests import digest, recorded_state
from pipeline.site.render import Previous, Settings, environment, page_file, render_files
from pipeline.site.shards import Shard, shards_of
from pipeline.site.theme import theme_digest
from pipeline.site.writer import SiteWriter, in_output, previous_keys

if TYPE_CHECKING:
    from pipeline.site.search import BackgroundIndex


def render_site(
    config: Config, wiki: Wiki, log: list[Change], versions: dict[str, int], *,
    tick: Callable[[int], None] | None = None, workers: int = 1, intact: bool = False,
    written: Callable[[], None] = lambda: None, summaries: PageSummaries | None = None, search_later: BackgroundIndex | None = None,
) -> SiteReport:
    """Render the wiki into `config.out_dir`; `versions` is pass name -> version of the results in `wiki`.

    `intact`: every file of the last build is known to be in the output folder (the build
    looked, beside capture), so a page whose inputs are unchanged is not looked for again.
    `written` is called once the pages are in place, before the search index is rebuilt
    (the preview reloads then: in a big wiki the index takes longer than the build).
    `summaries`: the page summaries of the last build, when the caller keeps them (see `model_of`).
    `search_later` (the preview's): the search index is built in the background, not before returning.
    """
    manifest = config.state_dir / MANIFEST
    keys, state = previous_keys(manifest, config.out_dir)
    last = recorded_state(state) if intact else None
    model = model_of(config, wiki, log, versions, summaries, last.summaries if last else {})
    settings = Settings(config.site_name, normalize_base(config.base_url), config.search, config.templates_dir)
    compiled = config.state_dir / COMPILED_TEMPLATES
    compiled.mkdir(exist_ok=True)
    env = environment(config.templates_dir, settings.base_url, compiled)
    exists = (lambda rel: True) if intact else in_output(config.out_dir)
    # Before its first write, so a build stopped while writing leaves the index to be made again too.
    pending = (lambda: (config.state_dir / SEARCH_PENDING).touch()) if config.search else (lambda: None)
    writer = SiteWriter(config.out_dir, manifest, before_writing=pending)
    previous = Previous(keys, exists, theme_digest(config.templates_dir), state=last, files=writer.previous)
    rendered = render_files(model, settings, env, writer, tick or (lambda n: None), previous, workers)
    files = writer.finish(rendered.keys, vars(rendered.state))  # not asdict: it would copy every own key
    report = SiteReport(
        pages=rendered.pages, redirects=rendered.redirects, files=len(writer.files), written=files.written,
        unchanged=files.unchanged, removed=files.removed, conflicts=model.conflicts,
    )  # fmt: skip
    written()
    if search_pending(config):
        _index(config, model, report, search_later, workers)
    keep_until_exit(model, rendered, previous, writer)  # a command line's exit drops them (see `lifespan`)
    return report


def _shards(model: Model, config: Config) -> list[Shard]:
    """The search shards of the article pages, each page known by what Pagefind reads of it: its URL,
    language, title (its h1) and body (`data-pagefind-body`: the html and citations results), in this theme.
    Not by all it shows: a page whose "What links here" changed needs no indexing again."""
    salt = theme_digest(config.templates_dir)
    pages = [(page_file(page.url), page.lang) for page in model.articles]
    keys = {file: digest((page.url, page.lang, page.title, page.body.identity, salt))
            for (file, _), page in zip(pages, model.articles)}  # fmt: skip
    return shards_of(pages, keys)


def _index(
    config: Config, model: Model, report: SiteReport, later: BackgroundIndex | None, workers: int
) -> None:
    """Index the site's shards now, `workers` Pagefind runs at a time, or start indexing them in the background
    (`later`), one run at a time: the preview's next rebuild needs the CPU."""
    # Imported here: a build with nothing to index never loads the search code, nor the thread pool it runs in.
    from pipeline.site.search import Indexing, index_site

    indexing = Indexing(config.out_dir, config.state_dir, _shards(model, config))

    def done(warning: str | None) -> None:
        if warning is None:
            (config.state_dir / SEARCH_PENDING).unlink(missing_ok=True)

    if later is not None:
        later.start(indexing, done)
        report.indexing = True
        return
    warning = index_site(indexing, workers=workers)
    report.indexed = warning is None
    report.warnings += [warning] if warning else []
    done(warning)


def model_of(
    config: Config, wiki: Wiki, log: list[Change], versions: dict[str, int], summaries: PageSummaries | None, last_keys: dict,
) -> Model:
    """The model of `wiki`, made with the page summaries of the last build, which this build's replace.

    `summaries` is a caller's that outlives the build (`serve`): its `known` are the last build's (none: read
    from the state folder), and its `used` this one's. Without it the page summaries are read from the state
    folder and let go once the model is made (the paths they link to are not held while rendering).
    `last_keys` (article path -> page summary key, of the last build's pages) names the page summaries that changed.
    """
    kept = config.state_dir / PAGE_SUMMARIES
    summaries = PageSummaries() if summaries is None else summaries
    if not summaries.known:
        summaries.known = load_summaries(kept).known
    model = build_model(wiki, log, versions, summaries, last_keys)
    if summaries.changed or not kept.exists():
        save_summaries(kept, summaries)
    return model
