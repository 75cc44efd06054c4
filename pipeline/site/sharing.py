"""What makes a page shareable and followable: its absolute URL (`site_url`), its "Edit this page" link (`repo_url`,
`edit_uri`, as MkDocs names them) and its language's feed.

Every page's head (`base.html`) names its canonical URL, OpenGraph and
Twitter card meta and its language's Atom feed (`emitters/feeds.py`); an
article's footer links to its source in the repository. Only http and https
URLs are accepted for `site_url`, `repo_url` and an absolute `edit_uri`
(`config.py`), so none of them can run script.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple
from urllib.parse import quote

from pipeline.urls import href, lang_prefix

FEED = "feed.xml"


class SharedPage(NamedTuple):
    """What a page's head shares, each URL absolute (`Sharing.absolute`): made once a page, in Python, rather than by
    a call from the template for each URL (Jinja's calls cost a page more than the URLs do)."""

    url: str
    alternates: list[tuple[str, str]]  # (hreflang, URL) of each of its translations
    feed: str  # its language's feed ("": the site has none)
    locale: str  # its language as OpenGraph names it (`pt_BR`)
    locales: list[str]  # its translations' languages so named


@dataclass(frozen=True)
class Sharing:
    base_url: str = "/"  # ends with '/'
    site_url: str = ""  # where the site is published, absolute, ending with '/' ("": not given)
    edit_url: str = ""  # a content path appended to it is the page that edits it ("": no edit link)
    feeds: bool = False  # each language has a feed (the feeds emitter runs)
    default_language: str = "en"

    def absolute(self, url: str) -> str:
        """A site path as a URL to share: absolute under `site_url` when it is given, else under `base_url`."""
        return f"{self.site_url}{url.lstrip('/')}" if self.site_url else href(url, self.base_url)

    def feed(self, lang: str) -> str:
        """The site path of `lang`'s feed."""
        return f"{lang_prefix(lang, self.default_language)}{FEED}"

    def page(self, url: str, alternates: list[tuple[str, str]], lang: str) -> SharedPage:
        """What the page at `url` in `lang`, with its `alternates` ((hreflang, site path) pairs), shares."""
        feed = self.absolute(self.feed(lang)) if self.feeds else ""
        shown = [(hreflang, self.absolute(path)) for hreflang, path in alternates]
        locales = [hreflang.replace("-", "_") for hreflang, _ in alternates if hreflang not in (lang, "x-default")]
        return SharedPage(self.absolute(url), shown, feed, lang.replace("-", "_"), locales)

    def edit(self, path: str) -> str:
        """The URL that edits the article at `path` (relative to the content folder); "" without `edit_url`."""
        return f"{self.edit_url}{quote(path)}" if self.edit_url else ""


def sharing(config, base_url: str, emitters: list) -> Sharing:
    """The sharing settings of `config`; `emitters`: the (name, ...) entries of the site's emitter table."""
    site_url = config.site_url.rstrip("/") + "/" if config.site_url else ""
    return Sharing(base_url, site_url, edit_url(config.repo_url, config.edit_uri),
                   any(entry[0] == "feeds" for entry in emitters), config.default_language)  # fmt: skip


def edit_url(repo_url: str | None, edit_uri: str | None) -> str:
    """Where a content path is appended to edit it: `edit_uri` when it is absolute, else `repo_url` then `edit_uri`
    (MkDocs' rule); "" when `edit_uri` is not given."""
    if not edit_uri:
        return ""
    uri = edit_uri if edit_uri.endswith(("/", "=")) or "?" in edit_uri else f"{edit_uri}/"  # `?path=` as it is
    if "://" in uri:
        return uri
    return f"{repo_url.rstrip('/')}/{uri.lstrip('/')}" if repo_url else ""
