"""A Pagefind bundle's own files: those its index names, and pruning the rest after a run started from the last bundle.

A shard is indexed into a copy of its last bundle (`search._start_from`): Pagefind
names its fragments (one a page), index chunks and metadata by digests of
their contents, and leaves alone the files already there, which saves it
writing most of them again. It never deletes one, so without pruning every
edit left the old fragment of its page, the index chunks it changed and the
old metadata behind, in the published site, for good: a few edits of one
page of the real wiki left its English shard's index folder half as big
again with files its index no longer read.

What the index names is read from its entry (`pagefind-entry.json`: each
language's metadata file) and that metadata (gzip, holding the names of the
fragments and chunks as text). When either does not read as expected, or the
fragments named are not one for each page the entry counts, nothing is
deleted: a bundle keeps its leftovers rather than lose a file it needs.
"""

from __future__ import annotations

import gzip
import re
import zlib
from pathlib import Path

from pipeline.runtime import jsonio

ENTRY = "pagefind-entry.json"
PRUNED = {"fragment": ".pf_fragment", "index": ".pf_index"}  # folder -> suffix of the files pruned there
META = re.compile(r"pagefind\.(.+)\.pf_meta")


def prune(bundle: Path) -> int:
    """Delete the fragments, index chunks and metadata of `bundle` that its index does not name; return
    how many (0 when what it names could not be told, and nothing was deleted)."""
    named = names(bundle)
    if named is None:
        return 0
    found = [path for folder, suffix in PRUNED.items() for path in (bundle / folder).glob(f"*{suffix}")]
    found += bundle.glob("pagefind.*.pf_meta")
    stale = [path for path in found if _name_of(path) not in named]
    for path in stale:
        path.unlink(missing_ok=True)
    return len(stale)


def names(bundle: Path) -> set[str] | None:
    """The digest names (`en_1a2b3c4`) of every file the index of `bundle` reads; None when they cannot be told."""
    try:
        languages = jsonio.loads((bundle / ENTRY).read_bytes())["languages"]
        named, pages = set(), 0
        for about in languages.values():
            meta = about["hash"]  # `<language>_<digest>`: its files' names start with the same language
            text = gzip.decompress((bundle / f"pagefind.{meta}.pf_meta").read_bytes())
            prefix = re.escape(meta.rpartition("_")[0].encode())
            named |= {found.decode() for found in re.findall(prefix + rb"_[0-9a-f]+", text)} | {meta}
            pages += int(about["page_count"])
    except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError, zlib.error):
        return None
    fragments = [path for path in (bundle / "fragment").glob("*.pf_fragment") if path.stem in named]
    return named if len(fragments) == pages else None


def _name_of(path: Path) -> str:
    meta = META.fullmatch(path.name)
    return meta.group(1) if meta else path.name.removesuffix(path.suffix)
