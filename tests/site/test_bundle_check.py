"""A bundle Pagefind did not write whole (it exits 0 on a full disk) is not taken, not recorded, and made
again by the next build; a failed run warns in one line; the pages never load a search file that is missing."""

from __future__ import annotations

import dataclasses
import gzip
import re
import subprocess
import sys

import pytest

from pipeline import cli
from pipeline.build import build
from pipeline.site import BUNDLE, SEARCH_PENDING, search
from pipeline.site.bundle_check import bundle_problem
from pipeline.site.search import BackgroundIndex, index_site
from pipeline.site.shards import RECORD
from tests.conftest import write_files
from tests.runtime.test_build_lock import probe
from tests.site.test_search import FAKE, listing, one_shard, searching, stalled


def disk_full(site, bundle):
    return [sys.executable, FAKE, str(site), str(bundle), "disk-full"]


def panicking(site, bundle):
    message = "thread 'main' panicked at src/lib.rs:1:1:\nlanguage tag too long\nnote: run with `RUST_BACKTRACE=1`\n"
    return [sys.executable, "-c", f"import sys; sys.stderr.write({message!r}); sys.exit(101)"]


def whole_bundle(tmp_path, pages=("a/index.html", "b/index.html")):
    write_files(tmp_path / "site", {page: "<html></html>" for page in pages})
    subprocess.run([sys.executable, FAKE, str(tmp_path / "site"), str(tmp_path / "bundle")], check=True)
    return tmp_path / "bundle"


def test_a_whole_bundle_passes(tmp_path):
    assert bundle_problem(whole_bundle(tmp_path), 2, "Indexed 2 pages") is None


@pytest.mark.parametrize(
    "damage, problem",
    [
        (lambda b: (b / "pagefind-entry.json").write_bytes(b""), "pagefind-entry.json: empty"),
        (lambda b: (b / "pagefind.js").write_bytes(b"window.fakePagefind = {sea"), "pagefind.js: cut short"),
        (lambda b: (b / "pagefind-entry.json").unlink(), "pagefind-entry.json: missing"),
        (lambda b: (b / "pagefind-entry.json").write_text("{not json"), "pagefind-entry.json: missing or unreadable"),
        (lambda b: next((b / "fragment").iterdir()).unlink(), "a fragment of a page it counts is missing"),
        (lambda b: _cut(next((b / "fragment").iterdir())), "cut short"),
    ],
)  # fmt: skip
def test_a_bundle_not_written_whole_is_found_out(tmp_path, damage, problem):
    bundle = whole_bundle(tmp_path)
    damage(bundle)
    assert problem in bundle_problem(bundle, 2)


def test_a_bundle_counting_other_pages_than_pagefind_said_or_than_it_was_given_is_found_out(tmp_path):
    bundle = whole_bundle(tmp_path)
    assert "counts 2 pages of the 2 given, Pagefind said 3" in bundle_problem(bundle, 2, "Total:\n  Indexed 3 pages")
    assert "counts 2 pages of the 1 given" in bundle_problem(bundle, 1)


def _cut(path):
    data = gzip.compress(b"x" * 1000)
    path.write_bytes(data[: len(data) // 2])


def test_a_bundle_pagefind_cut_warns_is_not_recorded_and_the_last_bundle_stays(tmp_path, monkeypatch):
    indexing = one_shard(tmp_path / "site", tmp_path / "state")
    monkeypatch.setattr(search, "pagefind", listing)
    assert index_site(indexing) is None
    monkeypatch.setattr(search, "pagefind", disk_full)
    changed = dataclasses.replace(indexing, shards=[dataclasses.replace(indexing.shards[0], digest="d2")])  # an edit
    warning = index_site(changed)
    assert warning == ("search index not built: Pagefind's bundle of pagefind/en/0/ is not whole "
                       "(pagefind-entry.json: empty)")  # fmt: skip
    assert '"d1"' in (tmp_path / "state" / RECORD).read_text()  # the last bundle's digest: "d2" is not indexed
    assert (indexing.out_dir / BUNDLE / "en" / "0" / "pagefind-entry.json").stat().st_size > 0  # the last one's
    assert not (indexing.out_dir / BUNDLE / "en" / ".next-0").exists()


def test_the_next_build_makes_again_an_index_pagefind_wrote_nothing_of(make_wiki, monkeypatch):
    config = searching(make_wiki)
    monkeypatch.setattr(search, "pagefind", disk_full)
    report = build(config, site=True)
    assert not report.site.indexed and "is not whole (pagefind-entry.json: empty)" in report.site.warnings[0]
    assert (config.state_dir / SEARCH_PENDING).exists() and not (config.state_dir / RECORD).exists()
    _every_search_file_a_page_loads_is_there(config)
    monkeypatch.setattr(search, "pagefind", listing)
    again = build(config, site=True)  # nothing else changed: before, this build was skipped ("0 written")
    assert again.site.indexed and not again.process.skipped and not (config.state_dir / SEARCH_PENDING).exists()
    assert (config.out_dir / BUNDLE / "pagefind-ui.js").read_text() == "window.PagefindUI = function () {};\n"


def _every_search_file_a_page_loads_is_there(config):
    for page in ("alpha/index.html", "es/alpha/index.html", "index.html"):
        html = (config.out_dir / page).read_text()
        loaded = re.findall(r'(?:src|href)="/(pagefind/[^"]+)"', html)
        assert len(loaded) == 3 and all((config.out_dir / rel).is_file() for rel in loaded), loaded


def test_a_pagefind_panic_is_one_warning_line_with_its_message_and_fails_a_strict_build(tmp_path, monkeypatch, capsys):
    write_files(tmp_path / "content", {"a.md": "---\ntitle: A\n---\n\nBody.\n"})
    (tmp_path / "wiki.yaml").write_text("workers: 1\n")
    argv = ["build", "--config", str(tmp_path / "wiki.yaml"), "--content", str(tmp_path / "content"),
            "--state", str(tmp_path / "state"), "--out", str(tmp_path / "site")]  # fmt: skip
    monkeypatch.setattr(search, "pagefind", panicking)
    assert cli.main(argv) == 0  # a warning: the site is there
    warned = [line for line in capsys.readouterr().err.splitlines() if line.startswith("pipeline: warning")]
    assert warned == ["pipeline: warning: search index not built: language tag too long"]
    assert cli.main([*argv, "--strict"]) == 1  # the same build again (its index still pending), strict
    assert "search index not built" in capsys.readouterr().err


def test_a_background_index_holds_the_build_lock_until_it_ends(make_wiki, monkeypatch):
    config = searching(make_wiki)
    monkeypatch.setattr(search, "pagefind", stalled)
    search_later = BackgroundIndex()
    build(config, site=True, search_later=search_later)
    try:
        assert search_later.running() and probe(config.state_dir) == "held"  # no other build writes the site meanwhile
    finally:
        search_later.stop()
    assert probe(config.state_dir) == "free"
