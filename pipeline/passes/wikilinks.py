"""wikilinks: resolve every `[[link]]` of an article to a page, a red link, or an ambiguity.

Resolution order (see `link_index`): path, exact slug, normalized slug,
aliases, redirects, title. A link from an article in one language goes to
the same page in that language when it exists, else to another language
(status `fallback`, which the page marks). A `#fragment` is checked against the
target's anchors (`markdown/sections.py`): a heading, a heading path
(`#A#B`: heading B under heading A) or a block id (`#^id`), and the URL
points at that anchor. Each link comes out with its file line and column,
status (`ok`, `fallback`, `broken`, `ambiguous`, `self`), URL (a broken link's
points at the wanted-pages list) and the step that resolved it.

Diagnostics: `broken-link`, `ambiguous-link`, `broken-anchor`. When links
were resolved by a loose step (normalized, alias, redirect, title), `edit`
proposes rewriting them to the canonical `[[slug]]`, keeping what the
reader sees.

`select` returns, for this article, only the resolution of the targets it
links to (and heading ids only of targets linked with a `#fragment`), so a
change elsewhere in the wiki re-runs only the articles whose links it changes.
The headings it reads are those of the pages its `#fragment` links may go
to (`linked_headings`), not every article's: a heading added or renamed
replans the articles linking into that page, not the whole wiki.
"""

from __future__ import annotations

import functools
import posixpath
from typing import Callable

from pipeline.content.article import Article
from pipeline.markdown.sections import fragment_anchor, page_anchors
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Wiki, by_column, diagnostic, known_as, mentioning
from pipeline.passes.contract import Incremental, Pass
from pipeline.passes.edits import EDIT_SCHEMA, make_edit
from pipeline.passes.link_index import LinkIndex, keys_of
from pipeline.passes.link_index_build import build_index, changed_pages, patch_index
from pipeline.passes.links import LINK_SCHEMA
from pipeline.urls import is_attachment, runs_in_browser, wanted_url

NAME = "wikilinks"
STATUSES = ("ok", "fallback", "broken", "ambiguous", "self")
REWRITE_STEPS = ("normalized", "alias", "redirect", "title")
RESOLVED_SCHEMA = {
    **LINK_SCHEMA,
    "required": [*LINK_SCHEMA["required"], "status", "url", "target_path", "target_lang", "step", "anchor"],
    "properties": {
        **LINK_SCHEMA["properties"],
        "status": {"enum": list(STATUSES)},
        "url": {"type": "string"},
        "target_path": {"type": ["string", "null"]},
        "target_lang": {"type": ["string", "null"]},
        "step": {"enum": [None, "same-page", "path", "url", "exact", "normalized", "alias", "redirect", "title", "name"]},
        "anchor": {"enum": [None, "ok", "missing"]},
        "attachment": {"type": "boolean"},  # the target is a file other than a note (an image, a PDF...)
    },
}
CONTRACT = {
    "type": "object",
    "required": ["links", "diagnostics", "edit"],
    "properties": {
        "links": {"type": "array", "items": RESOLVED_SCHEMA},
        "diagnostics": DIAGNOSTICS_SCHEMA,
        "edit": EDIT_SCHEMA,
    },
}


FRAGMENT_TARGETS = f"{NAME}.fragment_targets"  # capture id -> (its links result as known, `_fragment_targets`)


def index_of(wiki: Wiki) -> LinkIndex:
    index = wiki.memo("wikilinks.index", lambda: _build(wiki))
    if index.headings_of is None:  # kept from a build in the same read set (KEEP): it reads this build's headings
        index.headings_of = _headings_reader(wiki)
    return index


def _build(wiki: Wiki) -> LinkIndex:
    metadata = wiki.results.get("metadata", {})
    records = [{**metadata[a.capture_id], "path": a.path} for a in wiki.articles if a.capture_id in metadata]
    records += [{"path": path, "attachment": True} for path in _published(wiki)]
    return build_index(records, wiki.data.get("redirects"), wiki.options["default_language"], _headings_reader(wiki),
                       _sources(wiki), links=wiki.options.get("links", "wiki"),
                       language_folders=bool(wiki.options.get("language_folders")))  # fmt: skip


def _patched(old: LinkIndex, wiki: Wiki) -> LinkIndex:
    """The index of this wiki, made from the last read set's (`old`): only the records that changed are read."""
    metadata, captures = wiki.results.get("metadata", {}), _captures(wiki)

    def record_of(path: str) -> dict:
        return {**metadata[captures[path]], "path": path} if path in captures else {"path": path, "attachment": True}

    return patch_index(old, _sources(wiki), record_of, _headings_reader(wiki))


def _sources(wiki: Wiki) -> dict[str, object]:
    """Path -> its metadata result as a plan knows it (its stored digest), of each article that has one; of each
    attachment, its hash."""
    metadata = wiki.results.get("metadata", {})
    sources = {a.path: known_as(metadata, a.capture_id) for a in wiki.articles if a.capture_id in metadata}
    return {**sources, **{path: sha for path, sha in _published(wiki).items() if path not in sources}}


def _published(wiki: Wiki) -> dict[str, str]:
    """Path -> hash of each attachment the site publishes (a page or script among them never is)."""
    return {path: sha for path, sha in wiki.attachments.items() if not runs_in_browser(path)}


def _headings_reader(wiki: Wiki) -> Callable[[str], list[list]]:
    """path -> its anchor rows (headings and block ids, `sections.page_anchors`): read for link targets only,
    as most selects name a heading of none."""
    headings, captures = wiki.results.get("headings", {}), _captures(wiki)
    return lambda path: _anchor_rows(headings.get(captures[path], {}))


def _anchor_rows(headings_result: dict) -> list[list]:
    return page_anchors(headings_result.get("headings", []), headings_result.get("blocks", []))


def _captures(wiki: Wiki) -> dict[str, int]:
    """Article path -> capture id (once per plan)."""
    return wiki.memo(f"{NAME}.captures", lambda: {article.path: article.capture_id for article in wiki.articles})


@by_column
def linked_headings(articles: list[Article], wiki: Wiki) -> list:
    """What `select` reads of other articles' headings for each article alone: the headings result of
    each page a `#fragment` link of it may resolve to. Most articles link to no heading, found
    without decoding their links (their JSON holds no `"fragment":"`).

    Which pages those are depends on the article's links result and the link index alone, which the
    read set names: they are kept with it (`FRAGMENT_TARGETS`, by each article's links result as known),
    so a plan after an edit resolves the edited article's links only, not every article's."""
    outputs = wiki.results.get("links", {})
    read = not wiki.memos([FRAGMENT_TARGETS])  # their links, only when no targets are kept: else few are decoded
    fragmenting = wiki.memo(f"{NAME}.fragmenting", lambda: set(mentioning(outputs, '"fragment":"', read=read)))
    headings, captures = wiki.results.get("headings", {}), _captures(wiki)
    return [
        [[path, known_as(headings, captures[path])]
         for path in wiki.entry(FRAGMENT_TARGETS, article.capture_id, known_as(outputs, article.capture_id),
                                functools.partial(_fragment_targets, article, wiki))
         if path in captures] if article.capture_id in fragmenting else []
        for article in articles
    ]  # fmt: skip


def _fragment_targets(article: Article, wiki: Wiki) -> list[str]:
    """The paths of the pages a `#fragment` link of `article` may resolve to, sorted."""
    index, questions = index_of(wiki), _questions(_links(article, wiki), *_place(article, wiki))
    # Which pages: not their headings (the answer without them names the same pages, and reads no result).
    return sorted({candidate["path"] for target, lang, folder, heading, markdown in questions.values() if heading
                   for candidate in index.resolve(target, lang, folder, False, markdown)["candidates"]})  # fmt: skip


def _place(article: Article, wiki: Wiki) -> tuple[str, str]:
    """The article's language and folder: where its links are resolved from."""
    meta = wiki.results.get("metadata", {}).get(article.capture_id, {})
    return meta.get("lang", wiki.options["default_language"]), posixpath.dirname(article.path)


def select(article: Article, wiki: Wiki) -> dict:
    index, links = index_of(wiki), _links(article, wiki)
    lang, folder = _place(article, wiki)
    targets = {key: index.resolve(*question) for key, question in _questions(links, lang, folder).items()}
    for key, fragments in _fragments_by_target(links).items():
        targets[key] = _only_anchors(targets[key], fragments)
    own, own_fragments = None, _fragments_by_target(links, own_page=True).get("")
    if own_fragments:  # to a heading or block of this page
        rows = _anchor_rows(wiki.results.get("headings", {}).get(article.capture_id, {}))
        own = {fragment: fragment_anchor(fragment, rows) for fragment in sorted(own_fragments)}
    page = {"lang": lang, "default_language": wiki.options["default_language"]}
    if wiki.options.get("links") == "obsidian":  # named only then: a wiki's jobs keep their inputs
        page["links"] = "obsidian"
    return {
        "page": page,
        "links": links,
        "targets": targets,
        "own_anchors": own,
    }


def _links(article: Article, wiki: Wiki) -> list[dict]:
    return wiki.results.get("links", {}).get(article.capture_id, {}).get("links", [])


def _questions(links: list[dict], lang: str, folder: str) -> dict[str, tuple]:
    """Target key -> what `select` asks the index of it (`LinkIndex.resolve`'s arguments), for links
    from an article in `lang` and `folder`; one naming a heading asks for the target's headings."""
    fragments = {target_key(link) for link in links if link["fragment"]}
    return {target_key(link): (link["target"], lang, folder, target_key(link) in fragments,
                               link.get("kind") == "markdown") for link in links if link["target"]}  # fmt: skip


def touches(article: Article, wiki: Wiki) -> set[str]:
    """The keys of the link index the article's select read (its answers are memoized: asked again)."""
    index, read = index_of(wiki), set()
    for question in _questions(_links(article, wiki), *_place(article, wiki)).values():
        index.resolve(*question, read=read)
    return read


def affected(old: dict, wiki: Wiki, touched) -> list[int] | None:
    """The articles whose select may read something else than in the last read set, whose index is `old`:
    those whose answers read a key of a page that changed (added, removed or other, before or after),
    and those the last read set's plans did not say (`touched`). None: the index was not kept. This
    build's index is `old` patched (the planner asks only when the data, the redirects among them, and
    the options are as they were). (Where an article's links resolve from, its language and folder,
    is its own metadata's, bound to its capture.)"""
    before = old.get(f"{NAME}.index")
    if before is None:
        return None
    now = wiki.memo(f"{NAME}.index", lambda: _patched(before, wiki))
    changed = changed_pages(before, now)
    found = []
    if changed:
        keys = set().union(*map(keys_of, changed))
        unknown = frozenset(keys)  # an article whose answers' keys were not kept may read any of them
        found = [a.capture_id for a in wiki.articles if not touched.get(a.capture_id, unknown).isdisjoint(keys)]
    # The others' answers are the last read set's: so are the pages their `#fragment` links may resolve to.
    targets, moved = old.get(FRAGMENT_TARGETS) or {}, set(found)
    wiki.memo(FRAGMENT_TARGETS, lambda: {capture: kept for capture, kept in targets.items() if capture not in moved})
    return found


def _fragments_by_target(links: list[dict], own_page: bool = False) -> dict[str, set[str]]:
    """Target key -> the fragments the article's links name in it (of other pages', or of its own page's)."""
    wanted: dict[str, set[str]] = {}
    for link in links:
        if link["fragment"] and bool(link["target"]) != own_page:
            wanted.setdefault(target_key(link), set()).add(link["fragment"])
    return wanted


def _only_anchors(resolution: dict, fragments: set[str]) -> dict:
    """Keep, of each candidate's anchors, only what this article's fragments point at (fragment -> anchor or None).

    Renaming a heading nobody links to then changes no other article's inputs.
    """
    candidates = []
    for candidate in resolution["candidates"]:
        if "headings" in candidate:  # the target's anchor rows, as the index found them
            rows = candidate["headings"]
            candidate = {key: value for key, value in candidate.items() if key != "headings"}
            candidate["anchors"] = {fragment: fragment_anchor(fragment, rows) for fragment in sorted(fragments)}
        candidates.append(candidate)
    return {**resolution, "candidates": candidates}


def target_key(link: dict) -> str:
    """Markdown destinations resolve by path only, so they are kept apart from wikilink targets."""
    return f"]({link['target']}" if link.get("kind") == "markdown" else link["target"]


def run(article: Article, inputs: dict) -> dict:
    page, resolved, diagnostics, replacements = inputs["page"], [], [], []
    for link in inputs["links"]:
        if link["target"]:
            out = _resolve(link, inputs["targets"][target_key(link)], article.path, page, diagnostics)
        else:
            out = _same_page(link)
        if link["fragment"]:
            anchors = inputs["own_anchors"] if not link["target"] else out.pop("anchors", None)
            _check_anchor(out, anchors, diagnostics)
        out.pop("anchors", None)
        # Rewriting to slugs would break the links in the writers' editor, where names are how links are written.
        if out["step"] in REWRITE_STEPS and out["status"] != "ambiguous" and page.get("links") != "obsidian":
            replacements += _rewrite(article, link, out.pop("canonical"))
        out.pop("canonical", None)
        resolved.append(out)
    return {"links": resolved, "diagnostics": diagnostics, "edit": make_edit(article, replacements, applied=False)}


def _same_page(link: dict) -> dict:
    return {**link, "status": "self", "url": "", "target_path": None, "target_lang": None, "step": "same-page",
            "anchor": None}  # fmt: skip


def _resolve(link: dict, resolution: dict, own_path: str, page: dict, diagnostics: list) -> dict:
    candidates, step = resolution["candidates"], resolution["step"]
    where = (link["line"], link["col"])
    if not candidates:
        if link.get("kind") == "markdown":
            url, message = link["raw"][1:-1], f"no page at ({link['target']})"
        else:
            url, message = wanted_url(link["target"], page["lang"], page["default_language"]), f"no page matches [[{link['target']}]]"
        code = "missing-attachment" if is_attachment(link["target"]) else "broken-link"
        if code == "missing-attachment":
            message = (f"{link['target']!r} is never published: a browser would run it" if runs_in_browser(link["target"])
                       else f"no file {link['target']!r} in the wiki")  # fmt: skip
        diagnostics.append(diagnostic(code, message, *where))
        return {**link, "status": "broken", "url": url, "target_path": None, "target_lang": None, "step": None,
                "anchor": None}  # fmt: skip
    chosen = candidates[0]
    if len(candidates) > 1:
        status = "ambiguous"
        paths = ", ".join(c["path"] for c in candidates)
        diagnostics.append(diagnostic("ambiguous-link", f"[[{link['target']}]] matches {paths} (by {step})", *where))
    elif chosen["path"] == own_path:
        status = "self"
    else:
        status = "fallback" if chosen["fallback"] else "ok"
    resolved = {**link, "status": status, "url": chosen["url"], "target_path": chosen["path"],
                "target_lang": chosen["lang"], "step": step, "anchor": None, "anchors": chosen.get("anchors"),
                "canonical": chosen["canonical"]}  # fmt: skip
    if chosen.get("attachment"):
        resolved["attachment"] = True
    return resolved


def _check_anchor(out: dict, anchors: dict[str, str | None] | None, diagnostics: list) -> None:
    """Point the URL at the anchor the fragment names (`anchors`: fragment -> anchor); report one the target lacks."""
    fragment = out["fragment"]
    if out["status"] in ("broken", "ambiguous") or anchors is None:
        return
    anchor = anchors.get(fragment)
    out["anchor"] = "ok" if anchor else "missing"
    out["url"] = f"{out['url']}#{anchor or fragment}"
    if out["anchor"] == "missing":
        where = out["target_path"] or "this page"
        kind = "block" if fragment.startswith("^") else "heading"
        message = f"{where} has no {kind} '#{fragment}'"
        diagnostics.append(diagnostic("broken-anchor", message, out["line"], out["col"]))


def _rewrite(article: Article, link: dict, canonical: str) -> list[tuple[int, int, int, str]]:
    """Replace the link's target (keeping fragment and label) by `canonical`; [] if the source differs."""
    opener = "![[" if link["embed"] else "[["
    inner = link["raw"][len(opener) : -2]
    target_part, pipe, _ = inner.partition("|")
    target_part = target_part[:-1] if pipe and target_part.endswith("\\") else target_part
    new = canonical + (f"#{link['fragment']}" if link["fragment"] else "")
    if not pipe and not link["embed"]:
        new += "|" + target_part.strip()  # the reader keeps seeing what they saw
    lines = (article.text or "").split("\n")
    line = lines[link["line"] - 1] if link["line"] <= len(lines) else ""
    start = link["col"] - 1 + len(opener)
    if not line.startswith(link["raw"][: len(opener)] + target_part, link["col"] - 1):
        return []
    return [(link["line"], start + 1, start + 1 + len(target_part), new)]


PASS = Pass(
    name="wikilinks",
    version=8,
    contract=CONTRACT,
    run=run,
    select=select,
    needs=("metadata", "headings", "links"),
    wiki_options=("default_language", "links", "language_folders"),
    incremental=Incremental(
        reads=("options", "data", "metadata", "attachments"),  # the link index (titles, slugs, aliases, redirects)
        reads_own=("links", "headings", linked_headings),
        # Built from metadata, data and options (headings are read through this build), and each article's links.
        keep=("wikilinks.index", FRAGMENT_TARGETS),
        affected=affected,
        touches=touches,
    ),
)
