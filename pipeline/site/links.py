"""What the site reads of each article's wikilinks result: the targets of its blue and red links.

The model needs them for every article (backlinks, wanted pages), yet decoding
all 13,000 wikilinks outputs of a 10k wiki took 0.28 s of every build. A
result never changes, so its targets are kept in the store by job
(`link_targets`) and a build decodes only the results of new jobs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from pipeline import jsonio
from pipeline.site.model import LinkTargets
from pipeline.store import open_store, write


def link_targets(outputs: Mapping[int, dict]) -> dict[int, LinkTargets]:
    """capture id -> the targets of its wikilinks result; for stored results, kept by job."""
    encoded = getattr(outputs, "encoded", None)
    if encoded is None:  # plain results, as in tests
        return {capture_id: LinkTargets.of(output) for capture_id, output in outputs.items()}
    conn = open_store(Path(outputs.db))
    try:
        kept = _kept(conn, [job for job, _ in encoded.values()])
        new = {job: LinkTargets.of(outputs[capture_id]) for capture_id, (job, _) in encoded.items() if job not in kept}
        if new:
            with write(conn):
                conn.executemany("INSERT OR IGNORE INTO link_targets VALUES (?, ?)",
                                 [(job, jsonio.dumps([t.linked, t.broken])) for job, t in new.items()])  # fmt: skip
    finally:
        conn.close()
    found = {**kept, **new}
    return {capture_id: found[job] for capture_id, (job, _) in encoded.items()}


def _kept(conn, jobs: list[int]) -> dict[int, LinkTargets]:
    kept = {}
    for start in range(0, len(jobs), 500):
        chunk = jobs[start : start + 500]
        rows = conn.execute(f"SELECT job_id, targets FROM link_targets WHERE job_id IN ({','.join('?' * len(chunk))})", chunk)
        for job, targets in rows:
            linked, broken = jsonio.loads(targets)
            kept[job] = LinkTargets(tuple(linked), tuple(broken))
    return kept
