"""An Atom feed of each language's recent changes (`[lang/]feed.xml`), the entries the recent-changes page lists.

Every page of the language links to it from its head (`base.html`). Feed readers need absolute URLs:
with `site_url` in wiki.yaml every link is one; without, links are paths of the site. Each entry's id is a UUID
made of its change (path, time, bytes, commit), so the same change keeps its id from build to build. After an
edit, only the feeds of the changed articles' languages are put again (a change shows in its language's only).
"""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from datetime import datetime, timezone

from pipeline.site.emitters.base import Emitter
from pipeline.urls import special_url

EPOCH = "1970-01-01T00:00:00+00:00"  # the `updated` of a feed without entries (Atom requires one)
NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")  # characters XML 1.0 has no place for


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    time: str  # RFC 3339
    url: str  # "" when the page is gone
    author: str
    summary: str


def emit(site, out) -> None:
    _put_feeds(site, out, site.model.languages)


def emit_changed(site, changes, out) -> None:
    langs = {page.lang for page in site.model.pages_at(changes.articles)}
    _put_feeds(site, out, [lang for lang in site.model.languages if lang in langs])


def _put_feeds(site, out, languages: list[str]) -> None:
    sharing, model = site.settings.sharing, site.model
    for lang in languages:
        t = site.settings.words(lang)
        entries = [_entry(revision, t, sharing) for revision in site.recent.get(lang, [])]
        feed = sharing.feed(lang)
        xml = out.render(
            "feed.xml", lang=lang, t=t, site_name=site.settings.site_name, entries=entries,
            id=_id(sharing.site_url + feed if sharing.site_url else f"{site.settings.site_name}\n{feed}"),
            updated=max((entry.time for entry in entries), default=EPOCH), self_url=sharing.absolute(feed),
            recent_url=sharing.absolute(special_url("recent", lang, model.default_language)),
        )  # fmt: skip
        out.put(feed, xml)


def _entry(revision, t: dict, sharing) -> Entry:
    identity = _id(f"{revision.path}\n{revision.time}\n{revision.sha256}\n{revision.commit or ''}")
    title = f"{revision.title} ({t.get(revision.action, revision.action)})"
    summary = " · ".join(part for part in (t.get(revision.action, revision.action), revision.message or "") if part)
    url = sharing.absolute(revision.url) if revision.url is not None else ""
    return Entry(identity, _xml(title), rfc3339(revision.time), url, _xml(revision.author or ""), _xml(summary))


def _xml(text: str) -> str:
    """`text` (from content: titles, commit messages) without the characters an XML document may not hold."""
    return NOT_XML.sub("", text)


def rfc3339(time: str) -> str:
    """An ISO 8601 time as Atom needs it: with its offset (a time without one is UTC)."""
    try:
        moment = datetime.fromisoformat(time)
    except ValueError:
        return EPOCH
    return (moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)).isoformat(timespec="seconds")


def _id(text: str) -> str:
    return uuid.uuid5(uuid.NAMESPACE_URL, text).urn


EMITTER = Emitter("feeds", emit, emit_changed)
