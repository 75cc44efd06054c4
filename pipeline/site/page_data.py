"""What an article's templates read of it beyond its page summary: every pass's output, its frontmatter and its tags.

`page.passes` is each pass's output for the article, decoded when a template
reads it (`page.passes.reading_time.minutes`, custom passes included);
iterated, it is the (pass, version) of each result the page shows, as the
page's provenance always listed them. A page digest names it without
reading any output: by each result's identity (its store and job where it is
stored: a job's result never changes). `page_digests.py` names the results
of the passes no other part of a page names (`PassResults.unnamed_keys`),
so a template showing a custom pass's output is rendered again when it changes.

Tags (frontmatter `tags:` and inline `#tags`: the metadata pass's `tags`) are
read from the metadata results of the articles whose results changed only;
the others' are the last build's (`SiteState.tags`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Callable, Iterator

from pipeline.runtime import jsonio

# The passes whose results a page names otherwise: its page summary (metadata, wikilinks, pairing), its body (html,
# citations, and links, whose result html reads) and its capture (headings reads its own article only).
NAMED = ("metadata", "wikilinks", "pairing", "html", "citations", "links", "headings")
READ_ONE_BY_ONE = 32  # outputs read one at a time; more are read by SQLite at once (`field_values`)


class PassResults:
    """Every pass's results of a build (pass name -> outputs), shared by every page's `PassOutputs`."""

    def __init__(self, results: Mapping[str, Mapping]) -> None:
        self.outputs = dict(results)
        # The passes not in NAMED, each result named by its digest (a job run again to the same output names the
        # same: a title change runs many mentions jobs again, and their pages need not be rendered again).
        self.unnamed = [(name, outputs) for name, outputs in sorted(self.outputs.items()) if name not in NAMED]

    def identities(self, capture_id: int) -> list:
        """The results of the passes not in NAMED of one capture, by their digests (plain results as they are)."""
        return [[name, _digest(outputs, capture_id)] for name, outputs in self.unnamed]

    def unnamed_keys(self, ids: list[int]) -> list[str] | None:
        """For each capture of `ids`, the digests of its results of the passes not in NAMED, in short (None: none of
        those passes, or results held as plain data, which a page's digest names as they are)."""
        if not self.unnamed or not all(hasattr(outputs, "facts") for _, outputs in self.unnamed):
            return None
        columns = [[outputs.facts[job][0][:16] if job is not None else "-" for job in map(outputs.jobs.get, ids)]
                   for _, outputs in self.unnamed]  # fmt: skip
        return list(map(":".join, zip(*columns)))


class PassOutputs:
    """One article's output of each pass, by pass name (an attribute or a key); iterated, (pass, version) of each
    result its page shows. An output is decoded when first read, and kept for the page's render."""

    __slots__ = ("_results", "_article", "_shown", "_read")

    def __init__(self, results: PassResults, article, shown: list[tuple[str, int]]) -> None:
        self._results, self._article, self._shown, self._read = results, article, shown, None

    def __iter__(self):
        return iter(self._shown)

    def __len__(self) -> int:
        return len(self._shown)

    def __getitem__(self, name: str):
        """The pass `name`'s output for this article (None: the pass ran, not on it); KeyError: no such pass."""
        outputs = self._results.outputs[name]
        read = self._read if self._read is not None else {}
        if name not in read:
            read[name] = read_once(outputs, self._article.capture_id)
            self._read = read
        return read[name]

    def __getattr__(self, name: str):  # a pass named as a method (`as_json`) is read as `page.passes["as_json"]`
        if name.startswith("_"):  # a slot not set yet (a copy being made): never an output
            raise AttributeError(name)
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def as_json(self) -> list:
        return [self._shown, self._results.identities(self._article.capture_id)]

    def __reduce__(self):  # as its identity when a digest falls back to pickling
        return list, (self.as_json(),)

    def frontmatter(self) -> Frontmatter:
        return Frontmatter(self._article)


class Frontmatter(Mapping):
    """An article's frontmatter as its templates read it (`page.frontmatter.author`), decoded when first read
    (a stored article decodes it then)."""

    __slots__ = ("_article",)

    def __init__(self, article) -> None:
        self._article = article

    def _value(self) -> dict:
        value = self._article.frontmatter
        return value if isinstance(value, dict) else {}

    def __getitem__(self, key):
        return self._value()[key]

    def __iter__(self):
        return iter(self._value())

    def __len__(self) -> int:
        return len(self._value())


def article_tags(
    outputs: Mapping, ids: dict[str, int], changed: Mapping[str, object], last: dict[str, list[str]] | None,
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(path -> its tags, for the tagged articles of `ids` (path -> capture id); path -> its tags in the last build,
    for those whose tags changed). `outputs` are the metadata results; `changed` names the articles whose page
    summary key changed (their metadata result may have); `last`: the last build's tags (None: not known)."""
    if last is None:
        unread, tags, before = list(ids), {}, {}
    else:
        unread = [path for path in changed if path in ids]
        tags = {path: found for path, found in last.items() if path in ids and path not in changed}
        before = {path: last.get(path, []) for path in unread}
    for path, found in zip(unread, _read_tags(outputs, [ids[path] for path in unread])):
        if found:
            tags[path] = found
    retagged = {path: old for path, old in before.items() if old != tags.get(path, [])}
    return tags, retagged


def _read_tags(outputs: Mapping, ids: list[int]) -> list[list[str]]:
    field_values = getattr(outputs, "field_values", None)  # StoredOutputs: SQLite reads every one at once
    if field_values is not None and len(ids) > READ_ONE_BY_ONE:
        values = field_values("tags")
        return [_tag_list(values.get(capture_id)) for capture_id in ids]
    return [_tag_list((read_once(outputs, capture_id) or {}).get("tags")) for capture_id in ids]


def _tag_list(value) -> list[str]:
    """A result's `tags`: a list, or the JSON text SQLite gives of one (None: the result has none)."""
    value = jsonio.loads(value) if isinstance(value, str) else value
    return [tag for tag in value if isinstance(tag, str)] if isinstance(value, list) else []


def read_once(outputs: Mapping, capture_id: int) -> dict | None:
    """A result a page or page summary is made of, decoded; a stored one is not held once read (each is read once)."""
    if capture_id not in outputs:
        return None
    read = getattr(outputs, "read_once", None)  # StoredOutputs; plain results (tests) are read as they are
    return read(capture_id) if read is not None else outputs[capture_id]


def read_each(outputs: Mapping, capture_ids: list[int]) -> Iterator[dict | None]:
    """`read_once` of each of `capture_ids` in turn; stored results are read a batch at a time."""
    read = getattr(outputs, "read_each", None)
    if read is None:
        return (outputs[capture_id] if capture_id in outputs else None for capture_id in capture_ids)
    found = read([capture_id for capture_id in capture_ids if capture_id in outputs])
    return (next(found) if capture_id in outputs else None for capture_id in capture_ids)


def _digest(outputs: Mapping, capture_id: int):
    """A result as a digest names it: its digest where it is stored (known without reading it), else itself."""
    if capture_id not in outputs:
        return None
    return outputs.digest(capture_id) if hasattr(outputs, "facts") else outputs[capture_id]


def identity_of(outputs: Mapping) -> Callable[[int], object]:
    """capture id -> its result as a digest may name it: its store and job when it is stored, else itself (None:
    absent)."""
    identities = getattr(outputs, "identities", None)
    return outputs.get if identities is None else identities()
