"""The emitter contract: one output of the site (its pages, a sitemap, a feed...), told what changed.

An emitter's `emit(site, out, **options)` puts every file of its output:
HTML pages through the one render path (`out.page(planned)`: rendered
together with every other emitter's, by several processes, each page digested
so an unchanged one is not rendered again), other files with `out.put(rel,
bytes)`, templates rendered with `out.render(template, **context)`, and work
that must wait until every file is in place with `out.after(step)` (the
search index). `site` is what every output reads: the wiki model
(`site.model.articles`, each an `ArticlePage`), the settings and what several
outputs share (`site.categories`, `site.recent`, `site.histories`...):
`pipeline/site/emitting.py`.

Its one optional incremental method, `emit_changed(site, changes, out,
**options)`, runs instead of `emit` on a build after an edit, when the last
site is in place and nothing but articles changed (no article gone, no
setting, template, language or data file changed: then every emitter's
`emit` runs). `changes` (`emitting.Changes`) names the articles whose own
pages changed, those added, and whether the lists of pages may show it. The
files it does not put are the last build's, kept as they are. An emitter
without it has `emit` run on every build that renders: correct, only slower.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Callable


@dataclass(frozen=True)
class Emitter:
    """One output of the site. Bump `version` whenever the same wiki may give other files: the next build
    is not skipped. `defaults` names every option it takes (others are refused). `lists_pages`: it reads
    `out.pages`, every HTML page the other emitters planned, so it runs after them."""

    name: str
    emit: Callable[..., None]
    emit_changed: Callable[..., None] | None = None
    version: int = 1
    defaults: Mapping[str, Any] = field(default_factory=dict)
    lists_pages: bool = False


def unchanged_by_edits(site, changes, out, **options) -> None:
    """The `emit_changed` of an output only settings, templates and data files shape (robots.txt, the
    theme's assets): an edit changes none of them, so it keeps its last files."""
