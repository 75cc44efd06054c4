"""A build stopped anywhere leaves a state the next build finishes into the site a full build gives.

The tiny wiki is built, edited (a title others show, a body, a new article),
and built again but stopped, before or after one step of the build: capture
(and inside its transaction), a round's plan (and inside its transaction),
some jobs, a batch's edit events, a batch's commit, the results, the page
summaries, some pages, the manifest, the record of the finished build. The title
edit is then undone, so the next build's inputs are partly the last finished
build's (where a stale record is taken for the truth), and the site it
writes must be what a build of the same state with every shortcut dropped
writes, with the same diagnostics, and no job may be left unfinished. A
command line is stopped by Ctrl-C; the preview, which keeps what it read
from build to build (its `BuildCache`), by an error it survives.
"""

from __future__ import annotations

import dataclasses
import importlib

import pytest

from pipeline.build import build
from pipeline.incremental.build_cache import BuildCache
from pipeline.storage.store import open_store
from tests.conftest import folder_hashes
from tests.site.helpers import SITE, site, without_shortcuts  # noqa: F401 (the `site` fixture)

# (module, function or Class.method as the build calls it, the call at which it stops, before or after it)
STOPS = [
    ("pipeline.content.capture", "_file_capture", 2, "after"),  # inside capture's transaction
    ("pipeline.build", "capture_content", 1, "after"),
    ("pipeline.jobs.rounds", "plan_round", 1, "after"),
    ("pipeline.jobs.plan", "_Reused.save", 1, "after"),  # inside the plan's transaction, which is rolled back
    ("pipeline.jobs.rounds", "plan_round", 2, "after"),
    ("pipeline.jobs.worker", "Worker.process", 3, "after"),
    ("pipeline.jobs.worker", "enqueue_all", 1, "after"),  # a batch's edit events sent, its jobs not yet done
    ("pipeline.jobs.worker", "finish", 1, "before"),
    ("pipeline.jobs.worker", "finish", 1, "after"),
    ("pipeline.jobs.rounds", "load_results", 2, "after"),
    ("pipeline.site.publish", "save_summaries", 1, "after"),
    ("pipeline.site.writer", "SiteWriter.put", 4, "after"),
    ("pipeline.site.writer", "SiteWriter.finish", 1, "before"),
    ("pipeline.build", "save_last", 1, "before"),
]


@pytest.mark.parametrize("kept", [False, True], ids=["command-line", "preview"])
@pytest.mark.parametrize("module, name, call, when", STOPS, ids=[f"{w}-{n}-{c}" for _, n, c, w in STOPS])
def test_a_build_stopped_anywhere_is_finished_by_the_next(site, monkeypatch, tmp_path, module, name, call, when, kept):
    config, _ = site
    config = dataclasses.replace(config, search=False)
    # The preview keeps what it read from build to build, and goes on when one fails (here: an error, not Ctrl-C).
    build_cache, stop = (BuildCache(), OSError) if kept else (None, KeyboardInterrupt)
    build(config, workers=1, site=True, build_cache=build_cache)
    alpha = config.content_dir / "alpha.md"
    alpha.write_text(SITE["alpha.md"].replace("title: Alpha", "title: Omega"), encoding="utf-8")
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    gamma = "---\ntitle: Gamma\n---\n\nSee [[alpha]], and Beta.\n"  # Beta: a mention, an edit event
    (config.content_dir / "gamma.md").write_text(gamma, encoding="utf-8")
    with monkeypatch.context() as patch:
        _stop(patch, module, name, call, when, stop)
        with pytest.raises(stop):
            build(config, workers=1, site=True, build_cache=build_cache)
    alpha.write_text(SITE["alpha.md"], encoding="utf-8")
    finished = build(config, workers=1, site=True, build_cache=build_cache)
    full_config = without_shortcuts(config, tmp_path / "full")
    full = build(full_config, workers=1, site=True, reuse=False)
    assert full.process.created_passes == [] and finished.process.failures == []
    statuses = {row[0] for row in open_store(config.state_db).execute("SELECT status FROM processing_jobs")}
    assert statuses == {"done"}  # no job left to a worker that stopped: every page has all its results
    assert sorted(map(repr, finished.process.diagnostics)) == sorted(map(repr, full.process.diagnostics))
    assert folder_hashes(config.out_dir) == folder_hashes(full_config.out_dir)


def _stop(patch, module: str, name: str, call: int, when: str, stop: type[BaseException]) -> None:
    """Make the `call`-th call of `module.name` raise `stop`, `before` it runs or `after`."""
    owner, _, attribute = name.rpartition(".")
    target = importlib.import_module(module)
    target = getattr(target, owner) if owner else target
    real, calls = getattr(target, attribute), []

    def stopping(*args, **kwargs):
        calls.append(1)
        if when == "before" and len(calls) == call:
            raise stop("stopped here by the test")
        result = real(*args, **kwargs)
        if when == "after" and len(calls) == call:
            raise stop("stopped here by the test")
        return result

    patch.setattr(target, attribute, stopping)
