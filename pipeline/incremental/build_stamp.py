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

The record is three files: the stamp and counts, read by every build; the
diagnostics a report lists by default (errors and warnings) with the count of
the info ones, read only by a build that is skipped; and the info diagnostics
(unlinked-mention suggestions: in a big wiki, megabytes of JSON), read only by
a skipped build asked to list them (`--info`). Each diagnostics file names the
stamp it belongs to, so they are never taken from different builds.
"""

from __future__ import annotations

import dataclasses
import hashlib
import heapq
from dataclasses import dataclass
from pathlib import Path

from pipeline.config import Config
from pipeline.diagnostics import Diagnostic
from pipeline.passes.contract import PassSpec
from pipeline.runtime import jsonio
from pipeline.runtime.records import made


@dataclass(frozen=True)
class LastBuild:
    stamp: str
    jobs: int  # jobs of the current captures, all reused when the build is skipped
    diagnostics: list[Diagnostic]  # the info ones too, unless read without (`load_last`)
    site: dict  # pages, redirects and files of the site it wrote ({} for `check`)
    unlisted_info: int = 0  # info diagnostics left out of `diagnostics`


def stamp_of(
    capture_ids: list[int], specs: list[PassSpec], options: dict, sources: dict, site: dict, code: str
) -> str:
    """`code`: the digest of the package's source, so that a build after an upgrade is never skipped."""
    material = {
        "code": code,
        "captures": capture_ids,
        "passes": [(spec.name, spec.version, spec.contract_version, spec.module, _settings(spec)) for spec in specs],
        "options": options,
        "sources": sources,
        "site": site,
    }
    return hashlib.sha256(jsonio.dumps(material, sort_keys=True).encode()).hexdigest()


def _settings(spec: PassSpec) -> dict | None:
    return None if spec.settings is None else dataclasses.asdict(spec.settings)


def _path(config: Config, kind: str) -> Path:
    return config.state_dir / f"last-{kind}.json"


def diagnostics_path(config: Config, kind: str) -> Path:
    return config.state_dir / f"last-{kind}-diagnostics.json"


def load_last(config: Config, kind: str, stamp: str, info: bool = True) -> LastBuild | None:
    """The last complete build of `kind`, when its stamp is `stamp` (else None, its diagnostics unread);
    without `info`, its info diagnostics are counted, not listed."""
    try:
        record = jsonio.loads(_path(config, kind).read_bytes())
        if record["stamp"] != stamp:
            return None
        path = diagnostics_path(config, kind)
        kept = jsonio.loads(path.read_bytes())
        listed = kept["rows"] if kept["stamp"] == stamp else None
        if info and listed is not None:  # both lists are sorted: merged, they are the build's list
            kept_info = jsonio.loads(_info_path(path).read_bytes())
            listed = list(heapq.merge(listed, kept_info["rows"])) if kept_info["stamp"] == stamp else None
        if listed is None or set(map(len, listed)) - {len(Diagnostic._fields)}:  # another build's, another version's
            return None
        return LastBuild(stamp, record["jobs"], list(made(Diagnostic, listed)), record["site"], 0 if info else kept["info"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def forget_last(config: Config, kind: str) -> None:
    """Forget the last build of `kind`: the next build does everything (until this one is recorded)."""
    _path(config, kind).unlink(missing_ok=True)


def save_diagnostics(path: Path, stamp: str, diagnostics: list[Diagnostic]) -> None:
    """Keep the diagnostics (sorted, as `diagnostics.listed` gives them) of the build stamped `stamp` at `path`
    (`diagnostics_path`), the info ones beside it: read only once `save_last` has recorded that build."""
    listed = [tuple(row) for row in diagnostics if row.severity != "info"]
    info = [tuple(row) for row in diagnostics if row.severity == "info"]
    jsonio.save(_info_path(path), {"stamp": stamp, "rows": info})
    jsonio.save(path, {"stamp": stamp, "rows": listed, "info": len(info)})


def _info_path(path: Path) -> Path:
    return path.with_name(path.name.replace("-diagnostics.json", "-info.json"))


def save_last(config: Config, kind: str, stamp: str, jobs: int, site: dict) -> None:
    """Record a complete build of `kind`, its diagnostics kept first (`save_diagnostics`)."""
    jsonio.save(_path(config, kind), {"stamp": stamp, "jobs": jobs, "site": site})
