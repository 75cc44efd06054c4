"""metadata: check frontmatter and normalize the slug and language of each article.

Reports, each with path, line and a stable code: `not-utf8`, `empty-file`,
`no-frontmatter`, `yaml-error`, `missing-title`, `bad-language` (a `lang`
that is not a language tag: the file name's language is used),
`unknown-language` and `invalid-field` (a known key with a value of the
wrong type). Its output is
what the wiki index is built from: title, slug, language, the URL of the
article's page, aliases, categories, short description and pairing fields.
"""

from __future__ import annotations

import re

from pipeline.config import is_language_tag
from pipeline.content.article import Article
from pipeline.content.source import frontmatter_language, name_lang_slug
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Wiki, diagnostic
from pipeline.text import frontmatter_line, url_slug
from pipeline.urls import article_url

NAME = "metadata"
VERSION = 5
CONTRACT_VERSION = 2
READS = ("options",)
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
    "tags": (list,),
    "paired_with": (str,),
    "references": (list,),
    "cites": (list,),
    "draft": (bool,),
}


def select(article: Article, wiki: Wiki) -> dict:
    return {"languages": wiki.options.get("languages"), "default_language": wiki.options["default_language"]}


def run(article: Article, inputs: dict) -> dict:
    meta = article.frontmatter or {}
    diagnostics = _source_problems(article)
    for key, types in FIELD_TYPES.items():
        if key in meta and meta[key] is not None and not isinstance(meta[key], types):
            line = frontmatter_line(article.text, key, article.body_line)
            expected = " or ".join("list" if t is list else t.__name__.replace("str", "text") for t in types)
            diagnostics.append(diagnostic("invalid-field", f"'{key}' must be {expected}", line))
    title = _string(meta.get("title"))
    if "title" not in meta and article.text is not None and article.frontmatter is not None:
        diagnostics.append(diagnostic("missing-title", "frontmatter has no 'title'", 1))
    lang = _language(article, meta, inputs, diagnostics)
    slug = url_slug(article.slug)
    return {
        "title": title or _heading_title(article.body) or article.slug,
        "slug": slug,
        "lang": lang,
        "url": article_url(article.path, slug, lang, inputs["default_language"]),
        "aliases": _strings(meta.get("aliases")),
        "categories": _strings(meta.get("categories")) or _strings(meta.get("category")),
        "short_description": _string(meta.get("short_description")) or _string(meta.get("description")),
        "paired_with": _string(meta.get("paired_with")),
        "draft": meta.get("draft") is True,
        "diagnostics": diagnostics,
    }


def _source_problems(article: Article) -> list[dict]:
    if article.decode_error:
        where = DECODE_LINE.search(article.decode_error)  # `decode` names the line of the bad byte
        return [diagnostic("not-utf8", article.decode_error, int(where[1]) if where else 1, severity="error")]
    if not article.text or not article.text.strip():
        return [diagnostic("empty-file", "the file is empty")]
    if article.frontmatter_error:
        line = article.frontmatter_error_line or 1
        return [diagnostic("yaml-error", article.frontmatter_error, line, severity="error")]
    if article.frontmatter is None:
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
    if not is_language_tag(lang):  # captured before languages were checked
        lang = name_lang_slug(article.path, inputs["default_language"])[0]
    lang = lang.lower()
    languages = inputs.get("languages")
    if languages is not None and lang not in languages:
        line = frontmatter_line(article.text, key, article.body_line)
        diagnostics.append(diagnostic("unknown-language", f"language '{lang}' is not one of the wiki's languages", line))
    return lang


def _heading_title(body: str) -> str | None:
    for line in body.split("\n", 50)[:50]:
        if line.startswith("# "):
            return line[2:].strip() or None
    return None


def _string(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None


def _strings(value) -> list[str]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return []
    return [item.strip() for item in value if isinstance(item, str) and item.strip()]
