"""What each article page takes from its metadata, wikilinks and pairing results, kept between builds.

Every page of the site needs every article's title and URL, and the "What
links here" of a page needs every other article's links: so building the
model decoded those three results of every article (in a big wiki,
tens of megabytes of JSON read and decoded) though an edit changes one article's. A
`PageSummary` is the little a page takes of them. It is a pure function of the
three outputs, so it is known by their digests (a result's digest is known
without reading it): `PageSummaries` hands back the page summary of the same three outputs
from the last build, and makes it from the outputs only for the articles
whose results changed. The cache is a file in the state folder (pickled),
written when its page summaries changed, and ignored when this module's code did.
"""

from __future__ import annotations

import hashlib
import pickle
import sys
from pathlib import Path
from typing import Callable, Iterable, NamedTuple

from pipeline.runtime import jsonio
from pipeline.runtime.records import made

LINKED = ("ok", "fallback")  # link statuses that reach a page (the others are red or ambiguous)


class PageSummary(NamedTuple):
    """What one article's page and its links elsewhere take from its results (plain data).

    A named tuple: an edit build reads back one per article from the last build's file, and a
    tuple is made in C (frozen dataclasses of twelve fields took much longer to make).
    """

    title: str
    slug: str
    lang: str
    url: str  # its page's (the metadata pass's: made once with the result, not by each build)
    short_description: str | None
    aliases: list[str]
    categories: list[str]  # as the article names them
    draft: bool
    linked: list[str]  # paths its links reach (maybe its own), each once
    broken: list[str]  # targets of its red links, in order
    pair_paths: list[str]  # its translations, by path
    outdated: dict | None  # the pairing pass's verdict on it
    # The digest of the fields other articles' pages may show (all but `outdated`, its own page's banner):
    # with the paths, what one page shares with the rest of the site (site/page_digests.py).
    shared: str = ""


def summary_of(meta: dict, wikilinks: dict | None, pairing: dict | None) -> PageSummary:
    """The page summary of an article's metadata output and its wikilinks and pairing outputs (None: none)."""
    links = (wikilinks or {}).get("links", [])
    pairing = pairing or {}
    summary = PageSummary(
        title=meta["title"], slug=meta["slug"], lang=meta["lang"], url=meta["url"],
        short_description=meta.get("short_description"),
        aliases=list(meta.get("aliases", [])), categories=list(meta.get("categories", [])),
        draft=bool(meta.get("draft")),
        linked=list(dict.fromkeys(link["target_path"] for link in links
                                  if link["status"] in LINKED and link.get("target_path"))),
        broken=[link["target"] for link in links if link["status"] == "broken"],
        pair_paths=[t["path"] for t in pairing.get("translations", [])], outdated=pairing.get("outdated"),
    )  # fmt: skip
    shown = {name: value for name, value in summary._asdict().items() if name not in ("outdated", "shared")}
    return summary._replace(shared=hashlib.sha256(jsonio.dumps(shown, sort_keys=True).encode()).hexdigest()[:32])


def summary_keys(rows: Iterable[Iterable[str]]) -> list[str]:
    """The key of the page summary of each row of output digests (128 bits of their sha256: a third of their length)."""
    sha256 = hashlib.sha256
    return [sha256("|".join(digests).encode()).hexdigest()[:32] for digests in rows]


class PageSummaries:
    """PageSummaries by the digests of the outputs they were made of: those of the last build, and this build's."""

    def __init__(self, known: dict[str, PageSummary] | None = None) -> None:
        self.known = known or {}
        self.used: dict[str, PageSummary] = {}

    def take(self, keys: list[str | None], make: Callable[[list[int]], list[PageSummary]]) -> list[PageSummary]:
        """The page summary known by each key (None: outputs without digests, made each time), else one `make` gives:
        it is asked once, for the places of the keys it makes (one each). Looked up all at once: an edit build makes
        few or none, and a call for each cost more; a cold build makes them all, its outputs read a batch at a time."""
        found = list(map(self.known.get, keys))
        used, first, wanted = self.used, {}, []
        for at in [at for at, summary in enumerate(found) if summary is None]:
            key = keys[at]
            if key is not None and key in used:
                found[at] = used[key]
            elif key is None or key not in first:
                first[key if key is not None else at] = at
                wanted.append(at)
        made = dict(zip(wanted, make(wanted)))
        for at in [at for at, summary in enumerate(found) if summary is None]:
            found[at] = made[first[keys[at]] if keys[at] is not None else at]
        used.update(zip(keys, found))
        used.pop(None, None)  # the page summaries of no key are made each time, never kept
        return found

    @property
    def changed(self) -> bool:
        """Whether this build used other page summaries than the last kept."""
        return self.used.keys() != self.known.keys()


CODE = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()  # page summaries made by other code are not this code's


def load_summaries(path: Path) -> PageSummaries:
    """The page summaries kept at `path` by this code (none when the file is missing, unreadable or another code's)."""
    try:
        kept = pickle.loads(path.read_bytes())
        whole = kept.get("code") == CODE and len(kept["fields"]) == len(PageSummary._fields)  # a field a page summary: a list each
        known = dict(zip(kept["keys"], made(PageSummary, zip(*kept["fields"])))) if whole else {}
    except Exception:  # a cache (missing, torn, of another version): what does not load is made again
        known = {}
    return PageSummaries(known)


def save_summaries(path: Path, summaries: PageSummaries) -> None:
    """Keep this build's page summaries at `path`, in place of the last.

    Pickled a field at a time (a list of titles, one of slugs, ...): pickle makes each string it
    meets again only once (the languages, the paths many articles link to), and reading
    page summaries back this way takes half the time their JSON took, or less.
    """
    known = summaries.known
    made = [summary if key in known else _one_each(summary) for key, summary in summaries.used.items()]
    fields = [list(column) for column in zip(*made)] or [[] for _ in PageSummary._fields]
    jsonio.save_bytes(path, pickle.dumps({"code": CODE, "keys": list(summaries.used), "fields": fields}, protocol=5))
    path.with_suffix(".json").unlink(missing_ok=True)  # where earlier versions kept them, unread now


def _one_each(summary: PageSummary) -> PageSummary:
    """The page summary with its strings (in lists too) interned: equal strings are then one object, which pickle
    writes once and then refers to. The paths page summaries link to, shared by many, were written, and read back,
    one by one (a bigger file, slower to read). Only page summaries made by this build
    are: those read back share their strings already (interning them all again slowed every title change)."""
    same = lambda value: sys.intern(value) if type(value) is str else value  # noqa: E731
    return summary._make([same(item) for item in value] if isinstance(value, list) else same(value) for value in summary)
