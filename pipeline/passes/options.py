"""The options of wiki.yaml passes read through `wiki.options`: the wiki-wide ones and those each pass declares."""

from __future__ import annotations

from pipeline.config import Config
from pipeline.content.source import folders_are_languages
from pipeline.markdown.extensions import setting as markdown_setting
from pipeline.passes.contract import PassSpec
from pipeline.urls import normalize_base

# The options of wiki.yaml every pass and the site may read, besides those a pass declares (`Pass.wiki_options`).
WIKI_WIDE = ("languages", "default_language", "base_url")


def wiki_options(config: Config, specs: list[PassSpec], paths: list[str] | None = None) -> dict:
    """The options passes read (through `select`, so they are part of fingerprints): the wiki-wide ones and
    those the passes declare; `base_url` as the site is published under it (`docs` is `/docs/`); `markdown`
    as the resolved extension table's text (`markdown/extensions.py`); `language_folders` found from the
    articles' `paths` when wiki.yaml leaves it open."""
    names = sorted({*WIKI_WIDE, *(name for spec in specs for name in spec.wiki_options)})
    options = {**{name: getattr(config, name) for name in names}, "base_url": normalize_base(config.base_url),
               "markdown": markdown_setting(config.markdown, config.links)}  # fmt: skip
    if options.get("language_folders") is None and paths is not None:
        options["language_folders"] = folders_are_languages(paths, config.languages)
    return options
