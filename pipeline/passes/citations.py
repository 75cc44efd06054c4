"""citations: match citation markers to reference entries, and order the references.

Three ways an article cites:

- frontmatter `references:` entries (`id`, `text`, `url`), cited in the body
  with footnote markers `[^id]` (ids compare as text: `id: 1` is `[^1]`);
- frontmatter `cites:` ids, entries of `citations.yaml` in the content root
  (declaring an id cites it; a `[^id]` marker may place it in the text);
  without a `citations.yaml` they are not checked;
- numeric markers `[n]` in prose, matched to the numbered list under a
  `## References` heading (or a localized one, e.g. `## Referencias`).

Markers are found with markdown-it-py and the footnote plugin of
mdit-py-plugins, so markers in code are ignored. Footnotes defined in the
body (`[^id]: text`) count as defined; the footnote plugin renders them.

Diagnostics: `undefined-citation` (a marker or `cites:` id with no entry, at
its line and column) and `unused-reference` (a `references:` entry never
cited, at its line in the frontmatter; a numbered list entry never cited, in
an article that does use numeric markers).

Output: `references`, the ordered references section for the renderer: cited
entries in order of first citation, then the uncited ones. Each has `id`,
`number` (the list's own number for `list` entries, else its position among
the others), `text`, `url`, `source` and `cited`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from pipeline.content.article import Article
from pipeline.markdown import markdown_input
from pipeline.markdown.footnotes import entry_id, in_body, parse_article, reference
from pipeline.markdown.spans import masked
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Wiki, diagnostic
from pipeline.passes.contract import Incremental, Pass
from pipeline.text import frontmatter_line

REFERENCE_HEADINGS = frozenset(
    {"references", "referencias", "références", "referências", "referenzen", "riferimenti", "notes and references"}
)
FOOTNOTE_MARKER = re.compile(r"\[\^([^\]\s]+)\]")
NUMERIC_MARKER = re.compile(r"(?<![\w\\])\[(\d{1,3})\]")  # not `hashes[0]`
URL = re.compile(r"https?://[^\s<>()\[\]\"']+")
NO_REGISTRY = {"exists": False, "entries": []}

CONTRACT = {
    "type": "object",
    "required": ["references", "diagnostics"],
    "properties": {
        "references": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["id", "number", "text", "url", "source", "cited"],
                "properties": {
                    "id": {"type": "string"},
                    "number": {"type": "integer", "minimum": 0},
                    "text": {"type": "string"},
                    "url": {"type": ["string", "null"]},
                    "source": {"enum": ["frontmatter", "citations.yaml", "list"]},
                    "cited": {"type": "boolean"},
                },
            },
        },
        "diagnostics": DIAGNOSTICS_SCHEMA,
    },
}


@dataclass
class Entry:
    """A reference an article may cite."""

    id: str
    text: str
    url: str | None
    source: str
    line: int  # where it is defined, in the file
    number: int | None = None  # list entries only


@dataclass(frozen=True)
class Marker:
    """A citation in the text: `[^id]`, `[n]`, or an id under `cites:`."""

    id: str
    kind: str  # "footnote", "numeric" or "cites"
    line: int
    col: int


# ---------------------------------------------------------------- select


def select(article: Article, wiki: Wiki) -> dict:
    """Only the `citations.yaml` entries this article's `cites:` names, so other edits re-run nothing."""
    registry = wiki.memo("citations.registry", lambda: registry_entries(wiki.data.get("citations")))
    if registry is None:
        return {"registry": NO_REGISTRY, **markdown_input(wiki.options)}
    cited = _ids((article.frontmatter or {}).get("cites"))
    entries = [registry[i] for i in dict.fromkeys(cited) if i in registry]
    return {"registry": {"exists": True, "entries": entries}, **markdown_input(wiki.options)}


def registry_entries(data: list[dict] | None) -> dict[str, dict] | None:
    """id -> {id, text, url} of `citations.yaml`'s validated entries (`content/data_files.py`: one per id)."""
    return None if data is None else {entry["id"]: entry for entry in data}


# ---------------------------------------------------------------- run


def run(article: Article, inputs: dict) -> dict:
    registry = inputs["registry"]
    parsed = Parsed(article, registry["entries"], inputs.get("markdown", ""))
    meta = article.frontmatter or {}
    entries = _frontmatter_entries(article, meta.get("references"))
    entries += [_registry_entry(article, item) for item in registry["entries"]]
    entries += parsed.list_entries
    # Declaring an id under `cites:` cites it, after any marker that places it in the text.
    markers = parsed.markers + (_cites_markers(article, meta.get("cites")) if registry["exists"] else [])
    references, diagnostics = _match(entries, markers, parsed.body_footnotes)
    return {"references": references, "diagnostics": diagnostics}


def _match(entries: list[Entry], markers: list[Marker], body_footnotes: set[str]) -> tuple[list[dict], list[dict]]:
    """Resolve every marker; order cited entries by first citation, uncited ones after."""
    by_key = {}
    for entry in entries:
        by_key.setdefault(_key(entry), entry)
    diagnostics, cited = [], {}
    for marker in markers:
        entry = by_key.get(("list", marker.id) if marker.kind == "numeric" else ("id", marker.id))
        if entry is not None:
            cited.setdefault(id(entry), entry)
        elif not (marker.kind == "footnote" and marker.id in body_footnotes):
            diagnostics.append(diagnostic("undefined-citation", _undefined(marker), marker.line, marker.col))
    uses_numbers = any(m.kind == "numeric" for m in markers)
    uncited = [e for e in by_key.values() if id(e) not in cited]
    for entry in uncited:
        if entry.source == "frontmatter" or (entry.source == "list" and uses_numbers):
            where = "references:" if entry.source == "frontmatter" else "the references list"
            diagnostics.append(diagnostic("unused-reference", f"reference '{entry.id}' in {where} is never cited",
                                          entry.line))  # fmt: skip
    ordered = [(e, True) for e in cited.values()] + [(e, False) for e in uncited]
    return _numbered(ordered), sorted(diagnostics, key=lambda d: (d["line"], d["col"]))


def _key(entry: Entry) -> tuple[str, str]:
    return ("list", entry.id) if entry.source == "list" else ("id", entry.id)


def _undefined(marker: Marker) -> str:
    if marker.kind == "numeric":
        return f"[{marker.id}] has no entry {marker.id} in a References list"
    if marker.kind == "cites":
        return f"cites '{marker.id}', which citations.yaml does not define"
    return f"[^{marker.id}] has no entry in references: or cites:, and no footnote definition"


def _numbered(ordered: list[tuple[Entry, bool]]) -> list[dict]:
    references, counter = [], 0
    for entry, cited in ordered:
        if entry.source != "list":
            counter += 1
        number = entry.number if entry.source == "list" else counter
        references.append({"id": entry.id, "number": number, "text": entry.text, "url": entry.url,
                           "source": entry.source, "cited": cited})  # fmt: skip
    return references


# ---------------------------------------------------------------- frontmatter


def _frontmatter_entries(article: Article, references) -> list[Entry]:
    if not isinstance(references, list):
        return []
    lines = _id_lines(article, "references", len(references))
    entries = []
    for ref, line in zip(map(reference, references), lines):
        if ref:
            entries.append(Entry(ref["id"], ref["text"], ref["url"], "frontmatter", line))
    return entries


def _registry_entry(article: Article, item: dict) -> Entry:
    line = frontmatter_line(article.text, "cites", article.body_line)
    return Entry(item["id"], item["text"], item["url"], "citations.yaml", line)


def _cites_markers(article: Article, cites) -> list[Marker]:
    ids = _ids(cites)
    lines = _id_lines(article, "cites", len(ids))
    return [Marker(ident, "cites", line, 1) for ident, line in zip(ids, lines)]


def _id_lines(article: Article, key: str, count: int) -> list[int]:
    """The file line of each item of the list under frontmatter `key` (the key's line when not found)."""
    start = frontmatter_line(article.text, key, article.body_line)
    lines = (article.text or "").split("\n")[start : article.body_line - 2]
    found = []
    for number, line in enumerate(lines, start=start + 1):
        if line and not line[0].isspace() and not line.startswith("-"):
            break  # the next key
        if re.match(r"^\s*-\s", line):
            found.append(number)
    return found if len(found) == count else [start] * count


# ---------------------------------------------------------------- body


class Parsed:
    """Markers and numbered reference entries of an article's body."""

    def __init__(self, article: Article, registry: list[dict], markdown: str = "") -> None:
        self.offset = article.body_line - 1
        self.lines = article.body.split("\n")
        self.masked: dict[int, str] = {}  # body line -> the line with wikilinks and code spans blanked
        self.markers: list[Marker] = []
        self.list_entries: list[Entry] = []
        tokens, env, appended = parse_article(article.body, article.frontmatter, registry, markdown=markdown)
        defined = {label[1:] for label in env.get("footnotes", {}).get("refs", {})}
        self.body_footnotes = defined - {ref["id"] for ref in appended}
        tokens = in_body(tokens, article.body)
        section = _references_section(tokens)
        for index, token in enumerate(tokens):
            if section[0] <= index < section[1]:
                self._list_item(tokens, index)
            elif token.type == "inline" and token.map:
                self._markers(token)

    def _list_item(self, tokens, index: int) -> None:
        token = tokens[index]
        if token.type != "list_item_open" or not token.info.isdigit() or not token.map:
            return
        inline = next((t for t in tokens[index + 1 :] if t.type == "inline"), None)
        text = inline.content.strip() if inline else ""
        url = URL.search(text)
        line = token.map[0] + 1 + self.offset
        entry = Entry(str(int(token.info)), text, url.group().rstrip(".,;:") if url else None, "list", line)
        entry.number = int(token.info)
        self.list_entries.append(entry)

    def _markers(self, inline) -> None:
        # Each marker is the first of its text after the one before it: one scan of the block for all of
        # them (a block may hold thousands), and a text found nowhere after a place is not looked for again.
        place, missing = (inline.map[0], 0), {}
        for child in inline.children or []:
            found = []
            if child.type == "footnote_ref" and "label" in child.meta:  # an inline `^[...]` is its own definition
                found = [(0, "footnote", child.meta["label"], f"[^{child.meta['label']}]")]
            elif child.type == "text" and "[" in child.content:  # most text cites nothing: skip the masking
                prose = masked(child.content)
                found = [(m.start(), "footnote", m[1], m[0]) for m in FOOTNOTE_MARKER.finditer(prose)]
                found += [(m.start(), "numeric", str(int(m[1])), m[0]) for m in NUMERIC_MARKER.finditer(prose)]
            for _, kind, ident, needle in sorted(found):  # in the order of the text
                gone = needle in missing and missing[needle] <= place
                located = None if gone else self._locate(inline.map, needle, place)
                if located is None:
                    missing[needle] = place
                    located = (inline.map[0] + 1 + self.offset, 1), place
                (line, col), place = located
                self.markers.append(Marker(ident, kind, line, col))

    def _locate(self, span: list[int], needle: str, place: tuple[int, int]):
        """File line and column of the first `needle` from `place` (block line, column) in a block, and the
        place after it; None when there is none."""
        number, start = place
        while number < min(span[1], len(self.lines)):
            if number not in self.masked:
                self.masked[number] = masked(self.lines[number])
            found = self.masked[number].find(needle, start)
            if found >= 0:
                return (number + 1 + self.offset, found + 1), (number, found + len(needle))
            number, start = number + 1, 0
        return None


def _references_section(tokens) -> tuple[int, int]:
    """Token range of the section under a References heading (empty when there is none)."""
    start, level = None, 0
    for index, token in enumerate(tokens):
        if token.type != "heading_open":
            continue
        if start is not None and int(token.tag[1]) <= level:
            return start, index
        title = tokens[index + 1].content.strip().rstrip(":").strip().casefold()
        if start is None and title in REFERENCE_HEADINGS:
            start, level = index, int(token.tag[1])
    return (start, len(tokens)) if start is not None else (0, 0)


def _ids(values) -> list[str]:
    values = [values] if isinstance(values, (str, int)) else values
    return [i for i in map(entry_id, values if isinstance(values, list) else []) if i]


PASS = Pass(
    name="citations",
    version=4,
    contract=CONTRACT,
    run=run,
    select=select,
    incremental=Incremental(
        reads=("data", "options"),  # citations.yaml (the article's own `cites:` is part of it); the Markdown extensions
    ),
)
