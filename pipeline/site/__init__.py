"""The static site: from pass results to the output folder.

`render_site` is the render step of a build: model (`model.py`, `pages.py`)
-> files (`render.py`, through the theme in `theme.py`) -> output folder
(`writer.py`) -> search index (`search.py`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Callable

from pipeline.config import Config
from pipeline.facts import Change
from pipeline.passes.base import Wiki
from pipeline.site.model import build_model
from pipeline.site.render import Previous, Settings, render_files
from pipeline.site.search import has_index, index_site
from pipeline.site.theme import environment, theme_digest
from pipeline.site.writer import SiteWriter, previous_files, previous_keys

MANIFEST = "site-manifest.json"


@dataclass
class SiteReport:
    """What the render step did to the output folder."""

    pages: int = 0  # HTML pages of articles and wiki pages (not redirects)
    redirects: int = 0
    files: int = 0  # every file of the site (pages, redirects, assets, sitemap...)
    written: list[str] = field(default_factory=list)  # files whose bytes changed, relative to the output folder
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)  # articles that lost their URL to another
    warnings: list[str] = field(default_factory=list)  # e.g. search not indexed
    indexed: bool = False  # Pagefind ran this build


def normalize_base(url: str) -> str:
    url = (url or "/").strip()
    return url if url.endswith("/") else f"{url}/"


def render_site(
    config: Config, wiki: Wiki, log: list[Change], versions: dict[str, int], *,
    tick: Callable[[int], None] | None = None, workers: int = 1,
) -> SiteReport:
    """Render the wiki into `config.out_dir`; `versions` is pass name -> version of the results in `wiki`."""
    model = build_model(wiki, log, versions)
    settings = Settings(config.site_name, normalize_base(config.base_url), config.search, config.templates_dir)
    env = environment(config.templates_dir, settings.base_url)
    manifest = config.state_dir / MANIFEST
    previous = Previous(
        previous_keys(manifest, config.out_dir), lambda rel: (config.out_dir / rel).is_file(),
        theme_digest(config.templates_dir),
    )  # fmt: skip
    writer = SiteWriter(config.out_dir, manifest)
    rendered = render_files(model, settings, env, writer, tick or (lambda n: None), previous, workers)
    written = writer.finish(rendered.keys)
    report = SiteReport(
        pages=rendered.pages, redirects=rendered.redirects, files=len(writer.files), written=written.written,
        unchanged=written.unchanged, removed=written.removed, conflicts=model.conflicts,
    )  # fmt: skip
    if config.search and (written.written or written.removed or not has_index(config.out_dir)):
        warning = index_site(config.out_dir)
        report.indexed = warning is None
        report.warnings += [warning] if warning else []
    return report


def site_intact(config: Config) -> bool:
    """Every file the last build wrote into the output folder is still there."""
    files = previous_files(config.state_dir / MANIFEST, config.out_dir)
    root = os.path.join(config.out_dir, "")  # plain strings: pathlib costs more than the stat on 10,000s of files
    return bool(files) and all(os.path.isfile(root + rel) for rel in files)
