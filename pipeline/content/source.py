"""Reading one source file's bytes into plain data: text, frontmatter, body, language, slug.

Pure functions: no file system, no database. Every problem becomes a field of
`ParsedSource` (never an exception), so a broken file is still captured.
"""

from __future__ import annotations

import datetime
import posixpath
import re
from dataclasses import dataclass
from functools import cached_property

from pipeline.config import is_language_tag
from pipeline.runtime import safe_yaml

# ISO 639-1 code with an optional region: `guide.es.md`, `guide.pt-BR.md` (not `notes.old.md`).
LANG_SUFFIX = re.compile(r"^(?P<stem>.+)\.(?P<lang>[a-z]{2}(?:-[A-Z]{2})?)$")
FENCE = re.compile(r"^---[ \t]*\r?$")
FENCE_END = re.compile(r"^(---|\.\.\.)[ \t]*\r?$")
UNCLOSED = "frontmatter is not closed by a '---' line"  # then the whole file is the body


@dataclass(frozen=True)
class ParsedSource:
    """What capture records about a file besides its path, bytes and hash."""

    text: str | None
    decode_error: str | None
    frontmatter: dict | None
    frontmatter_error: str | None
    frontmatter_error_line: int | None
    body_line: int
    lang: str
    slug: str

    @cached_property
    def body(self) -> str:
        """The text from line `body_line` on: after the frontmatter, all of it without one, '' without text.

        Derived, not stored: a wiki's bodies are most of its text, and holding
        both doubled the memory of every process that loads articles.
        """
        text = self.text  # once: a StoredArticle reads it from the store at each use
        if text is None or self.body_line <= 1:
            return text or ""
        parts = text.split("\n", self.body_line - 1)
        return parts[-1] if len(parts) == self.body_line else ""


def parse_source(path: str, raw: bytes, default_language: str) -> ParsedSource:
    """Decode `raw` (the bytes of `path`) and split it into frontmatter and body."""
    text, decode_error = decode(raw)
    if text is None:
        return ParsedSource(None, decode_error, None, None, None, 1, *name_lang_slug(path, default_language))
    meta, error, error_line, body_line = split_frontmatter(text)
    lang, slug = name_lang_slug(path, default_language)
    if meta:
        written = frontmatter_language(meta)
        lang = written if written is not None and is_language_tag(written) else lang  # else `bad-language`
        slug = _text_value(meta.get("slug")) or slug
    return ParsedSource(text, None, meta, error, error_line, body_line, lang, slug)


def decode(raw: bytes) -> tuple[str | None, str | None]:
    """UTF-8 (a BOM is dropped); binary or undecodable bytes give an error instead."""
    if b"\x00" in raw:
        return None, "binary file (contains NUL bytes)"
    try:
        return raw.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        return None, f"not UTF-8: byte 0x{raw[exc.start]:02x} at line {line}"


def split_frontmatter(text: str) -> tuple[dict | None, str | None, int | None, int]:
    """Return (frontmatter, error, error line, the body's first line).

    Frontmatter is a YAML mapping between a first line `---` and the next `---`
    (or `...`). A file without it has frontmatter None and no error.
    """
    lines = text.split("\n")
    if not lines or not FENCE.match(lines[0]):
        return None, None, None, 1
    end = next((i for i in range(1, len(lines)) if FENCE_END.match(lines[i])), None)
    if end is None:
        return None, UNCLOSED, 1, 1
    try:
        meta = safe_yaml.load("\n".join(lines[1:end]))
    except safe_yaml.YamlError as exc:
        # +1 for the opening fence; an error found at the end of the YAML (an unclosed
        # bracket) is reported on its last line, not on the closing fence.
        return None, f"YAML {exc}", min(exc.line + 1, end), end + 2
    if meta is None:
        meta = {}
    if not isinstance(meta, dict):
        return None, f"frontmatter must be a mapping of keys, not a {type(meta).__name__}", 2, end + 2
    return to_json_safe(meta), None, None, end + 2


def to_json_safe(value):
    """YAML gives dates and non-string keys; JSON (where frontmatter is stored) does not.

    A walk of the value as a tree: `safe_yaml` bounds how far aliases (shared values) expand it.
    """
    if isinstance(value, dict):
        return {str(k): to_json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set)):
        return [to_json_safe(v) for v in value]
    if isinstance(value, (datetime.date, datetime.datetime, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    if isinstance(value, float) and value != value:  # NaN is not JSON
        return None
    return value


def name_lang_slug(path: str, default_language: str) -> tuple[str, str]:
    """`guide.es.md` is Spanish with slug `guide`; `guide.md` is the default language."""
    stem = posixpath.basename(path.rstrip("/"))  # PurePosixPath(path).name, without building a path object
    if stem.lower().endswith(".md"):
        stem = stem[:-3]
    match = LANG_SUFFIX.match(stem)
    if match:
        return match["lang"], match["stem"]
    return default_language, stem


def folder_language(path: str, languages: list[str] | None) -> str | None:
    """The language a file's top-level folder names (`es/Bases/Vistas.md` -> `es`): one of `languages`, or any
    language tag when the wiki lists none; None for a file at the root or in another folder."""
    top, slash, _ = path.partition("/")
    top = top.lower()
    if not slash or not is_language_tag(top):
        return None
    return top if languages is None or top in languages else None


def folders_are_languages(paths: list[str], languages: list[str] | None) -> bool:
    """Whether the wiki is one vault per language: it lists its languages, and every top-level folder
    holding notes is one of them."""
    if not languages:  # most wikis: not asked of every path
        return False
    tops = {path.partition("/")[0].lower() for path in paths if "/" in path}
    return bool(tops) and tops <= set(languages)


def frontmatter_language(meta: dict) -> str | None:
    """The language the frontmatter names (`lang`, else `language`), whether or not it is a language tag."""
    return _text_value(meta.get("lang")) or _text_value(meta.get("language"))


def _text_value(value) -> str | None:
    return value.strip() if isinstance(value, str) and value.strip() else None
