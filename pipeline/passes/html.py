"""html: render an article's Markdown body to the HTML of its page.

Uses the wiki's shared parser (`pipeline.markdown.make_parser`: tables,
footnotes, heading anchors, task lists, wikilinks); raw HTML is escaped
unless the `raw_html` option is set. Links render from the wikilinks pass's
resolution (red links for broken ones, marked fallbacks), `![[embeds]]`
show the embedded article's body (cycle-safe, at most `EMBED_DEPTH` deep;
`![[page#Heading]]` its section only, `![[page#^id]]` that block only),
frontmatter references become footnotes cited by `[^id]`, and in
`autolink: apply` mode the mentions pass's suggestions become links.

Most pages are not parsed here: the links pass rendered the article in the
first round with its links left as holes, and this pass fills them; the
page is then stored as that HTML and the fills (`text_refs.Filled`), not as a
second copy. A page with embeds or mentions to link, or whose references
changed since, is rendered whole.

Output: `html` (the body), `references_html` (the numbered references, for
the page's References section; '' when none) and `toc` (level, text, id of
the headings, from the headings pass, whose ids are the anchors here).
"""

from __future__ import annotations

import functools
import re

from pipeline.content.article import Article
from pipeline.markdown import make_parser, markdown_input
from pipeline.markdown.comments import BODY_END
from pipeline.markdown.footnotes import definitions, undefined
from pipeline.markdown.math import math_errors
from pipeline.markdown.sections import fragment_lines
from pipeline.markdown.slots import embed_fills
from pipeline.markdown.wikilinks import Embedded, href_env, link_env, render_with_embeds
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Wiki, by_column, diagnostic, known_as, mentioning
from pipeline.passes.contract import Incremental, Pass
from pipeline.passes.links import keys
from pipeline.passes.mentions import apply_suggestions
from pipeline.storage.text_refs import fill
from pipeline.urls import normalize_base

NAME = "html"
EMBEDDED = f"{NAME}.embedded"  # capture id -> (its wikilinks result as known, `_embedded`)
EMBED_DEPTH = 3
OUTLINE = ("headings", "blocks", "block_lines")  # of an embedded article's headings result: its parts' lines
TOC_LEVELS = (2, 3, 4)
RENDER_FIELDS = ("line", "col", "status", "url", "target_lang", "kind", "raw")  # what a link's HTML depends on
FOOTNOTES_SEP = re.compile(r'<hr class="footnotes-sep" ?/?>\n')
CONTRACT = {
    "type": "object",
    "required": ["html", "references_html", "toc", "diagnostics"],
    "properties": {
        "html": {"type": "string"},
        "references_html": {"type": "string"},
        "toc": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["level", "text", "id"],
                "properties": {"level": {"type": "integer"}, "text": {"type": "string"}, "id": {"type": "string"}},
            },
        },
        "diagnostics": DIAGNOSTICS_SCHEMA,
    },
}


@by_column
def embedded_parts(articles: list[Article], wiki: Wiki) -> list:
    """What `select` reads of other articles for each article alone: the path, capture and links result
    of each article it embeds, up to EMBED_DEPTH deep. Most embed nothing, found without decoding
    their links; so a title change or a new article replans the pages whose links changed, not all.

    An article's parts are kept (`EMBEDDED`, with the read set) by its own links result as known, and
    used again while that and each part are what they were: a plan after an edit decodes the links of
    the articles whose parts changed, not of every article that embeds."""
    outputs, embedding = wiki.results.get("wikilinks", {}), _embedding(wiki)
    by_path = wiki.memo(f"{NAME}.by_path", lambda: {a.path: a for a in wiki.articles}) if embedding else {}
    return [
        wiki.entry(EMBEDDED, article.capture_id, known_as(outputs, article.capture_id),
                   functools.partial(_embedded, article, outputs, by_path),
                   lambda parts: all(_same_part(part, outputs, by_path) for part in parts))
        if article.capture_id in embedding else []
        for article in articles
    ]  # fmt: skip


def _embedding(wiki: Wiki) -> set[int]:
    """The capture ids of the articles that embed anything (found without decoding any links result; their results
    read with them only when no embedded parts are kept from the last plan: else few are decoded)."""
    read = not wiki.memos([EMBEDDED])
    return wiki.memo(f"{NAME}.embedding",
                     lambda: set(mentioning(wiki.results.get("wikilinks", {}), '"embed":true', read=read)))  # fmt: skip


def _same_part(part: tuple, outputs, by_path: dict[str, Article]) -> bool:
    """Whether an embedded article is still the capture it was, with the links result it had."""
    path, capture_id, links_as = part
    target = by_path.get(path)
    return target is not None and target.capture_id == capture_id and known_as(outputs, capture_id) == links_as


def _embedded(article: Article, outputs, by_path: dict[str, Article]) -> list:
    parts, frontier, seen = [], [article.capture_id], {article.path}
    for _ in range(EMBED_DEPTH):
        following = []
        for capture_id in frontier:
            for link in (outputs.get(capture_id) or {}).get("links", []):
                target = by_path.get(link.get("target_path") or "") if link["embed"] else None
                if target is None or target.path in seen:
                    continue
                seen.add(target.path)
                parts.append((target.path, target.capture_id, known_as(outputs, target.capture_id)))
                following.append(target.capture_id)
        frontier = following
    return parts


def select(article: Article, wiki: Wiki) -> dict:
    meta = wiki.results.get("metadata", {}).get(article.capture_id) or {}
    headings = (wiki.results.get("headings", {}).get(article.capture_id) or {}).get("headings", [])
    references = (wiki.results.get("citations", {}).get(article.capture_id) or {}).get("references", [])
    apply = wiki.options.get("autolink") == "apply"
    mentions = (wiki.results.get("mentions", {}).get(article.capture_id) or {}) if apply else {}
    return {
        "page": {
            "lang": meta.get("lang", article.lang), "default_language": wiki.options["default_language"],
            "raw_html": bool(wiki.options.get("raw_html")), "base_url": normalize_base(wiki.options.get("base_url")),
            **markdown_input(wiki.options),
        },
        "links": _render_links(wiki, article.capture_id),
        "toc": [{"level": h["level"], "text": h["text"], "id": h["id"]} for h in headings if h["level"] in TOC_LEVELS],
        "references": [{"id": r["id"], "text": r["text"], "url": r["url"]} for r in references if r["source"] != "list"],
        "suggestions": mentions.get("suggestions", []),
        "embeds": _embeds(article, wiki),
        "markup": _markup(wiki.results.get("links", {}).get(article.capture_id)),
    }  # fmt: skip


def _markup(links: dict | None) -> dict | None:
    """The links pass's rendering of the body: its HTML (left in the store), holes and footnotes."""
    return {name: links[name] for name in ("html", "slots", "definitions")} if links else None


def _render_links(wiki: Wiki, capture_id: int) -> list[dict]:
    links = (wiki.results.get("wikilinks", {}).get(capture_id) or {}).get("links", [])
    # `attachment` only where it is true: a file embedded is shown as its element (`markdown/media.py`).
    return [{name: link.get(name) for name in RENDER_FIELDS} | ({"attachment": True} if link.get("attachment") else {})
            for link in links]  # fmt: skip


def _embeds(article: Article, wiki: Wiki) -> dict:
    """The articles embedded from this one (up to EMBED_DEPTH deep): embed target -> path, path -> body, links,
    the links pass's rendering ([HTML with holes, slots], left in the store; None: none) and its headings and blocks
    with their lines (`OUTLINE`: where an embedded section or block is)."""
    targets: dict[str, str] = {}
    bodies: dict[str, dict] = {}
    if article.capture_id not in _embedding(wiki):  # most articles: their links are not decoded twice
        return {"targets": targets, "bodies": bodies}
    by_path = wiki.memo(f"{NAME}.by_path", lambda: {a.path: a for a in wiki.articles})
    frontier = [article.capture_id]
    for _ in range(EMBED_DEPTH):
        following = []
        for capture_id in frontier:
            for link in (wiki.results.get("wikilinks", {}).get(capture_id) or {}).get("links", []):
                target = by_path.get(link.get("target_path") or "")
                if not link["embed"] or target is None:
                    continue
                targets.setdefault(link["target"], target.path)
                if target.path not in bodies and target.path != article.path:
                    markup = _markup(wiki.results.get("links", {}).get(target.capture_id))
                    outline = wiki.results.get("headings", {}).get(target.capture_id) or {}
                    bodies[target.path] = {"body": target.body, "body_line": target.body_line,
                                           "links": _render_links(wiki, target.capture_id),
                                           "rendered": [markup["html"], markup["slots"]] if markup else None,
                                           "outline": {name: outline.get(name, []) for name in OUTLINE}}  # fmt: skip
                    following.append(target.capture_id)
        frontier = following
    return {"targets": targets, "bodies": bodies}


def run(article: Article, inputs: dict) -> dict:
    page = inputs["page"]
    md = make_parser(raw_html=page["raw_html"], base_url=page["base_url"], default_language=page["default_language"],
                     markdown=page.get("markdown", ""))
    links = link_env(inputs["links"], article.body_line)
    env = {"wikilinks": links, "hrefs": href_env(inputs["links"]), "lang": page["lang"]}
    markup, fetch = inputs["markup"], _fetcher(article.path, inputs["embeds"])
    if _prerendered(markup, inputs, article.body):
        # The page is the links pass's HTML with its holes filled: stored as that recipe, not a second copy.
        holes = embed_fills(md, markup["slots"], env, fetch, EMBED_DEPTH, (article.path,))
        html, references_html = split_footnotes(markup["html"], holes)
    else:
        body = article.body
        if inputs["suggestions"]:
            body, env["wikilinks"] = with_mentions(body, links, inputs["suggestions"], article.body_line)
        env[BODY_END] = body.count("\n") + 1  # a comment left open in the body hides no footnote appended to it
        body += definitions(inputs["references"], body)
        rendered = render_with_embeds(md, body, env, fetch, EMBED_DEPTH, article.path)
        html, references_html = split_footnotes(rendered)
    errors = math_errors(html) + math_errors(references_html)
    last = article.body.count("\n") if errors else 0  # a formula of an appended reference: the body's end
    diagnostics = [diagnostic("math-error", why, article.body_line + min(line, last)) for line, why in errors]
    return {"html": html, "references_html": references_html, "toc": inputs["toc"], "diagnostics": diagnostics}


def _prerendered(markup: dict | None, inputs: dict, body: str) -> bool:
    """Whether the links pass's rendering, its holes filled, is this page: no mentions to link, and the same
    references appended as footnotes."""
    return (
        markup is not None and not inputs["suggestions"]
        and markup["definitions"] == keys(undefined(inputs["references"], body))
    )  # fmt: skip


def _fetcher(own_path: str, embeds: dict):
    """`fetch_body` for `render_with_embeds`: each embedded body (or the section or block its `#fragment`
    names) with its own links and its own footnotes."""
    count = 0

    def fetch(meta: dict) -> Embedded | None:
        nonlocal count
        path = embeds["targets"].get(meta["target"]) if meta["target"] else own_path
        if path == own_path:
            return Embedded(own_path, "", {})  # a page embedding itself or a part of it: noted as a cycle
        found = embeds["bodies"].get(path)
        if found is None:
            return None
        body, first, identity, rendered = found["body"], 0, path, _as_embedded(found["rendered"])
        if meta.get("fragment"):
            part = embedded_part(body, found["outline"], found["body_line"], meta["fragment"])
            if part is None:
                return None  # no such section or block: a link to the page (broken-anchor is reported)
            (body, first), identity, rendered = part, f"{path}#{meta['fragment']}", None
        count += 1
        env = {"wikilinks": link_env(found["links"], found["body_line"] + first), "hrefs": href_env(found["links"]),
               "footnotes": {}, "docId": f"embed{count}"}  # fmt: skip
        return Embedded(identity, body, env, rendered)

    return fetch


def _as_embedded(rendered: list | None) -> tuple[str, list[dict]] | None:
    """The links pass's rendering of an embedded article, where it shows it as embedded whole: not where it has
    footnotes (an embedded body numbers its own apart from the page's) or a formula that does not parse (its own
    page reports it, with its line: `math.math_errors`)."""
    if rendered is None or "footnote" in rendered[0] or "math-error" in rendered[0]:
        return None
    return rendered[0], rendered[1]


def embedded_part(body: str, outline: dict, body_line: int, fragment: str) -> tuple[str, int] | None:
    """The lines of `body` that `fragment` names (a heading's section, or a block, as its headings result `outline`
    places them) and the index of the first."""
    lines = body.split("\n")
    span = fragment_lines(outline, body_line, fragment, len(lines))
    return None if span is None else ("\n".join(lines[span[0] : span[1]]), span[0])


def split_footnotes(html: str, holes: list[str] = ()) -> tuple[str, str]:
    """The body's own footnotes section (always last, after any embed) apart from the body,
    each with its `holes` filled (`text_refs.fill`)."""
    matches = list(FOOTNOTES_SEP.finditer(html)) if html.endswith("</section>\n") else []
    if not matches:
        return fill(html, holes), ""
    last = matches[-1]
    return fill(html, holes, 0, last.start()), str(fill(html, holes, last.end()))


def with_mentions(body: str, links: dict, suggestions: list[dict], body_line: int) -> tuple[str, dict]:
    """The body with mentions linked (`autolink: apply`), and the link table moved to match the new columns."""
    lines = body.split("\n")
    placed = [s for s in suggestions if _in_place(lines, s, body_line)]
    shifts: dict[int, list[tuple[int, int]]] = {}  # body line -> (column, growth) of each replacement
    for s in placed:
        growth = len(s["replacement"]) - (s["end_col"] - s["col"])
        shifts.setdefault(s["line"] - body_line + 1, []).append((s["col"], growth))

    def moved(line: int, col: int) -> int:
        return col + sum(growth for start, growth in shifts.get(line, ()) if start < col)

    table = {(line, moved(line, col)): entry for (line, col), entry in links.items()}
    for s in placed:
        line = s["line"] - body_line + 1
        table[(line, moved(line, s["col"]))] = {"status": "ok", "url": s["target_url"], "target_lang": None}
    return apply_suggestions(body, placed, body_line), table


def _in_place(lines: list[str], suggestion: dict, body_line: int) -> bool:
    number = suggestion["line"] - body_line
    start, end = suggestion["col"] - 1, suggestion["end_col"] - 1
    return 0 <= number < len(lines) and lines[number][start:end] == suggestion["mention"]


PASS = Pass(
    name="html",
    version=6,
    contract=CONTRACT,
    run=run,
    select=select,
    needs=("metadata", "headings", "links", "wikilinks", "citations", "mentions"),
    wiki_options=("autolink", "raw_html", "base_url", "default_language"),
    lazy_fields=("html",),  # read by no other pass: the site reads it from the store page by page
    incremental=Incremental(
        reads=("options",),
        # Its own results, and the captures and links of the articles it embeds.
        reads_own=("metadata", "headings", "links", "wikilinks", "citations", "mentions", embedded_parts),
        keep=(EMBEDDED,),  # checked against what it was made of before it is used again
    ),
)
