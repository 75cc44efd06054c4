"""The search index in shards: which article pages each Pagefind bundle holds, and which are out of date.

Pagefind makes one index of every page it is given, and takes as long for a
page here whether or not a page changed: over a big site, a long wait
after every edit. So a language's article pages are split into shards by a
hash of their file (at most `SHARD_PAGES` a shard, in a power of two of
shards, at most `MAX_SHARDS`), each its
own Pagefind bundle in `pagefind/<lang>/<n>/`, searched together by the
page's search box (Pagefind's `mergeIndex`: results of all shards, ordered
by score). A shard is known by a digest of its files and of what Pagefind
reads of each page (the caller's keys), and kept with that digest in the
state folder once indexed: a build indexes again only the shards whose
digest changed.

Pure but for `indexed` and `record`, which read and write that record.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from pipeline.runtime import jsonio

SHARD_PAGES = 128  # pages a shard holds at most (and half as many at least), but past MAX_SHARDS
MAX_SHARDS = 32  # a language's at most: a search fetches a part of each
PLAIN_TAG = re.compile(r"[A-Za-z0-9-]{1,35}")
RECORD = "search-shards.json"  # in the state folder: shard folder -> digest of what it indexed


@dataclass(frozen=True)
class Shard:
    """Some article pages of one language, indexed together. `files` are site-relative, sorted, never empty."""

    lang: str
    number: int
    files: tuple[str, ...]
    digest: str

    @property
    def folder(self) -> str:
        """Its bundle's folder, relative to the search folder (a language that is no plain tag, by its digest)."""
        lang = self.lang if PLAIN_TAG.fullmatch(self.lang) else "x-" + hashlib.sha256(self.lang.encode()).hexdigest()[:12]
        return f"{lang}/{self.number}/"


def shards_of(pages: list[tuple[str, str]], keys: dict[str, str]) -> list[Shard]:
    """The shards of `pages` ((file, lang) of each article page), each digested with the pages' `keys`."""
    by_lang: dict[str, list[str]] = {}
    for file, lang in pages:
        by_lang.setdefault(lang, []).append(file)
    shards = []
    for lang, files in sorted(by_lang.items()):
        count = shard_count(len(files))
        members: list[list[str]] = [[] for _ in range(count)]
        for file in sorted(files):
            members[bucket(file, count)].append(file)
        for number, group in enumerate(group for group in members if group):
            material = f"{count}\n" + "\n".join(f"{file} {keys.get(file, '')}" for file in group)
            shards.append(Shard(lang, number, tuple(group), hashlib.sha256(material.encode()).hexdigest()))
    return shards


def shard_count(pages: int) -> int:
    """A power of two of shards of at most SHARD_PAGES pages (at most MAX_SHARDS). A new count moves
    every page, and every shard of the language is indexed again: doubling it, not adding one, makes
    that happen once each time the language's pages double, not at each SHARD_PAGES more."""
    count = 1
    while count * SHARD_PAGES < pages and count < MAX_SHARDS:
        count *= 2
    return count


def bucket(file: str, count: int) -> int:
    """The shard of `count` a page file falls in: the same in every build while the count stays."""
    return int.from_bytes(hashlib.blake2b(file.encode(), digest_size=4).digest(), "big") % count


def loader(shards: list[Shard]) -> str:
    """The script telling the search box each language's shard bundles (relative to the search folder)."""
    by_lang: dict[str, list[str]] = {}
    for shard in shards:
        by_lang.setdefault(shard.lang, []).append(shard.folder)
    return (
        "// Written by pipeline: each language's search shards (Pagefind bundles), searched together.\n"
        f"window.pipelineSearchShards = {jsonio.dumps(by_lang, sort_keys=True)};\n"
    )


def indexed(state_dir: Path) -> dict[str, str]:
    """Shard folder -> digest of what its bundle indexed, as recorded (nothing when unreadable)."""
    try:
        record = jsonio.loads((state_dir / RECORD).read_bytes())
    except (OSError, ValueError):
        return {}
    return record if isinstance(record, dict) else {}


def record(state_dir: Path, done: dict[str, str]) -> None:
    jsonio.save(state_dir / RECORD, done)
