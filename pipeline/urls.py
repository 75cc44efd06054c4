"""Where each page of the site lives, as paths relative to the site root.

One place decides URLs so passes (link targets) and the site writer (files)
always agree. Paths never start with '/'; the renderer prefixes `base_url`.
Articles of the default language live at the root, others under `<lang>/`.
Passes keep the URLs they made in their results (metadata's `url`, links,
mentions, pairing): a change here changes those passes' VERSION too.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Container
from urllib.parse import quote

from pipeline.text import lookup_key, url_slug

INDEX_SLUGS = ("_index", "index")
# The only URLs that leave the site. A browser reads a URL's scheme after dropping tabs and line breaks
# anywhere in it and trimming control characters and spaces around it, so these checks do the same.
LINK_SCHEMES = ("http", "https", "mailto")
SCHEME = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*):")
URL_DROPPED = str.maketrans("", "", "\t\n\r")
URL_TRIMMED = "".join(map(chr, range(33)))
SITE_PATH_LEAD = URL_TRIMMED + "/\\"  # `//host` and `/\host` are other hosts to a browser


def lang_prefix(lang: str, default_language: str) -> str:
    return "" if lang == default_language else f"{lang}/"


def is_attachment(target: str) -> bool:
    """Whether a link target names a file other than a note: its last part has an extension that is not `.md`."""
    name = target.strip().rstrip("/").rpartition("/")[2]
    stem, dot, extension = name.rpartition(".")
    return bool(stem and dot) and extension.isalnum() and extension.lower() not in ("md", "markdown")


# Files a browser would run as part of the site: content is untrusted, so they are never published.
RUN_BY_BROWSERS = frozenset({"html", "htm", "xhtml", "shtml", "js", "mjs", "css", "wasm", "xml", "xsl", "xslt"})


def runs_in_browser(path: str) -> bool:
    """Whether an attachment is a page, script or style sheet a browser would run as the site's own."""
    return path.rpartition(".")[2].lower() in RUN_BY_BROWSERS


def attachment_url(path: str) -> str:
    """Where an attachment is published: its path in the content folder, each part percent-encoded
    (a space as `%20`): a file keeps its name."""
    return quote(path)


@lru_cache(maxsize=65536)  # every index of the wiki asks for every article's URL
def article_url(path: str, slug: str, lang: str, default_language: str) -> str:
    """`guides/setup.md` -> `guides/setup/`; `guides/_index.md` -> `guides/`; Spanish under `es/`.

    As in Hugo, a file named `_index` or `index` is its folder's page whatever its slug says; so is a file given
    one of those slugs (`slug: index`), but not one whose name only slugs to one (`🗂️ Index.md` is `index/`: a
    name is never read back from its slug). A top-level folder named as the page's language is that language's
    part of the site, not repeated in the URL: `es/Bases/Vistas.md` in Spanish -> `es/bases/vistas/`.
    """
    folder, name = page_folder(path, lang), path.rpartition("/")[2]
    stem = name.split(".", 1)[0]
    given = slug in INDEX_SLUGS and slug != url_slug(stem)  # a slug the file's own name does not make
    page = "" if stem in INDEX_SLUGS or given else f"{url_slug(slug)}/"
    return f"{lang_prefix(lang, default_language)}{_folder_url(folder)}{page}"


def shared_url_moves(url: str, paths: list[str], taken: Container[str]) -> dict[str, str]:
    """Where the files of `paths` (sorted), whose URL would be `url`, are published: the first at `url`, each other
    at `url-2/`, `url-3/`, ... skipping the URLs in `taken` (every article's own). Path -> URL of each."""
    found, number = {paths[0]: url}, 1
    for path in paths[1:]:
        number += 1
        while numbered_url(url, number) in taken:
            number += 1
        found[path] = numbered_url(url, number)
    return found


def shared_urls(urls: dict[str, str]) -> dict[str, tuple[str, str]]:
    """Path -> (the URL it is published at instead, the path first at its own) of each file whose URL another
    file's is too (`urls`: path -> URL, every article's)."""
    if len(set(urls.values())) == len(urls):  # most wikis: no URL is two files'
        return {}
    by_url: dict[str, list[str]] = {}
    for path in sorted(urls):
        by_url.setdefault(urls[path], []).append(path)
    return {path: (url, paths[0]) for shared, paths in by_url.items() if len(paths) > 1
            for path, url in shared_url_moves(shared, paths, by_url).items() if path != paths[0]}  # fmt: skip


def numbered_url(url: str, number: int) -> str:
    """`guides/setup/`, 2 -> `guides/setup-2/`."""
    return f"{url.rstrip('/')}-{number}/"


NUMBERED = re.compile(r"(.*)-\d+/$")  # a URL `numbered_url` may make, and the URL it numbers (its group 1 and "/")


def page_folder(path: str, lang: str) -> str:
    """The folder of an article's path below its language's folder, as written: `es/Bases/Vistas.md` in Spanish ->
    `Bases`, `guides/setup.md` -> `guides` (a top-level folder named as the page's language is not repeated)."""
    folder = path.rpartition("/")[0]
    top, _, below = folder.partition("/")
    return below if top and top.lower() == lang.lower() else folder


@lru_cache(maxsize=4096)  # a wiki has few folders, and each of its articles asks for its own
def _folder_url(folder: str) -> str:
    """`Guides/Set up` -> `guides/set-up/`; '' (the root) -> ''."""
    return "".join(f"{url_slug(part)}/" for part in folder.split("/")) if folder else ""


def home_url(lang: str, default_language: str) -> str:
    return lang_prefix(lang, default_language)


def special_url(name: str, lang: str, default_language: str) -> str:
    """Wiki pages: `all`, `wanted`, `recent`, `categories`."""
    return f"{lang_prefix(lang, default_language)}special/{name}/"


def category_url(category: str, lang: str, default_language: str) -> str:
    return f"{lang_prefix(lang, default_language)}category/{url_slug(category)}/"


def tag_url(tag: str, lang: str, default_language: str) -> str:
    """A tag's page: `help/start` -> `tags/help/start/` (a nested tag's parts are folders), in `lang`'s part of the site."""
    parts = [url_slug(part) for part in tag.split("/") if part]
    return f"{lang_prefix(lang, default_language)}tags/{'/'.join(parts)}/"


def history_url(page_url: str) -> str:
    return f"{page_url}history/"


def wanted_url(target: str, lang: str, default_language: str) -> str:
    """Where a red link points: the wanted-pages list, at the missing title's entry."""
    return f"{special_url('wanted', lang, default_language)}#wanted-{url_slug(lookup_key(target))}"


def leaves_site(url: str, schemes: tuple[str, ...] = LINK_SCHEMES) -> bool:
    """Whether `url` is an absolute URL with one of `schemes` (http, https, mailto), as a browser reads it."""
    match = SCHEME.match(url.translate(URL_DROPPED).strip(URL_TRIMMED))
    return match is not None and match[1].lower() in schemes


def normalize_base(url: str | None) -> str:
    """`base_url` as links are made with it: ending with a slash, and a path from the root (`docs` is `/docs/`)."""
    url = (url or "/").strip()
    url = url if url.startswith("/") or "://" in url else f"/{url}"
    return url if url.endswith("/") else f"{url}/"


def content_href(url: str, base_url: str) -> str:
    """A link of the content that names no page of the site, as the page shows it: as written when it stays on the
    site (a relative path, a `#fragment`) or leaves it by http, https or mailto; anything else that would leave it
    (`ftp:`, `irc:`, `//host`) is a path of the site, as `href` makes it."""
    plain = url.translate(URL_DROPPED).strip(URL_TRIMMED)
    elsewhere = SCHEME.match(plain) is not None or plain[:2].replace("\\", "/") == "//"
    return href(url, base_url) if elsewhere and not leaves_site(url) else url


def href(url: str, base_url: str) -> str:
    """A link to `url`: an absolute http, https or mailto URL as it is; anything else (`javascript:...`,
    `//host`) is a path of the site, under `base_url` (which ends with '/')."""
    if ":" in url and leaves_site(url):
        return url
    return base_url + url.lstrip(SITE_PATH_LEAD)
