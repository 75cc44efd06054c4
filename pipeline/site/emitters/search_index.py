"""The search index: Pagefind over the article pages, in shards (`site/search.py`), once every file is in place.

It runs on every build that renders (`search: false` turns it off): whether
there is anything to index is the search index's own record to say (the
pages written since it was last whole, `search-pending`, and each shard's digest).
"""

from __future__ import annotations

from pipeline.site import SEARCH_PENDING, SiteReport, search_pending
from pipeline.site.emitters.base import Emitter
from pipeline.site.page_digests import digest
from pipeline.site.render import page_file
from pipeline.site.shards import Shard, shards_of
from pipeline.site.theme import theme_digest


def emit(site, out) -> None:
    out.after(lambda report: index(site, report))


def index(site, report: SiteReport) -> None:
    """Index the site's shards now, `site.workers` Pagefind runs at a time, or start indexing them in the background
    (the preview's `site.search_later`), one run at a time: the preview's next rebuild needs the CPU."""
    config = site.config
    if not search_pending(config):
        return
    # Imported here: a build with nothing to index never loads the search code, nor the thread pool it runs in.
    from pipeline.site.search import Indexing, index_site

    indexing = Indexing(config.out_dir, config.state_dir, shards(site))

    def done(warning: str | None) -> None:
        if warning is None:
            (config.state_dir / SEARCH_PENDING).unlink(missing_ok=True)

    if site.search_later is not None:
        site.search_later.start(indexing, done)
        report.indexing = True
        return
    warning = index_site(indexing, workers=site.workers)
    report.indexed = warning is None
    report.warnings += [warning] if warning else []
    done(warning)


def shards(site) -> list[Shard]:
    """The search shards of the article pages, each page known by what Pagefind reads of it: its URL,
    language, title (its h1) and body (`data-pagefind-body`: the html and citations results), in this theme.
    Not by all it shows: a page whose "What links here" changed needs no indexing again."""
    salt = theme_digest(site.config.templates_dir)
    articles = site.model.articles
    pages = [(page_file(page.url), page.lang) for page in articles]
    keys = {file: digest((page.url, page.lang, page.title, page.body.identity, salt))
            for (file, _), page in zip(pages, articles)}  # fmt: skip
    return shards_of(pages, keys)


EMITTER = Emitter("search_index", emit)
