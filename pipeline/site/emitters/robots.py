"""`robots.txt`: every page may be crawled; where the sitemap is."""

from __future__ import annotations

from pipeline.site.emitters.base import Emitter, unchanged_by_edits


def emit(site, out) -> None:
    out.put("robots.txt", out.render("robots.txt"))


EMITTER = Emitter("robots", emit, unchanged_by_edits)
