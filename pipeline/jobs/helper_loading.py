"""What a build's forked helper loads ahead for an edit: the content folder scanned, then, when the scan finds a few
files changed, the contracts' checker, Pygments and the lexers those files' code blocks name.

The helper scans first (`build.start_helpers`), then idles while the build captures and stamps; an edit build next
gives it the passes to load (`worker._ready`) and its first jobs. What those jobs need beyond the passes is loaded
in that idle time, so the edited article's first pass waits for none of it. A scan that finds nothing changed (a
build that may have nothing to do, which must not be slowed) or many files (a cold or CI build, worked by several
processes) loads nothing here.
"""

from __future__ import annotations

import os
from functools import partial

from pipeline.config import Config
from pipeline.content.scan import Scan, read_regular, scan_sources
from pipeline.markdown.extensions import enabled as enabled_extensions
from pipeline.markdown.extensions import setting as markdown_setting
from pipeline.runtime.forks import Afterwards

FEW_CHANGED = 64  # Markdown files changed: an edit's; more, a cold or CI build's


def scan_then_load(config: Config, db: str | None) -> Scan | Afterwards:
    """`scan_sources`, and, when it finds a few files changed, what their jobs will need (`load_for_edit`)."""
    scan = scan_sources(config, db)
    if not scan.unvouched or len(scan.unvouched) > FEW_CHANGED:
        return scan
    return Afterwards(scan, partial(load_for_edit, config, [scan.on_disk.get(rel, rel) for rel in scan.unvouched]))


def load_for_edit(config: Config, names: list[str]) -> None:
    """Load the contracts' checker, and where code is highlighted Pygments and the lexers the code blocks of the
    files `names` (in the content folder) name."""
    from pipeline.runtime.contracts import load_checker

    load_checker()
    if highlights_code(config):
        from pipeline.markdown.code import load_highlighter

        load_highlighter(_texts(config, names))


def highlights_code(config: Config) -> bool:
    """Whether the wiki's Markdown highlights code blocks (its `code` extension is on)."""
    markdown = markdown_setting(config.markdown, config.links)
    return any(extension.name == "code" for extension, _ in enabled_extensions(markdown))


def _texts(config: Config, names: list[str]) -> list[str]:
    """The text of each file that can be read as capture reads it (a file that cannot is left to capture to report)."""
    folder = os.path.join(config.content_dir, "")
    real_root = os.path.realpath(folder)
    texts = []
    for name in names:
        try:
            texts.append(read_regular(folder + name, real_root).decode("utf-8", "replace"))
        except OSError:  # gone, or not a regular file inside the folder (Skipped)
            continue
    return texts
