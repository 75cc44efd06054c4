"""Rendering pages in several processes: templating is the bulk of a cold render.

Children are forked after the model and the templates are loaded, so they
share them for free; each renders every Nth page and writes it through its
own copy of the writer, then sends back what it did, which the parent merges.
"""

from __future__ import annotations

import multiprocessing
import os
from typing import Callable

MIN_PAGES_PER_PROCESS = 400  # below this, forking costs more than it saves


def render_pages(job, planned: list, writer, tick: Callable[[int], None], workers: int) -> dict[str, str]:
    """Render `planned` pages into `writer` (a SiteWriter); return page file -> digest of its inputs."""
    workers = min(workers, len(planned) // MIN_PAGES_PER_PROCESS) if hasattr(os, "fork") else 1
    if workers <= 1:
        return _render_share(job, planned, writer, tick)
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    children = [
        context.Process(target=_child, args=(job, planned[number::workers], writer, results)) for number in range(1, workers)
    ]
    for child in children:
        child.start()
    keys = _render_share(job, planned[0::workers], writer, tick)
    for _ in children:
        puts, child_keys = results.get()
        for rel, changed in puts:
            writer.record(rel, changed)
        keys.update(child_keys)
        tick(len(puts))
    for child in children:
        child.join()
        if child.exitcode != 0:
            raise RuntimeError(f"a render process failed (exit code {child.exitcode})")
    return keys


def _render_share(job, pages: list, writer, tick) -> dict[str, str]:
    keys = {}
    for page in pages:
        rel, data, key = job.render(page)
        writer.put(rel, data)
        if key is not None:
            keys[rel] = key
        tick(1)
    return keys


def _child(job, pages: list, writer, results) -> None:
    before = len(writer.files)
    keys = _render_share(job, pages, writer, lambda n: None)
    written = set(writer.report.written)
    results.put(([(rel, rel in written) for rel in writer.files[before:]], keys))
