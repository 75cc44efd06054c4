"""Each language's translation status page (`special/translations/`): the articles it lacks, its outdated
translations (with how many changes and days they lag their source) and those up to date (`pages.translation_status`).

After an edit, the pages are planned again only when what one lists changed (all of them then: each names the
others as its translations): the digest of each language's status is kept in the state folder (`KEPT`, written
once every file is in place; a cache: without it, the pages are planned), as an edit rarely changes a status, and
a big wiki's lists are long. An edit that changed no page summary in what a status shows (titles, URLs, pairs,
verdicts: a link made or unmade changes none) and no article in a group with an outdated translation changes no
status: it is not even made again.
"""

from __future__ import annotations

from pathlib import Path

from pipeline.runtime import jsonio
from pipeline.site import pages as wiki_pages
from pipeline.site.emitters.base import Emitter
from pipeline.site.page_digests import digest
from pipeline.site.render import Planned
from pipeline.urls import special_url

NAME = "translations"  # its URL: special/translations/
KEPT = "translation-status.json"  # in the state folder: lang -> the digest of the status its page shows


def emit(site, out) -> None:
    _plan(site, out, {})


def emit_changed(site, changes, out) -> None:
    """As `emit` when every page is planned (the sitemap, a listing emitter, the counts list them all), else the
    pages only when a status changed."""
    if changes.every_page:
        _plan(site, out, {})
    elif not _unchanged(site.model, changes):
        _plan(site, out, _kept(site.config.state_dir / KEPT))


# What a status shows of a page summary: a link to its page, its group (its translations) and its verdict.
SHOWN = ("title", "url", "lang", "pair_paths", "outdated")


def _unchanged(model, changes) -> bool:
    """Whether every status is the last build's: no page summary changed in what a status shows of it (a pair made
    or undone changes two; a link made changes none), and no changed article is in a group with an outdated
    translation (how far that lags its source is counted in the changes of both)."""
    if changes.lists or any(map(_shows_a_change, model.replaced.values())):
        return False
    pages = model.by_path()
    groups = [(path, *pages[path].pair_paths) for path in changes.articles if path in pages]
    return not any(pages[member].outdated for group in groups for member in group if member in pages)


def _shows_a_change(replaced: tuple) -> bool:
    """Whether a status shows a change of a page summary (the last build's, or None when unknown; this one's)."""
    old, new = replaced
    return old is None or any(getattr(old, field) != getattr(new, field) for field in SHOWN)


def _plan(site, out, last: dict) -> None:
    """The page of each language, unless every language's status is the one `last` names."""
    model = site.model
    status = wiki_pages.translation_status(model, site.histories)
    digests = {lang: digest(status[lang]) for lang in model.languages}
    if digests != last:
        for lang in model.languages:
            url = special_url(NAME, lang, model.default_language)
            title = site.settings.words(lang)["translation_status"]
            out.page(Planned(url, lang, "translation-status.html", title, {"status": status[lang]}, (NAME,), False))
    out.after(lambda report: _keep(site.config.state_dir / KEPT, digests))


def _kept(file: Path) -> dict:
    try:
        kept = jsonio.loads(file.read_bytes())
    except Exception:  # a cache: missing, torn
        return {}
    return kept if isinstance(kept, dict) else {}


def _keep(file: Path, digests: dict) -> None:
    try:
        jsonio.save_bytes(file, jsonio.dumps(digests).encode())
    except OSError:  # a cache: every page planned next time
        file.unlink(missing_ok=True)


EMITTER = Emitter("translation_status", emit, emit_changed)
