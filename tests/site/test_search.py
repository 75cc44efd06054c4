"""The search index: Pagefind over the article pages in shards, each replaced whole when indexed again.

Real Pagefind runs where the indexing itself is the point; elsewhere a stand-in
indexer (a Python one-liner, or `fake_pagefind.py`) fails, stalls until stopped, or counts its runs.
"""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import sys
import threading
from pathlib import Path

from pipeline.build import build
from pipeline.site import BUNDLE, SEARCH_PENDING, has_index, search, search_pending, shards
from pipeline.site.search import BackgroundIndex, Indexing, index_site
from pipeline.site.shards import RECORD, Shard
from pipeline.site.writer import mark
from tests.site.helpers import SITE, read

DEADLINE = 60.0  # seconds: a bound, never a wait
# An indexer that starts writing its bundle and never ends by itself (until it is stopped).
STALLED = "import os, select, sys; os.makedirs(sys.argv[1]); open(os.path.join(sys.argv[1], 'part'), 'w').close(); select.select([], [], [])"  # noqa: E501
# An indexer that makes a whole bundle, holding the list of the pages it was given (`pages.txt`).
FAKE = str(Path(__file__).with_name("fake_pagefind.py"))


def stalled(site, bundle):
    return [sys.executable, "-c", STALLED, str(bundle)]


def failing(site, bundle):
    return [sys.executable, "-c", "import sys; sys.exit('the index is broken')"]


def listing(site, bundle):
    return [sys.executable, FAKE, str(site), str(bundle)]


def searching(make_wiki, files=SITE):
    config = dataclasses.replace(make_wiki(files, search=False), search=True)
    return config


def old_bundle(out_dir, folder="en/0/"):
    (out_dir / BUNDLE / folder).mkdir(parents=True)
    (out_dir / BUNDLE / folder / "pagefind.js").write_text("old")


def one_shard(out_dir, state_dir, files=("a/index.html",)):
    for rel in files:
        (out_dir / rel).parent.mkdir(parents=True, exist_ok=True)
        (out_dir / rel).write_text("<html><body data-pagefind-body>A</body></html>")
    return Indexing(out_dir, state_dir, [Shard("en", 0, tuple(files), "d1")])


def test_a_build_indexes_each_language_into_its_shards_with_the_loader_and_ui_beside_them(make_wiki):
    config = searching(make_wiki)
    report = build(config, site=True)
    assert report.site.indexed and has_index(config.out_dir) and not search_pending(config)
    loader = read(config.out_dir, "pagefind/shards.js")
    assert json.loads(loader.split("= ", 1)[1].rstrip(";\n")) == {"en": ["en/0/"], "es": ["es/0/"]}
    assert '"en"' in read(config.out_dir, "pagefind/en/0/pagefind-entry.json")
    assert '"es"' in read(config.out_dir, "pagefind/es/0/pagefind-entry.json")
    assert "pagefind/shards.js" in read(config.out_dir, "alpha/index.html")
    assert sorted(json.loads((config.state_dir / RECORD).read_text())) == ["en/0/", "es/0/"]


def test_an_edit_indexes_again_only_the_shard_of_its_page(make_wiki, monkeypatch):
    monkeypatch.setattr(shards, "SHARD_PAGES", 1)  # one page a shard: three English shards, one Spanish
    config = searching(make_wiki)
    monkeypatch.setattr(search, "pagefind", listing)
    build(config, site=True)
    ran = []
    monkeypatch.setattr(search, "pagefind", lambda site, bundle: ran.append(bundle.name) or listing(site, bundle))
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Another body."))
    report = build(config, site=True)
    assert report.site.indexed and len(ran) == 1  # one shard of four
    beta = next(shard.folder for shard in _shards(config) if "beta/index.html" in shard.files)
    assert ran == [".next-" + beta.split("/")[1]]  # the shard of the page that changed


def test_a_build_with_nothing_else_to_do_indexes_again_a_search_folder_that_is_gone(make_wiki, monkeypatch):
    config = searching(make_wiki)
    monkeypatch.setattr(search, "pagefind", listing)
    build(config, site=True)
    shutil.rmtree(config.out_dir / BUNDLE)
    report = build(config, site=True)
    assert report.site.indexed and has_index(config.out_dir) and report.site.written == []


def test_a_build_indexes_again_a_search_ui_that_is_gone(make_wiki, monkeypatch):
    config = searching(make_wiki)
    monkeypatch.setattr(search, "pagefind", listing)
    build(config, site=True)
    (config.out_dir / BUNDLE / "pagefind-ui.js").unlink()
    assert build(config, site=True).site.indexed and has_index(config.out_dir)


def test_a_site_without_article_pages_gets_a_loader_of_no_shards_and_its_next_build_is_skipped(make_wiki):
    config = dataclasses.replace(make_wiki({"redirects.yaml": "redirects: []\n"}), search=True)
    assert build(config, site=True).site.indexed
    assert read(config.out_dir, "pagefind/shards.js").endswith("window.pipelineSearchShards = {};\n")
    assert build(config, site=True).process.skipped


def test_what_no_shard_is_goes_from_the_search_folder(make_wiki, monkeypatch):
    config = searching(make_wiki)
    monkeypatch.setattr(search, "pagefind", listing)
    mark(config.out_dir)  # a folder pipeline wrote: an earlier version left these
    (config.out_dir / BUNDLE / "fragment").mkdir(parents=True)  # the one-bundle layout of earlier versions
    (config.out_dir / BUNDLE / "pagefind-entry.json").write_text("{}")
    old_bundle(config.out_dir, "en/7/")  # a shard of more pages than there are now
    (config.out_dir / ".pagefind-next").mkdir()  # what a stopped one-bundle run left in the output folder
    build(config, site=True)
    left = sorted(p.name for p in (config.out_dir / BUNDLE).iterdir())
    assert left == ["en", "es", "pagefind-ui.css", "pagefind-ui.js", "shards.js"]
    assert [p.name for p in (config.out_dir / BUNDLE / "en").iterdir()] == ["0"]
    assert not (config.out_dir / ".pagefind-next").exists()


def test_a_failed_shard_warns_keeps_its_old_bundle_and_is_indexed_by_the_next_build(tmp_path, monkeypatch):
    indexing = one_shard(tmp_path / "site", tmp_path / "state")
    monkeypatch.setattr(search, "pagefind", failing)
    old_bundle(indexing.out_dir)
    assert index_site(indexing) == "search index not built: the index is broken"
    assert read(indexing.out_dir, "pagefind/en/0/pagefind.js") == "old" and not (tmp_path / "state" / RECORD).exists()
    monkeypatch.setattr(search, "pagefind", listing)
    assert index_site(indexing) is None
    assert read(indexing.out_dir, "pagefind/en/0/pages.txt") == "a/index.html"
    assert [p.name for p in (indexing.out_dir / BUNDLE / "en").iterdir()] == ["0"]  # nothing left beside it


def test_a_stopped_run_leaves_the_old_bundle_and_calls_nothing(tmp_path, monkeypatch):
    indexing = one_shard(tmp_path / "site", tmp_path / "state")
    old_bundle(indexing.out_dir)
    asked, done = threading.Event(), []

    def command(site, bundle):  # called just before the process starts, which `stop` then waits for
        asked.set()
        return stalled(site, bundle)

    monkeypatch.setattr(search, "pagefind", command)
    search_later = BackgroundIndex()
    search_later.start(indexing, done.append)
    run = search_later._run
    assert asked.wait(DEADLINE) and search_later.running()
    search_later.stop()
    assert run.process.poll() is not None and not search_later.running() and done == []
    assert read(indexing.out_dir, "pagefind/en/0/pagefind.js") == "old"
    assert not (indexing.out_dir / BUNDLE / "en" / ".next-0").exists()


def test_starting_again_stops_the_run_in_progress(tmp_path, monkeypatch):
    indexing = one_shard(tmp_path / "site", tmp_path / "state")
    monkeypatch.setattr(search, "pagefind", stalled)
    search_later = BackgroundIndex()
    search_later.start(indexing, lambda warning: None)
    first = search_later._run
    search_later.start(indexing, lambda warning: None)
    assert first.stopped and not first.thread.is_alive() and search_later.running()  # the older run stopped
    search_later.stop()
    assert first.process is None or first.process.poll() is not None


def test_a_failed_background_run_warns_once(tmp_path, monkeypatch):
    warned, done, indexed = [], [], []
    monkeypatch.setattr(search, "pagefind", failing)
    search_later = BackgroundIndex(warn=warned.append, indexed=lambda: indexed.append(True))
    search_later.start(one_shard(tmp_path / "site", tmp_path / "state"), done.append)
    search_later.wait()
    assert warned == done == ["search index not built: the index is broken"] and indexed == []


def test_a_background_run_that_put_its_index_in_place_says_so_once(tmp_path, monkeypatch):
    indexed = []
    monkeypatch.setattr(search, "index_site", lambda indexing, run: None)  # it indexed
    search_later = BackgroundIndex(indexed=lambda: indexed.append(True))
    search_later.start(one_shard(tmp_path / "site", tmp_path / "state"), lambda warning: None)
    search_later.wait()
    assert indexed == [True]


def test_a_preview_build_returns_before_its_index_and_a_stopped_one_is_left_to_the_next_build(make_wiki, monkeypatch):
    config = searching(make_wiki)
    monkeypatch.setattr(search, "pagefind", stalled)
    search_later = BackgroundIndex()
    report = build(config, site=True, search_later=search_later)
    assert report.site.indexing and not report.site.indexed and search_later.running()  # the build did not wait
    search_later.stop()
    assert search_pending(config)  # the stopped run indexed nothing
    indexed = []
    monkeypatch.setattr(search, "index_site", lambda indexing, **options: indexed.append(indexing.out_dir))
    again = build(config, site=True)
    assert again.site.written == [] and indexed == [config.out_dir]  # no page changed, yet it indexes
    assert not (config.state_dir / SEARCH_PENDING).exists()


# Meets its twin through a named pipe: shard 0's run opens it to read, shard 1's to write, and each
# open waits for the other, so both end only if they run at the same time (else the alarm ends them).
MEETING = (
    "import os, signal, sys; signal.alarm(int(sys.argv[3])); out = sys.argv[2]; "
    "pipe = open(sys.argv[1], 'r' if out.endswith('0') else 'w'); pipe.close(); signal.alarm(0); "
    "os.execv(sys.executable, [sys.executable, *sys.argv[4:], out])"
)


def test_shards_are_indexed_side_by_side_by_as_many_runs_as_workers(tmp_path, monkeypatch):
    pipe = tmp_path / "meeting"
    os.mkfifo(pipe)
    indexing = one_shard(tmp_path / "site", tmp_path / "state", files=("a/index.html", "b/index.html"))
    twins = [Shard("en", number, (file,), "d") for number, file in enumerate(indexing.shards[0].files)]
    meeting = [sys.executable, "-c", MEETING, str(pipe)]
    monkeypatch.setattr(
        search, "pagefind", lambda site, bundle: [*meeting, str(bundle), str(int(DEADLINE)), FAKE, str(site)]
    )  # fmt: skip
    assert index_site(dataclasses.replace(indexing, shards=twins), workers=2) is None
    assert sorted(p.name for p in (indexing.out_dir / BUNDLE / "en").iterdir()) == ["0", "1"]


def test_without_the_binary_package_pagefind_runs_through_python_which_says_what_is_missing(monkeypatch):
    search._pagefind_binary.cache_clear()
    monkeypatch.setitem(sys.modules, "pagefind_bin", None)  # as if not installed: importing it fails
    try:
        assert search._pagefind_binary() == (sys.executable, "-m", "pagefind")
        assert "pagefind[bin]" in search.verdict(1, "", "/usr/bin/python: No module named pagefind")
    finally:
        search._pagefind_binary.cache_clear()


def test_a_page_whose_body_is_the_same_is_not_indexed_again_for_what_else_it_shows(make_wiki, monkeypatch):
    monkeypatch.setattr(shards, "SHARD_PAGES", 1)
    config = searching(make_wiki)
    monkeypatch.setattr(search, "pagefind", listing)
    build(config, site=True)
    ran = []
    monkeypatch.setattr(search, "pagefind", lambda site, bundle: ran.append(bundle.name) or listing(site, bundle))
    # evil.md links to beta: beta's "What links here" shows it, beta's body is the same
    (config.content_dir / "evil.md").write_text(SITE["evil.md"] + "\nSee [[beta]].\n")
    report = build(config, site=True)
    assert "beta/index.html" in report.site.written
    evil = next(shard.folder for shard in _shards(config) if "evil/index.html" in shard.files)
    assert ran == [".next-" + evil.split("/")[1]]  # evil's shard alone


def _shards(config):
    text = read(config.out_dir, "pagefind/shards.js")
    folders = json.loads(text.split("= ", 1)[1].rstrip(";\n"))["en"]
    listed = {folder: read(config.out_dir, f"pagefind/{folder}pages.txt").split("\n") for folder in folders}
    return [Shard("en", int(folder.split("/")[1]), tuple(files), "") for folder, files in listed.items()]


def test_an_emptied_output_folder_gets_its_search_bundles_back_from_the_state_folder(make_wiki, monkeypatch):
    monkeypatch.setattr(shards, "SHARD_PAGES", 1)  # one page a shard: three English shards, one Spanish
    config = searching(make_wiki)
    monkeypatch.setattr(search, "pagefind", listing)
    build(config, site=True)
    before = {path.relative_to(config.out_dir): path.read_bytes() for path in config.out_dir.rglob("*") if path.is_file()}
    ran = []
    monkeypatch.setattr(search, "pagefind", lambda site, bundle: ran.append(bundle.name) or listing(site, bundle))
    shutil.rmtree(config.out_dir)  # a CI job that restores the state folder only
    report = build(config, site=True)
    after = {path.relative_to(config.out_dir): path.read_bytes() for path in config.out_dir.rglob("*") if path.is_file()}
    assert ran == [] and report.site.indexed and after == before
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Another body."))
    shutil.rmtree(config.out_dir)
    build(config, site=True)
    assert len(ran) == 1 and has_index(config.out_dir)  # the edited page's shard only; the others put back
    kept = {path.name for path in (config.state_dir / search.KEPT).iterdir()}
    assert kept == set(shards.indexed(config.state_dir).values())  # one a shard: the replaced one gone
