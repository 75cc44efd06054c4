"""The link index made from the metadata results (`build_index`), or patched from the one the last plan kept with
the records that changed (`patch_index`), and which pages differ between two indexes (`changed_pages`). What an
index is and how it resolves a target: `link_index.py`.
"""

from __future__ import annotations

import posixpath
from typing import Callable

from pipeline.passes.link_index import ATTACHMENT, LinkIndex, Page, group_key
from pipeline.runtime.sharded import Overlay
from pipeline.text import lookup_key
from pipeline.urls import NUMBERED, article_url, attachment_url


def build_index(
    records: list[dict], redirects, default_language: str, headings_of: Callable[[str], list[str]],
    sources: dict[str, object] | None = None, links: str = "wiki", language_folders: bool = False,
) -> LinkIndex:
    """An index of `records` ({path, slug, title, aliases, lang, paired_with}); `headings_of(path)`
    gives a page's heading ids; `sources` (path -> a digest of its record) lets `patch_index` tell
    which records changed; `links` and `language_folders` as wiki.yaml sets them."""
    index = LinkIndex(default_language=default_language, headings_of=headings_of, sources=dict(sources or {}),
                      links=links, language_folders=language_folders)  # fmt: skip
    paths = {record["path"] for record in records}
    for record in records:
        index.add(_page(record, paths, default_language, index.partners))
    index.number_urls([url for url, shared in index.urls.items() if len(shared) > 1])
    index.redirects = redirect_table(redirects)
    return index


def patch_index(
    old: LinkIndex, sources: dict[str, object], record_of: Callable[[str], dict], headings_of: Callable
) -> LinkIndex:
    """What `build_index` makes of the records now, made from `old` (as kept: unpickled, and built with
    the same redirects): the pages whose records changed (their digests in `sources`, every record's
    now, in order, differ), came or went, or whose `paired_with` names a record that came or went, are
    made again from `record_of(path)`. `old` is left as it was."""
    came, went = sources.keys() - old.sources.keys(), old.sources.keys() - sources.keys()
    differs = {path: digest for path, digest in sources.items() if old.sources.get(path) != digest}
    redo = differs.keys() | went
    redo |= {path for path, other in old.partners.items() if other in came or other in went}
    # Over the stored index's tables: what changes is set beside them, and pickled again with the shards it falls in.
    tables = {name: Overlay(table) for name, table in old.tables.items()}
    index = LinkIndex(old.default_language, headings_of, Overlay(old.groups), tables, old.redirects,
                      Overlay(old.files), Overlay(old.sources), dict(old.partners), links=old.links,
                      language_folders=old.language_folders, vaults=dict(old.vaults), urls=Overlay(old.urls))  # fmt: skip
    index.sources.update(differs)
    for path in went:
        del index.sources[path]
    regrouped, renumbered = set(), set()
    for path in redo:
        index.partners.pop(path, None)
        if path in index.files:
            regrouped.add(index.files[path].group)
            renumbered.add(index.own_url(index.files[path]))  # (an attachment's names no article's URL)
            index.remove(index.files[path])
    order = {path: number for number, path in enumerate(sources)}
    for path in sorted(redo - went, key=order.__getitem__):
        page = _page(record_of(path), sources, old.default_language, index.partners)
        index.groups[page.group] = list(index.groups.get(page.group, ()))  # its own list, not old's
        index.add(page)
        regrouped.add(page.group)
        renumbered.add(index.own_url(page))
    for group in regrouped & index.groups.keys():  # in record order, as a build adds them
        index.groups[group].sort(key=lambda page: order[page.path])
    # The URLs numbered after the ones that changed hands: an article at `a-2/` came or went, so `a/`'s share again.
    index.number_urls(renumbered | {f"{match[1]}/" for match in map(NUMBERED.match, renumbered) if match})
    return index


def changed_pages(old: LinkIndex, new: LinkIndex) -> list[Page]:
    """The pages, in `old` and in `new`, at each path where the two differ: where `new` is `old` patched,
    only the paths it set or removed are compared."""
    files = new.files
    paths = files.touched() if isinstance(files, Overlay) and files.base is old.files else old.files.keys() | files.keys()
    return [page for path in paths if old.files.get(path) != files.get(path)
            for page in (old.files.get(path), files.get(path)) if page is not None]  # fmt: skip


def _page(record: dict, paths, default_language: str, partners: dict[str, str]) -> Page:
    """The record's page, in the group of the file its `paired_with` names when that is a record too
    (noted in `partners`), else in its own; an attachment's record ({path, attachment: true}) is the file."""
    path, group = record["path"], group_key(record["path"])
    if record.get("attachment"):
        name = posixpath.basename(path)
        return Page(path, name, name, (), default_language, attachment_url(path), ATTACHMENT + path)
    partner = record.get("paired_with")
    if partner:
        other = partners[path] = posixpath.normpath(posixpath.join(posixpath.dirname(path), partner))
        if other in paths and other != path:
            group = group_key(other)
    url = article_url(path, record["slug"], record["lang"], default_language)
    return Page(path, record["slug"], record["title"], tuple(record["aliases"]), record["lang"], url, group)


def redirect_table(redirects: list[dict] | None) -> dict[str, str]:
    """Lookup key of each `source` (its whole path and its last segment) -> `target`, from the redirects
    `redirects.yaml` holds, validated (`content/data_files.py`); a whole path wins over another's last
    segment, and of two last segments the first."""
    table: dict[str, str] = {}
    for redirect in redirects or ():
        table[lookup_key(redirect["source"].strip().strip("/"))] = redirect["target"]
    for redirect in redirects or ():
        table.setdefault(lookup_key(redirect["source"].strip().strip("/").rsplit("/", 1)[-1]), redirect["target"])
    return table
