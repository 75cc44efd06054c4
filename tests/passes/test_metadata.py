"""The metadata pass beyond its fixture cases (fixtures/metadata): captures made before languages were checked."""

from __future__ import annotations

import dataclasses

from pipeline.content.article import Article
from pipeline.content.source import parse_source
from pipeline.passes import metadata


def test_a_language_captured_before_languages_were_checked_is_replaced_by_the_file_names():
    raw = b"---\ntitle: Escape\nlang: ../../../tmp/x\n---\nBody.\n"
    parsed = dataclasses.replace(parse_source("guide.es.md", raw, "en"), lang="../../../tmp/x")  # as stored then
    fields = {field.name: getattr(parsed, field.name) for field in dataclasses.fields(parsed)}
    article = Article(**fields, capture_id=1, path="guide.es.md", sha256="0" * 64, size=len(raw))
    output = metadata.run(article, {"languages": None, "default_language": "en"})
    assert (output["lang"], output["url"]) == ("es", "es/guide/")
    assert [(d["code"], d["line"]) for d in output["diagnostics"]] == [("bad-language", 3)]
