"""Helpers for site tests: build a tiny wiki for real and read its output."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from pipeline.build import build
from pipeline.config import Config
from tests.helpers import forget_plans

# Two pairs (en/es), categories, a red link, an alias, a redirect, references and a malicious title.
SITE = {
    "alpha.md": (
        "---\ntitle: Alpha\nshort_description: The first page.\ncategory: guides\npaired_with: alpha.es.md\n"
        "aliases: [First page]\nreferences:\n  - id: 1\n    text: A book\n    url: https://example.org/book\n---\n\n"
        "Alpha links to [[beta]] and to [[missing page]].[^1]\n\n## Setup\n\nText.\n\n## Usage\n\nMore.\n"
    ),
    "alpha.es.md": (
        "---\ntitle: Alfa\ncategory: guides\npaired_with: alpha.md\nsource_revision: abcdef1\n---\n\n"
        "Alfa enlaza [[beta]] y [[falta]].\n"
    ),
    "beta.md": "---\ntitle: Beta\ncategories: [guides, extras]\n---\n\nBeta links back to [[alpha]].\n\n## Part\n\nBody.\n",
    "evil.md": '---\ntitle: "<script>alert(1)</script>"\n---\n\nEvil <b>bold</b> body.\n',
    "categories.yaml": (
        "categories:\n  - id: guides\n    name: Guides & Tutorials\n    scope: How to do things.\n    order: 1\n"
        "  - id: empty\n    name: Empty One\n    order: 2\n"
    ),
    "redirects.yaml": "redirects:\n  - from: /old/alpha\n    to: /alpha\n  - from: /alpha\n    to: /beta\n",
}


def build_site(config, **options):
    """Build `config` (search off unless asked) and return the report."""
    config = dataclasses.replace(config, **{"search": False, **options})
    return build(config, workers=1, site=True)


def read(out: Path, rel: str) -> str:
    return (out / rel).read_text(encoding="utf-8")


def assert_same_as_a_full_render(config, monkeypatch):
    """Render the same wiki again planning every page and rendering each (no state, no page digests):
    every file it makes has the bytes the last build left."""
    import pipeline.site as site_package
    from pipeline.site.writer import LastRecord

    with monkeypatch.context() as patch:
        patch.setattr(site_package, "last_render", lambda manifest, out: LastRecord())  # `LastRender.record`
        again = build(dataclasses.replace(config, search=False), workers=1, site=True, reuse=False)
    assert again.site.written == [] and again.site.removed == [] and again.site.unchanged == again.site.files


@pytest.fixture
def rendered(monkeypatch):
    """The URLs of the pages rendered through a template, in order (a test clears it before the build it looks at)."""
    from pipeline.site import render

    urls: list[str] = []
    original = render.render_page

    def recording(env, settings, page, nav):
        urls.append(page.url)
        return original(env, settings, page, nav)

    monkeypatch.setattr(render, "render_page", recording)
    return urls


@pytest.fixture
def site(make_wiki):
    """The SITE wiki, built; returns (config, report)."""
    config = make_wiki(SITE)
    return config, build_site(config)


def without_shortcuts(config: Config, root: Path) -> Config:
    """`config` with a copy of its state below `root` where every cache a build keeps is dropped (plan
    memos, kept indexes, page summaries, the last build, the manifest), and an empty output folder: built
    with `reuse=False`, it gives what a build that takes no shortcut gives."""
    shutil.copytree(config.state_dir, root / "state")
    for cache in (root / "state").rglob("*"):
        if cache.is_file() and cache.suffix == ".json" or cache.name == "templates-compiled":
            shutil.rmtree(cache) if cache.is_dir() else cache.unlink()
    (db,) = (root / "state").rglob("state.db")
    forget_plans(db)
    return dataclasses.replace(config, state_dir=root / "state", out_dir=root / "site")
