"""The stamp of the last complete build: when nothing a build reads has changed, skip it.

A stamp hashes everything a build reads: the current captures, the passes
and their versions, the options passes read, what the facts are made from
(data files, git HEAD, the capture log: `facts.fact_sources`), the source of
the package itself (an upgrade may write other pages from the same results),
and (for a build that writes the site) the site settings and every theme
file. If the
stamp equals the one saved by the last complete build of the same kind
(`build` or `check`) and that build left no failed job, its diagnostics are
reused and nothing is gathered, planned, run or rendered.

The record is two files: the stamp and counts, read by every build, and the
diagnostics, read only by a build that is skipped (at 10,000 articles with
their unlinked-mention suggestions, 35,000 diagnostics: 7 MB of JSON that an
edit build read and wrote for nothing). The diagnostics file names the
stamp it belongs to, so the two are never taken from different builds.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path

from pipeline import jsonio
from pipeline.config import Config
from pipeline.diagnostics import Diagnostic
from pipeline.passes.base import PassSpec


@dataclass(frozen=True)
class LastBuild:
    stamp: str
    jobs: int  # jobs of the current captures, all reused when the build is skipped
    diagnostics: list[Diagnostic]
    site: dict  # pages, redirects and files of the site it wrote ({} for `check`)


def stamp_of(
    capture_ids: list[int], specs: list[PassSpec], options: dict, sources: dict, site: dict, code: str
) -> str:
    """`code`: the digest of the package's source, so that a build after an upgrade is never skipped."""
    material = {
        "code": code,
        "captures": capture_ids,
        "passes": [(spec.name, spec.version, spec.contract_version, spec.module) for spec in specs],
        "options": options,
        "sources": sources,
        "site": site,
    }
    return hashlib.sha256(jsonio.dumps(material, sort_keys=True).encode()).hexdigest()


def _path(config: Config, kind: str) -> Path:
    return config.state_dir / f"last-{kind}.json"


def _diagnostics_path(config: Config, kind: str) -> Path:
    return config.state_dir / f"last-{kind}-diagnostics.json"


def load_last(config: Config, kind: str, stamp: str) -> LastBuild | None:
    """The last complete build of `kind`, when its stamp is `stamp` (else None, its diagnostics unread)."""
    try:
        record = jsonio.loads(_path(config, kind).read_bytes())
        if record["stamp"] != stamp:
            return None
        kept = jsonio.loads(_diagnostics_path(config, kind).read_bytes())
        if kept["stamp"] != stamp:
            return None
        diagnostics = [Diagnostic(*row) for row in kept["rows"]]
        return LastBuild(stamp, record["jobs"], diagnostics, record["site"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_last(config: Config, kind: str, last: LastBuild | None) -> None:
    """Record a complete build (or, with None, forget it: the next build does everything)."""
    path = _path(config, kind)
    if last is None:
        path.unlink(missing_ok=True)
        return
    # The diagnostics first: until the stamp is written, no build reads them.
    rows = list(map(tuple, last.diagnostics))
    jsonio.save(_diagnostics_path(config, kind), {"stamp": last.stamp, "rows": rows})
    jsonio.save(path, {"stamp": last.stamp, "jobs": last.jobs, "site": last.site})
