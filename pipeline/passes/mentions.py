"""mentions: propose `[[slug|mention]]` for plain-text mentions of other articles.

A mention is a title or alias of another article of the same language found
in the prose of the body (never in code, links, wikilinks, headings, tables
or HTML: see `prose.py`), case-insensitively and on whole words. Where
mentions overlap the longest wins; mentions of the article itself and of a
name two articles share are left alone; only the first mention of each
target counts. Each one is an `unlinked-mention` diagnostic (severity
info) and a replacement in the `edit` diff. The source never changes: in
`apply` mode (option `autolink`) the renderer links the mentions with
`apply_suggestions`.

The job reads the names of its language that its prose could hold
(`select`: the entries of the language's title and alias index, built once
per plan, with a name whose every word is among the prose's words, which
the links pass noted), and where the body's prose is, which the links pass
found from its parse (so this pass parses nothing). A name that cannot
occur in the prose cannot change what the job finds, so a new or changed
title re-runs only the jobs of the articles whose prose holds its words
(before or after); without the words (the links job failed) the job reads
the whole index.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from typing import Mapping

from pipeline.content.article import Article
from pipeline.markdown.spans import masked
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Wiki, diagnostic, field_values, known_as
from pipeline.passes.contract import Incremental, Pass
from pipeline.passes.edits import EDIT_SCHEMA, make_edit
from pipeline.passes.link_index import group_key
from pipeline.passes.names import (
    Match, Matcher, NameKeys, matcher_for, name_keys, named_in, patch_name_keys, term_key,
)  # fmt: skip
from pipeline.passes.prose import Piece, prose_pieces
from pipeline.runtime import jsonio
from pipeline.runtime.sharded import Overlay
from pipeline.urls import shared_urls

NAME = "mentions"
# Path -> what the index takes of its article's metadata result, with the result's digest: kept, so that a new
# read set's index decodes only the results that changed (decoding them all was a large part of a title change).
OWNS = f"{NAME}.owns"
SUGGESTION_SCHEMA = {
    "type": "object",
    "required": ["target_slug", "target_path", "target_url", "mention", "line", "col", "end_col", "replacement"],
    "properties": {
        "target_slug": {"type": "string", "minLength": 1},
        "target_path": {"type": "string", "minLength": 1},
        "target_url": {"type": "string"},
        "mention": {"type": "string", "minLength": 1},
        "line": {"type": "integer", "minimum": 1},
        "col": {"type": "integer", "minimum": 1},
        "end_col": {"type": "integer", "minimum": 2},
        "replacement": {"type": "string", "minLength": 5},
    },
}
CONTRACT = {
    "type": "object",
    "required": ["mode", "suggestions", "diagnostics", "edit"],
    "properties": {
        "mode": {"enum": ["suggest", "apply"]},
        "suggestions": {"type": "array", "items": SUGGESTION_SCHEMA},
        "diagnostics": DIAGNOSTICS_SCHEMA,
        "edit": EDIT_SCHEMA,
    },
}

# ---- select: the names of one language the prose could hold ---------------------------------


def select(article: Article, wiki: Wiki) -> dict:
    meta = wiki.results.get("metadata", {}).get(article.capture_id)
    lang = meta["lang"] if meta else article.lang
    indexes = wiki.memo(f"{NAME}.indexes", lambda: _indexes(wiki))
    keys = wiki.memo(f"{NAME}.keys", lambda: {lang: name_keys(index["entries"]) for lang, index in indexes.items()})
    empty = wiki.memo(f"{NAME}.empty", lambda: _index([]))
    found = wiki.results.get("links", {}).get(article.capture_id) or {}
    index = _narrowed(indexes.get(lang, empty), keys.get(lang, {}), found.get("words"), empty)
    return {"index": index, "mode": wiki.options.get("autolink", "suggest"), "prose": found.get("prose")}


def affected(old: dict, wiki: Wiki, touched) -> set[int] | None:
    """The articles whose select may read something else than in the last read set (whose indexes are `old`):
    those whose prose may hold a name of an entry that changed, before or after, and those without prose
    words, which read the whole index (None: the last read set's indexes were not kept).

    A select reads the entries with a name whose every word its prose holds (`words`, of its links
    result): only those words are read of each article's result (`field_values`), not the result.
    """
    before = old.get(f"{NAME}.indexes")
    if before is None:
        return None
    wiki.memo(OWNS, lambda: _owns(wiki, old.get(OWNS, {})))
    now = wiki.memo(f"{NAME}.indexes", lambda: _indexes(wiki))
    if f"{NAME}.keys" in old:
        wiki.memo(f"{NAME}.keys", lambda: _patched_keys(old[f"{NAME}.keys"], before, now))
    names = set()
    for lang in before.keys() | now.keys():
        was, is_ = (index.get(lang, {"digest": None, "entries": []}) for index in (before, now))
        if was["digest"] != is_["digest"]:
            changed = _hashable(was["entries"]) ^ _hashable(is_["entries"])
            names.update(name for entry in changed for name in (entry[4], *entry[5]))
    links = wiki.results.get("links", {})
    found = {article.capture_id for article in wiki.articles if article.capture_id not in links}
    needed = [[f" {word} " for word in words] for words in {term_key(name)[0] for name in names} - {()}]
    if needed:
        for capture_id, words in field_values(links, "words").items():
            spaced = f" {words} " if isinstance(words, str) else None  # none: the whole index is read
            if spaced is None or any(all(word in spaced for word in name) for name in needed):
                found.add(capture_id)
    return found


def _patched_keys(keys: dict[str, NameKeys], before: dict, now: dict) -> dict[str, NameKeys]:
    """The name keys of each language's index `now`, made from `keys`, those of the indexes `before`."""
    patched = {}
    for lang, index in now.items():
        was = before.get(lang)
        if lang not in keys or was is None:
            patched[lang] = name_keys(index["entries"])
        else:
            same = was["digest"] == index["digest"]
            patched[lang] = keys[lang] if same else patch_name_keys(keys[lang], was["entries"], index["entries"])
    return patched


def _hashable(entries: list) -> set[tuple]:
    return {(*entry[:5], tuple(entry[5])) for entry in entries}


def _narrowed(index: dict, keys: NameKeys, words: str | None, empty: dict) -> dict:
    """The entries of `index` with a name the prose (its `words`) could hold; all of them without the words."""
    if words is None:
        return index
    numbers = named_in(keys, set(words.split(" ")))
    if len(numbers) == len(index["entries"]):
        return index
    return _index([index["entries"][number] for number in numbers]) if numbers else empty


def _indexes(wiki: Wiki) -> dict[str, dict]:
    """lang -> {"digest", "entries": [[path, slug, link, url, title, aliases], ...]} of its published articles."""
    owns = wiki.memo(OWNS, lambda: _owns(wiki, {}))
    metadata = wiki.results.get("metadata", {})
    items = sorted((a.path, owns[a.path]) for a in wiki.articles if a.capture_id in metadata)
    # A slug that pages in any language share does not name one page: link by path then.
    counts = Counter(own[1] for _, own in items)
    groups_of_slug: dict[str, set[str]] = {}
    for path, own in items:
        if counts[own[1]] > 1:  # most slugs are one article's: no need to find its group
            groups_of_slug.setdefault(own[1], set()).add(group_key(path))
    moved = shared_urls({path: own[6] for path, own in items})  # where two articles' URLs are one, as the site has it
    by_lang: dict[str, list] = {}
    for path, (_, slug, lang, title, aliases, draft, url) in items:
        if not draft:
            link = slug if len(groups_of_slug.get(slug, ())) <= 1 else _path_target(path)
            by_lang.setdefault(lang, []).append([path, slug, link, moved.get(path, (url,))[0], title, aliases])
    return {lang: _index(entries) for lang, entries in by_lang.items()}


def _owns(wiki: Wiki, old: Mapping[str, tuple]) -> Overlay:
    """Path -> (its metadata result's digest, slug, lang, title, aliases, draft, url) of each article with one, over
    `old` (the last read set's, kept): only the articles whose result's digest is not the one there are decoded."""
    metadata = wiki.results.get("metadata", {})
    now = {a.path: a.capture_id for a in wiki.articles if a.capture_id in metadata}
    owns = Overlay(old)
    for path, capture_id in now.items():
        digest, kept = known_as(metadata, capture_id), old.get(path)
        if kept is None or kept[0] != digest:
            meta = metadata[capture_id]
            owns[path] = (digest, meta["slug"], meta["lang"], meta["title"], meta["aliases"], bool(meta.get("draft")),
                          meta["url"])  # fmt: skip
    for path in old.keys() - now.keys():
        del owns[path]
    return owns


def _path_target(path: str) -> str:
    """The target naming a page by its path; a leading '/' keeps a top-level one a path."""
    key = group_key(path)
    return key if "/" in key else f"/{key}"


def _index(entries: list) -> dict:
    # The digest lets every process reuse one matcher per index, even after a JSON round trip.
    text = jsonio.dumps(entries)
    return {"digest": hashlib.sha256(text.encode()).hexdigest(), "entries": entries}


# ---- run -----------------------------------------------------------------------------------


def run(article: Article, inputs: dict) -> dict:
    mode = "apply" if inputs.get("mode") == "apply" else "suggest"
    matcher = matcher_for(inputs["index"])
    found = find_mentions(article, matcher, inputs.get("prose"))
    suggestions = [_suggestion(article, matcher, *mention) for mention in found]
    diagnostics = [
        diagnostic("unlinked-mention", f"'{s['mention']}' could link to {s['target_path']}: {s['replacement']}",
                   s["line"], s["col"], severity="info")
        for s in suggestions
    ]  # fmt: skip
    replacements = [(s["line"], s["col"], s["end_col"], s["replacement"]) for s in suggestions]
    edit = make_edit(article, replacements, applied=mode == "apply") if replacements else None
    return {"mode": mode, "suggestions": suggestions, "diagnostics": diagnostics, "edit": edit}


def find_mentions(article: Article, matcher: Matcher, prose: list | None = None) -> list[tuple[int, Match, str]]:
    """(body line, match, mention) of the first mention of each other article, in document order.

    `prose`: the body's `[line, start, end]` prose pieces (the links pass's); found here when None.
    """
    # Only lines holding a first word of a name outside wikilinks (which never span lines) may hold a
    # mention: a body with none needs no parse, and other paragraphs no inline scan.
    wanted = matcher.lines_with_first_words(masked(article.body, code=False))
    if not wanted:
        return []
    own = matcher.by_path.get(article.path)
    own_names = matcher.names_of(own) if own is not None else set()
    lines = article.body.split("\n")
    seen: set[int] = set()
    found = []
    if prose is None:
        chosen = prose_pieces(article.body, wanted=wanted)
    else:  # a line without a first word of a name holds none: its pieces can be passed over
        chosen = [Piece(*piece) for piece in prose if piece[0] in wanted]
    for number, pieces in _by_line(chosen):
        for match in _longest_first(m for p in pieces for m in matcher.scan(lines[number], p.start, p.end)):
            target = match.term.target
            # Self and ambiguous names still take their words, so nothing shorter links inside them.
            if target is None or target == own or match.term.key in own_names or target in seen:
                continue
            seen.add(target)
            found.append((number, match, lines[number][match.start : match.end]))
    return found


def _by_line(pieces: list[Piece]) -> list[tuple[int, list[Piece]]]:
    grouped: dict[int, list[Piece]] = {}
    for piece in pieces:
        grouped.setdefault(piece.line, []).append(piece)
    return sorted(grouped.items())


def _longest_first(matches) -> list[Match]:
    """Non-overlapping matches, longer ones winning, in column order."""
    taken: list[Match] = []
    for match in sorted(matches, key=lambda m: (m.start - m.end, m.start)):
        if all(match.end <= other.start or match.start >= other.end for other in taken):
            taken.append(match)
    return sorted(taken, key=lambda m: m.start)


def _suggestion(article: Article, matcher: Matcher, number: int, match: Match, mention: str) -> dict:
    path, slug, link, url, _, _ = matcher.entries[match.term.target]
    return {
        "target_slug": slug,
        "target_path": path,
        "target_url": url,
        "mention": mention,
        "line": number + article.body_line,
        "col": match.start + 1,
        "end_col": match.end + 1,
        "replacement": f"[[{link}|{mention}]]",
    }


def apply_suggestions(text: str, suggestions: list[dict], first_line: int = 1) -> str:
    """`text` with each suggestion's mention replaced by its wikilink.

    `first_line` is the file line `text` starts at (`article.body_line` for a
    body). A suggestion whose mention is not where it says is left out.
    """
    lines = text.split("\n")
    for s in sorted(suggestions, key=lambda s: (s["line"], s["col"]), reverse=True):
        number, start, end = s["line"] - first_line, s["col"] - 1, s["end_col"] - 1
        if 0 <= number < len(lines) and lines[number][start:end] == s["mention"]:
            lines[number] = lines[number][:start] + s["replacement"] + lines[number][end:]
    return "\n".join(lines)


PASS = Pass(
    name="mentions",
    version=5,
    contract=CONTRACT,
    run=run,
    select=select,
    needs=("metadata", "links"),
    wiki_options=("autolink",),
    incremental=Incremental(
        reads=("options", "metadata"),  # the title and alias index of every article
        reads_own=("links",),  # its prose
        keep=(f"{NAME}.indexes", f"{NAME}.keys", OWNS),
        affected=affected,
    ),
)
