"""Run passes over an inline wiki held in memory: no store, no queue, no files.

The same select -> run -> validate steps as a worker, in one process. Tests
use it to check cross-article logic on tiny sites written in the test, the
way Pelican tests `process_translations`.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import fields

from pipeline.passes.options import wiki_options
from pipeline.config import Config
from pipeline.content.article import Article
from pipeline.content.data_files import validated
from pipeline.content.source import parse_source
from pipeline.passes.base import Wiki
from pipeline.passes.contract import PassSpec
from pipeline.passes.registry import load_passes, rounds


# The options a wiki that sets none gives the built-in passes.
DEFAULT_OPTIONS = wiki_options(Config(), load_passes(entry_points=False))


def articles_from(files: dict[str, str | bytes], default_language: str = "en") -> list[Article]:
    """Articles for `files` (relative path -> text or bytes), capture ids 1, 2, ... by path."""
    articles = []
    for number, path in enumerate(sorted(files), start=1):
        raw = files[path].encode() if isinstance(files[path], str) else files[path]
        parsed = parse_source(path, raw, default_language)
        identity = {"capture_id": number, "path": path, "sha256": hashlib.sha256(raw).hexdigest(), "size": len(raw)}
        articles.append(Article(**{f.name: getattr(parsed, f.name) for f in fields(parsed)}, **identity))
    return articles


def run_inline(
    files: dict[str, str | bytes],
    *,
    options: dict | None = None,
    data: dict | None = None,
    facts: dict | None = None,
    specs: list[PassSpec] | None = None,
    attachments: dict[str, str] | None = None,
) -> dict[str, dict[str, dict]]:
    """pass name -> path -> output, for every pass (or `specs`) over `files`; `data`: each data file's YAML value
    (validated as a build does, its bad entries left out); `attachments`: path -> sha256 of the wiki's other files."""
    options = {**DEFAULT_OPTIONS, **(options or {})}
    articles = articles_from(files, options["default_language"])
    data = {name: validated(name, value)[0] for name, value in (data or {}).items()}
    wiki = Wiki(options=options, articles=articles, data=data, facts=facts or {}, attachments=attachments or {})
    for round_specs in rounds(specs or load_passes()):
        for spec in round_specs:
            outputs = {}
            for article in articles:
                # A JSON round trip, as through the store, so passes see exactly what workers see.
                inputs = json.loads(json.dumps(spec.inputs_of(article, wiki)))
                output = spec.call(article, inputs)
                spec.validate(output)
                outputs[article.capture_id] = json.loads(json.dumps(output))
            wiki.results[spec.name] = outputs
    by_id = {a.capture_id: a.path for a in articles}
    return {name: {by_id[i]: out for i, out in outs.items()} for name, outs in wiki.results.items()}
