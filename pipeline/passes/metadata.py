"""metadata: check frontmatter and normalize the slug and language of each article.

Reports, each with path, line and a stable code: `not-utf8`, `empty-file`,
`no-frontmatter`, `unclosed-frontmatter` (a first line `---` never closed:
the whole file is the body), `yaml-error`, `missing-title`, `bad-language` (a `lang`
that is not a language tag: the file name's language is used),
`unknown-language` and `invalid-field` (a known key with a value of the
wrong type). Its output is
what the wiki index is built from: title, slug, language, the URL of the
article's page, aliases, categories, short description and pairing fields,
and the article's tags (frontmatter `tags:` and inline `#tags`, without `#`,
sorted, each once). The title is frontmatter `title`, else the first level-1
heading of the body as parsed (so not one in code or a comment), else the
file name as written (without `.md` and its language suffix).
"""

from __future__ import annotations

import re

from pipeline.config import is_language_tag
from pipeline.content.article import Article
from pipeline.content.source import UNCLOSED, folder_language, frontmatter_language, name_lang_slug
from pipeline.markdown import markdown_input
from pipeline.markdown.footnotes import in_body, parse_article
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Wiki, diagnostic
from pipeline.passes.contract import Incremental, Pass
from pipeline.text import frontmatter_line, url_slug
from pipeline.urls import article_url

CONTRACT = {
    "type": "object",
    "required": ["title", "slug", "lang", "url", "aliases", "categories", "diagnostics"],
    "properties": {
        "title": {"type": "string", "minLength": 1},
        "slug": {"type": "string", "minLength": 1},
        "lang": {"type": "string", "minLength": 1},
        "url": {"type": "string"},
        "aliases": {"type": "array", "items": {"type": "string"}},
        "categories": {"type": "array", "items": {"type": "string"}},
        "short_description": {"type": ["string", "null"]},
        "paired_with": {"type": ["string", "null"]},
        "draft": {"type": "boolean"},
        "tags": {"type": "array", "items": {"type": "string"}},
        "diagnostics": DIAGNOSTICS_SCHEMA,
    },
}

DECODE_LINE = re.compile(r"at line (\d+)$")

# Known keys and the types they must have; other keys are the wiki's own business.
FIELD_TYPES = {
    "title": (str,),
    "slug": (str,),
    "lang": (str,),
    "language": (str,),
    "short_description": (str,),
    "description": (str,),
    "aliases": (list, str),
    "categories": (list, str),
    "category": (str, list),
    "tags": (list, str),
    "paired_with": (str,),
    "references": (list,),
    "cites": (list,),
    "draft": (bool,),
}


def select(article: Article, wiki: Wiki) -> dict:
    chosen = {"languages": wiki.options.get("languages"), "default_language": wiki.options["default_language"],
              **markdown_input(wiki.options)}  # fmt: skip
    # Named only when set: the jobs of a wiki that sets neither keep their inputs.
    if wiki.options.get("links") == "obsidian":
        chosen["links"] = "obsidian"
    if wiki.options.get("language_folders"):
        chosen["language_folders"] = True
    return chosen


def run(article: Article, inputs: dict) -> dict:
    meta = article.frontmatter or {}
    obsidian = inputs.get("links") == "obsidian"
    diagnostics = _source_problems(article, obsidian)
    for key, types in FIELD_TYPES.items():
        if key in meta and meta[key] is not None and not isinstance(meta[key], types):
            line = frontmatter_line(article.text, key, article.body_line)
            expected = " or ".join("list" if t is list else t.__name__.replace("str", "text") for t in types)
            diagnostics.append(diagnostic("invalid-field", f"'{key}' must be {expected}", line))
    title = _string(meta.get("title"))
    # In Obsidian a note is named by its file: one without `title` lacks nothing.
    if "title" not in meta and article.text is not None and article.frontmatter is not None and not obsidian:
        diagnostics.append(diagnostic("missing-title", "frontmatter has no 'title'", 1))
    lang = _language(article, meta, inputs, diagnostics)
    slug = url_slug(article.slug)
    heading, inline_tags = _title_and_tags(article, inputs.get("markdown", ""))
    return {
        "title": title or heading or name_lang_slug(article.path, inputs["default_language"])[1],
        "slug": slug,
        "lang": lang,
        "url": article_url(article.path, slug, lang, inputs["default_language"]),
        "aliases": _strings(meta.get("aliases")),
        "categories": _strings(meta.get("categories")) or _strings(meta.get("category")),
        "short_description": _string(meta.get("short_description")) or _string(meta.get("description")),
        "paired_with": _string(meta.get("paired_with")),
        "draft": meta.get("draft") is True,
        "tags": sorted({*_frontmatter_tags(meta.get("tags")), *inline_tags}),
        "diagnostics": diagnostics,
    }


def _source_problems(article: Article, obsidian: bool) -> list[dict]:
    if article.decode_error:
        where = DECODE_LINE.search(article.decode_error)  # `decode` names the line of the bad byte
        return [diagnostic("not-utf8", article.decode_error, int(where[1]) if where else 1, severity="error")]
    if not article.text or not article.text.strip():
        return [diagnostic("empty-file", "the file is empty")]
    if article.frontmatter_error == UNCLOSED:
        return [diagnostic("unclosed-frontmatter", "the first line '---' is never closed: the whole file is shown as "
                           "the page's text")]  # fmt: skip
    if article.frontmatter_error:
        line = article.frontmatter_error_line or 1
        return [diagnostic("yaml-error", article.frontmatter_error, line, severity="error")]
    if article.frontmatter is None and not obsidian:  # an Obsidian note needs none
        return [diagnostic("no-frontmatter", "the file has no YAML frontmatter (a first line '---')")]
    return []


def _language(article: Article, meta: dict, inputs: dict, diagnostics: list[dict]) -> str:
    """The article's language tag, in lower case; `bad-language` and `unknown-language` reported at the key."""
    # The key the language came from, as `parse_source` reads them: `lang`, else `language`.
    key = "lang" if _string(meta.get("lang")) else "language"
    written = frontmatter_language(meta)
    if written is not None and not is_language_tag(written):
        line = frontmatter_line(article.text, key, article.body_line)
        message = f"{written[:40]!r} is not a language tag (like en or pt-BR): the file name's language is used"
        diagnostics.append(diagnostic("bad-language", message, line))
    lang = article.lang.strip()
    in_folder = folder_language(article.path, inputs.get("languages")) if inputs.get("language_folders") else None
    if in_folder and not (written and is_language_tag(written)):  # the frontmatter's wins, then the folder's
        lang = in_folder
    if not is_language_tag(lang):  # captured before languages were checked
        lang = name_lang_slug(article.path, inputs["default_language"])[0]
    lang = lang.lower()
    languages = inputs.get("languages")
    if languages is not None and lang not in languages:
        line = frontmatter_line(article.text, key, article.body_line)
        diagnostics.append(diagnostic("unknown-language", f"language '{lang}' is not one of the wiki's languages", line))
    return lang


def _title_and_tags(article: Article, markdown: str) -> tuple[str | None, list[str]]:
    """The text of the body's first level-1 heading and its inline tags, from the parse the headings pass
    shares (code, and what the wiki's extensions drop, hold neither)."""
    if "#" not in article.body and "=" not in article.body:  # no heading (ATX or setext) and no tag
        return None, []
    tokens, _, _ = parse_article(article.body, article.frontmatter, markdown=markdown)
    title, tags = None, []
    for token in in_body(tokens, article.body):
        if title is None and token.type == "heading_open" and token.tag == "h1":
            title = token.meta.get("text") or None
        elif token.type == "inline" and "#" in token.content:
            tags += [child.meta["tag"] for child in token.children or () if child.type == "tag"]
    return title, tags


def _frontmatter_tags(value) -> list[str]:
    """Frontmatter `tags:` as Obsidian reads them: a list, or a text of tags apart by commas or spaces; no `#`."""
    values = value.replace(",", " ").split() if isinstance(value, str) else _strings(value)
    return [tag for tag in (item.strip().lstrip("#") for item in values) if tag]


def _string(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _strings(value) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [item.strip() for item in value if isinstance(item, str) and item.strip()]


PASS = Pass(
    name="metadata",
    version=8,
    contract=CONTRACT,
    run=run,
    select=select,
    wiki_options=("languages", "default_language", "links", "language_folders"),
    incremental=Incremental(
        reads=("options",),
    ),
    contract_version=2,
)
