"""The preview's search index in the background: replaced whole when done, stopped by a newer build."""

from __future__ import annotations

import dataclasses
import sys
import threading

from pipeline.build import build
from pipeline.site import SEARCH_PENDING, search_pending
from pipeline.site import publish, search
from pipeline.site.search import BUNDLE, NEXT, OLD, BackgroundIndex, has_index
from tests.site.helpers import SITE, read

DEADLINE = 60.0  # seconds: a bound, never a wait
# An indexer that starts writing its bundle and never ends by itself (until it is stopped).
STALLED = "import os, select, sys; os.makedirs(sys.argv[1]); open(os.path.join(sys.argv[1], 'part'), 'w').close(); select.select([], [], [])"  # noqa: E501


def stalled(site, bundle):
    return [sys.executable, "-c", STALLED, str(bundle)]


def failing(site, bundle):
    return [sys.executable, "-c", "import sys; sys.exit('the index is broken')"]


def old_index(out_dir):
    (out_dir / BUNDLE).mkdir(parents=True)
    (out_dir / BUNDLE / "pagefind-ui.js").write_text("old")


def test_a_background_run_replaces_the_index_whole_when_it_is_done(make_wiki):
    config = make_wiki(SITE, search=False)
    build(config, site=True)
    old_index(config.out_dir)
    done = []
    search = BackgroundIndex()
    search.start(config.out_dir, done.append)
    search.wait()
    assert done == [None] and has_index(config.out_dir) and read(config.out_dir, "pagefind/pagefind-ui.js") != "old"
    assert '"en"' in read(config.out_dir, "pagefind/pagefind-entry.json")
    assert not (config.out_dir / NEXT).exists()
    fragment = next((config.out_dir / BUNDLE / "fragment").iterdir())
    search.start(config.out_dir, done.append)  # again: the fragments already made are kept, not written anew
    search.wait()
    assert done == [None, None] and (config.out_dir / BUNDLE / "fragment" / fragment.name).stat().st_ino == fragment.stat().st_ino


def test_a_stopped_run_leaves_the_old_index_and_calls_nothing(tmp_path):
    old_index(tmp_path)
    asked, done = threading.Event(), []

    def command(site, bundle):  # called just before the process starts, which `stop` then waits for
        asked.set()
        return stalled(site, bundle)

    search = BackgroundIndex(command=command)
    search.start(tmp_path, done.append)
    run = search._run
    assert asked.wait(DEADLINE) and search.running()
    search.stop()
    assert run.process.poll() is not None and not search.running() and done == []
    assert (tmp_path / BUNDLE / "pagefind-ui.js").read_text() == "old" and not (tmp_path / NEXT).exists()


def test_starting_again_stops_the_run_in_progress(tmp_path):
    search = BackgroundIndex(command=stalled)
    search.start(tmp_path, lambda warning: None)
    first = search._run
    search.start(tmp_path, lambda warning: None)
    assert first.stopped and not first.thread.is_alive() and search.running()  # the older run stopped, the newer runs
    search.stop()
    assert first.process is None or first.process.poll() is not None


def test_a_failed_run_warns_once_and_keeps_the_old_index(tmp_path):
    old_index(tmp_path)
    warned, done = [], []
    search = BackgroundIndex(warn=warned.append, command=failing)
    search.start(tmp_path, done.append)
    search.wait()
    assert warned == done == ["search index not built: the index is broken"]
    assert (tmp_path / BUNDLE / "pagefind-ui.js").read_text() == "old" and not (tmp_path / NEXT).exists()


def test_a_preview_build_returns_before_its_index_and_a_stopped_one_is_left_to_the_next_build(make_wiki, monkeypatch):
    config = dataclasses.replace(make_wiki(SITE, search=False), search=True)
    search = BackgroundIndex(command=stalled)
    report = build(config, site=True, search_later=search)
    assert report.site.indexing and not report.site.indexed and search.running()  # the build did not wait
    search.stop()
    assert search_pending(config)  # the stopped run indexed nothing
    indexed = []
    monkeypatch.setattr(publish, "index_site", lambda out_dir: indexed.append(out_dir))
    again = build(config, site=True)
    assert again.site.written == [] and indexed == [config.out_dir]  # no page changed, yet it indexes
    assert not (config.state_dir / SEARCH_PENDING).exists()


def test_what_a_killed_preview_left_beside_the_index_is_not_published(tmp_path, monkeypatch):
    for leftover in (NEXT, OLD):
        (tmp_path / leftover / "fragment").mkdir(parents=True)
        (tmp_path / leftover / "fragment" / "f.pf_fragment").write_text("a half-made index")
    monkeypatch.setattr(search, "pagefind", lambda site, bundle: [sys.executable, "-c", "pass"])
    assert search.index_site(tmp_path) is None
    assert not (tmp_path / NEXT).exists() and not (tmp_path / OLD).exists()
