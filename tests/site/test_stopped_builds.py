"""A build stopped anywhere leaves a state the next build finishes into the site a full build gives.

The tiny wiki is built, edited (a title others show, a body, a new
article), and built again but stopped, as Ctrl-C would stop it, before or
after one step of the build: capture, a round's plan, some jobs, a batch's
commit, the results, the page seeds, some pages, the manifest, the record
of the finished build. The title edit is
then undone, so the next build's inputs are partly the last finished
build's (where a stale record is taken for the truth), and the site it
writes must be what a build of the same state with every shortcut dropped
writes, with the same diagnostics, and no job may be left unfinished.
"""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from pipeline.build import build
from pipeline.store import open_store
from tests.conftest import folder_hashes
from tests.site.helpers import SITE, build_site, site, without_shortcuts  # noqa: F401 (the `site` fixture)

# (module, function or Class.method as the build calls it, the call at which it stops, before or after it)
STOPS = [
    ("pipeline.build", "capture_content", 1, "after"),
    ("pipeline.build", "plan_round", 1, "after"),
    ("pipeline.build", "plan_round", 2, "after"),
    ("pipeline.worker", "Worker.process", 3, "after"),
    ("pipeline.worker", "finish", 1, "before"),
    ("pipeline.worker", "finish", 1, "after"),
    ("pipeline.build", "load_results", 2, "after"),
    ("pipeline.site.publish", "save_seeds", 1, "after"),
    ("pipeline.site.writer", "SiteWriter.put", 4, "after"),
    ("pipeline.site.writer", "SiteWriter.finish", 1, "before"),
    ("pipeline.build", "save_last", 2, "before"),
]


@pytest.mark.parametrize("module, name, call, when", STOPS, ids=[f"{w}-{n}-{c}" for _, n, c, w in STOPS])
def test_a_build_stopped_anywhere_is_finished_by_the_next(site, monkeypatch, tmp_path, module, name, call, when):
    config, _ = site
    alpha = config.content_dir / "alpha.md"
    alpha.write_text(SITE["alpha.md"].replace("title: Alpha", "title: Omega"), encoding="utf-8")
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    (config.content_dir / "gamma.md").write_text("---\ntitle: Gamma\n---\n\nSee [[alpha]].\n", encoding="utf-8")
    with monkeypatch.context() as patch:
        _stop(patch, module, name, call, when)
        with pytest.raises(KeyboardInterrupt):
            build_site(config)
    alpha.write_text(SITE["alpha.md"], encoding="utf-8")
    finished = build_site(config)
    full_config = dataclasses.replace(without_shortcuts(config, tmp_path / "full"), search=False)  # as build_site
    full = build(full_config, workers=1, site=True, reuse=False)
    assert full.process.created_jobs == [] and finished.process.failures == []
    statuses = {row[0] for row in open_store(config.state_db).execute("SELECT status FROM processing_jobs")}
    assert statuses == {"done"}  # no job left to a worker that stopped: every page has all its results
    assert sorted(map(repr, finished.process.diagnostics)) == sorted(map(repr, full.process.diagnostics))
    assert folder_hashes(config.out_dir) == folder_hashes(full_config.out_dir)


def _stop(patch, module: str, name: str, call: int, when: str) -> None:
    """Make the `call`-th call of `module.name` raise KeyboardInterrupt, `before` it runs or `after`."""
    owner, _, attribute = name.rpartition(".")
    target = importlib.import_module(module)
    target = getattr(target, owner) if owner else target
    real, calls = getattr(target, attribute), []

    def stopping(*args, **kwargs):
        calls.append(1)
        if when == "before" and len(calls) == call:
            raise KeyboardInterrupt
        result = real(*args, **kwargs)
        if when == "after" and len(calls) == call:
            raise KeyboardInterrupt
        return result

    patch.setattr(target, attribute, stopping)
