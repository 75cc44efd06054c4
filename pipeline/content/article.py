"""The `Article` record: one capture as a pass sees it (capture builds it, passes and the site read it)."""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.content.source import ParsedSource


@dataclass(frozen=True)
class Article(ParsedSource):
    """One capture as a pass sees it: what `parse_source` found, plus where it came from.

    Preconditions: `path` is relative to the content folder and '/'-separated;
    `text` is None exactly when the bytes did not decode (`decode_error` says
    why) and `body` is then ''; `frontmatter` is None when the file has none or
    it did not parse (`frontmatter_error` and its line say why); `body_line`
    is the 1-based line of the file where `body` starts.
    """

    capture_id: int
    path: str
    sha256: str
    size: int
