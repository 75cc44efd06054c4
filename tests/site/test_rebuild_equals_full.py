"""An incremental build gives the site a full build of the same state gives, byte for byte.

A copy of the real wiki is built, then edited one kind of change at a
time: after each edit, the build (plan memo, kept indexes, page summaries,
site state, manifest: every shortcut), in two processes, writes into the
output folder of the builds before. The same state is then built again, in
one process, with every shortcut dropped (a copy of the store without plan memos or kept indexes, no page summaries,
no manifest, no last build) into an empty folder. The two folders must hold
the same files with the same bytes, and the builds the same diagnostics.
Every other step is built as the preview builds, with what it kept of the
last build it made (its `BuildCache`), so it also sees the store changed by another.
"""

from __future__ import annotations

import shutil

import pytest

from pipeline.build import build
from pipeline.incremental.build_cache import BuildCache
from pipeline.config import Config
from tests.conftest import folder_hashes
from tests.site.helpers import without_shortcuts

pytestmark = pytest.mark.slow  # a whole wiki built: outside the fast tier

THREE_RING = "architecture/three-ring-architecture.md"
OVERVIEW = "architecture/pointsav-overview.md"
NEW = "architecture/ring-boundaries.md"


def _append(rel: str, text: str):
    return lambda files: {rel: files[rel] + text}


def _replace(rel: str, old: str, new: str):
    def edit(files):
        assert old in files[rel], f"{rel} no longer holds {old!r}: pick another edit"
        return {rel: files[rel].replace(old, new, 1)}

    return edit


NEW_ARTICLE = "---\ntitle: Ring boundaries\n---\n\nSee [[about#how-it-is-built]] and [[three-ring-architecture]].\n"
NEW_REDIRECT = "redirects:\n  - from: /rings\n    to: /architecture/ring-boundaries\n"


def _both(*edits):
    return lambda files: {rel: text for edit in edits for rel, text in edit(files).items()}


# Each step: (what it changes, the files it writes: rel -> text, or None to delete).
STEPS = [
    ("a body alone: its title and links as they were",
     _replace(THREE_RING, "can AI silently touch", "can an AI silently touch")),
    ("a body, with a red link, a new link and a mention",
     _append(THREE_RING, "\nSee [[ring-boundaries]], [[about#how-it-is-built]] and About PointSav knowledge.\n")),
    ("a title others link to and mention",
     _replace(OVERVIEW, 'title: "PointSav — company', 'title: "PointSav, the company')),
    ("a new article the red link was waiting for, linking to a heading", lambda files: {NEW: NEW_ARTICLE}),
    ("a heading another article links to", _replace("about.md", "## How it is built", "## How it is made")),
    ("a category's name and a new redirect",
     _both(_replace("categories.yaml", 'name: "How It\'s Built"', 'name: "How It Is Built"'),
           _replace("redirects.yaml", "redirects:\n", NEW_REDIRECT))),
    ("frontmatter that no longer parses",
     _replace(OVERVIEW.replace(".md", ".es.md"), "\ntitle:", "\ntitle: [unclosed\nx:")),
    ("a translation removed, its source left paired one way",
     lambda files: {THREE_RING.replace(".md", ".es.md"): None}),
]  # fmt: skip


@pytest.fixture(scope="module")
def wiki(tmp_path_factory):
    from tests.conftest import POINTSAV

    root = tmp_path_factory.mktemp("rebuilt")
    shutil.copytree(POINTSAV, root / "content", ignore=shutil.ignore_patterns(".*"))
    config = Config(content_dir=root / "content", state_dir=root / "state", out_dir=root / "site", search=False)
    build(config, workers=1, site=True)
    return config


def test_every_incremental_build_gives_the_site_of_a_full_build(wiki, tmp_path):
    build_cache = BuildCache()  # as the preview keeps it, for every other step: the steps between are a command line's
    files = {p.relative_to(wiki.content_dir).as_posix(): p.read_text(encoding="utf-8")
             for p in wiki.content_dir.rglob("*") if p.is_file() and p.suffix in (".md", ".yaml")}  # fmt: skip
    for number, (change, edit) in enumerate(STEPS):
        for rel, text in edit(files).items():
            path = wiki.content_dir / rel
            if text is None:
                path.unlink()
                files.pop(rel)
            else:
                path.write_text(text, encoding="utf-8")
                files[rel] = text
        incremental = build(wiki, workers=2, site=True, build_cache=build_cache if number % 2 else None)
        full_config = without_shortcuts(wiki, tmp_path / f"full-{number}")
        full = build(full_config, workers=1, site=True, reuse=False)
        assert full.process.created_passes == [], f"after {change}: the incremental build missed jobs"
        assert _diagnostics(incremental) == _diagnostics(full), f"after {change}"
        assert folder_hashes(wiki.out_dir) == folder_hashes(full_config.out_dir), f"after {change}"
        assert len(incremental.site.written) < incremental.site.files  # it did take shortcuts


def _diagnostics(report) -> list:
    return sorted(map(repr, report.process.diagnostics))
