"""The theme's assets (`assets/`: style sheet, scripts), the wiki's own overriding and extending the built-in ones."""

from __future__ import annotations

from pipeline.site.emitters.base import Emitter, unchanged_by_edits
from pipeline.site.theme import assets


def emit(site, out) -> None:
    for rel, data in assets(site.settings.templates_dir).items():
        out.put(rel, data)


EMITTER = Emitter("assets", emit, unchanged_by_edits)
