"""Rendering pages in several processes: templating is the bulk of a cold render.

Each process renders every Nth page and writes it through its own copy of
the writer (forked after the model and the templates are loaded, so they are
shared for free), then reports which files it wrote; this process merges
those reports into its writer.
"""

from __future__ import annotations

from typing import Callable

from pipeline.runtime.forks import fork_map
from pipeline.runtime.libc import give_back_memory

MIN_PAGES_PER_PROCESS = 400  # below this, forking costs more than it saves
CHUNK = 64  # even: runs start at an article page


def render_pages(job, planned: list, writer, tick: Callable[[int], None], workers: int) -> dict[str, str]:
    """Render `planned` pages into `writer` (a SiteWriter); return page file -> digest of its inputs."""
    shares = max(1, min(workers, len(planned) // MIN_PAGES_PER_PROCESS))
    if shares > 1:  # what making the model and planning the pages let go: the processes forked next start without it
        give_back_memory()

    def render_share(share: int):
        before, linked, hashed = len(writer.files), writer.report.linked, len(writer.hashes)
        keys = {}
        pages = share_of(planned, share, shares)
        for page in pages:
            rel, key = job.write(page, writer)
            if key is not None:
                keys[rel] = key
            if share == 0:
                tick(1)
        written = set(writer.report.written)
        # What a forked process adds to its writer, for this one's: the files it put, those it kept by their bytes
        # (after the ones its writer had: pages put by no other process), and those it linked back.
        puts = [(rel, rel in written) for rel in writer.files[before:]]
        return puts, keys, len(pages), list(writer.hashes.items())[hashed:], writer.report.linked - linked

    keys: dict[str, str] = {}
    for share, (puts, share_keys, pages, hashes, linked) in enumerate(fork_map(render_share, list(range(shares)))):
        if share > 0:  # the first share ran in this process: its files are in the writer already
            for rel, changed in puts:
                writer.record(rel, changed)
            writer.hashes.update(hashes)
            writer.report.linked += linked
            tick(pages)  # (not its files: a page may have put two)
        keys.update(share_keys)
    return keys


def share_of(planned: list, share: int, shares: int) -> list:
    """Runs of CHUNK pages, dealt round-robin: an article and its history page (planned one
    after the other) are rendered by the same process, which digests the article once."""
    return [page for start in range(share * CHUNK, len(planned), shares * CHUNK) for page in planned[start : start + CHUNK]]
