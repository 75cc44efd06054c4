"""The stamp of the last complete build: when nothing a build reads has changed, skip it.

A stamp hashes everything a build reads: the current captures, the passes
and their versions, the options passes read, what the facts are made from
(data files, git HEAD, the capture log: `facts.fact_sources`), and (for a
build that writes the site) the site settings and every theme file. If the
stamp equals the one saved by the last complete build of the same kind
(`build` or `check`) and that build left no failed job, its diagnostics are
reused and nothing is gathered, planned, run or rendered.
"""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass
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


def stamp_of(capture_ids: list[int], specs: list[PassSpec], options: dict, sources: dict, site: dict) -> str:
    material = {
        "captures": capture_ids,
        "passes": [(spec.name, spec.version, spec.contract_version, spec.module) for spec in specs],
        "options": options,
        "sources": sources,
        "site": site,
    }
    return hashlib.sha256(jsonio.dumps(material, sort_keys=True).encode()).hexdigest()


def _path(config: Config, kind: str) -> Path:
    return config.state_dir / f"last-{kind}.json"


def load_last(config: Config, kind: str) -> LastBuild | None:
    try:
        record = jsonio.loads(_path(config, kind).read_bytes())
        diagnostics = [Diagnostic(**d) for d in record["diagnostics"]]
        return LastBuild(record["stamp"], record["jobs"], diagnostics, record["site"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def save_last(config: Config, kind: str, last: LastBuild | None) -> None:
    """Record a complete build (or, with None, forget it: the next build does everything)."""
    path = _path(config, kind)
    if last is None:
        path.unlink(missing_ok=True)
        return
    record = {"stamp": last.stamp, "jobs": last.jobs, "diagnostics": [asdict(d) for d in last.diagnostics],
              "site": last.site}  # fmt: skip
    jsonio.save(path, record)
