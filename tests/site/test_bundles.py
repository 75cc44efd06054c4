"""A shard's bundle after edits: only the files its index reads (real Pagefind), and left whole when unsure."""

from __future__ import annotations

import gzip
import json
import shutil

import pytest

from pipeline.build import build
from pipeline.site.bundles import names, prune
from pipeline.site import BUNDLE
from tests.site.helpers import SITE
from tests.site.test_search import searching


def files_of(folder) -> list[str]:
    return sorted(str(path.relative_to(folder)) for path in folder.rglob("*") if path.is_file())


@pytest.mark.slow
def test_after_edits_a_bundle_holds_what_indexing_its_pages_afresh_makes(make_wiki):
    config = searching(make_wiki)
    build(config, site=True)
    bundle = config.out_dir / BUNDLE / "en" / "0"
    for number in range(3):  # each edit changes the page's fragment, some index chunks and the metadata
        body = SITE["beta.md"].replace("Body.", f"Body, edit {number}, with new words{number}.")
        (config.content_dir / "beta.md").write_text(body)
        assert build(config, site=True).site.indexed
    edited = files_of(bundle)
    assert len(list((bundle / "fragment").iterdir())) == 3  # alpha, beta and evil: one fragment a page
    shutil.rmtree(config.out_dir / BUNDLE)  # indexed again from nothing by the next build
    assert build(config, site=True).site.indexed
    assert edited == files_of(bundle)


def fake_bundle(folder, pages: int, fragments: list[str], chunks: list[str]):
    """A bundle whose metadata names `fragments` and `chunks` (digest names), holding one more of each."""
    (folder / "fragment").mkdir(parents=True)
    (folder / "index").mkdir()
    entry = {"version": "1", "languages": {"en": {"hash": "en_00aa", "wasm": "en", "page_count": pages}}}
    (folder / "pagefind-entry.json").write_text(json.dumps(entry))
    (folder / "pagefind.en_00aa.pf_meta").write_bytes(gzip.compress(b"pagefind_dcd" + b"\x82".join(
        name.encode() for name in fragments + chunks)))  # fmt: skip
    (folder / "pagefind.en_99ff.pf_meta").write_bytes(b"old")
    for name in [*fragments, "en_dead01"]:
        (folder / "fragment" / f"{name}.pf_fragment").write_text(name)
    for name in [*chunks, "en_dead02"]:
        (folder / "index" / f"{name}.pf_index").write_text(name)
    (folder / "pagefind.js").write_text("")


def test_pruning_deletes_the_fragments_chunks_and_metadata_the_index_does_not_name(tmp_path):
    fake_bundle(tmp_path, 2, ["en_01", "en_02"], ["en_a1"])
    assert names(tmp_path) == {"en_00aa", "en_01", "en_02", "en_a1"}
    assert prune(tmp_path) == 3
    assert files_of(tmp_path) == [
        "fragment/en_01.pf_fragment", "fragment/en_02.pf_fragment", "index/en_a1.pf_index",
        "pagefind-entry.json", "pagefind.en_00aa.pf_meta", "pagefind.js",
    ]  # fmt: skip


def test_a_bundle_whose_index_does_not_read_as_expected_is_left_whole(tmp_path):
    fake_bundle(tmp_path / "counted", 3, ["en_01", "en_02"], ["en_a1"])  # names two fragments of three pages
    fake_bundle(tmp_path / "unreadable", 2, ["en_01", "en_02"], ["en_a1"])
    (tmp_path / "unreadable" / "pagefind.en_00aa.pf_meta").write_bytes(b"not gzip")
    fake_bundle(tmp_path / "no entry", 2, ["en_01", "en_02"], ["en_a1"])
    (tmp_path / "no entry" / "pagefind-entry.json").unlink()
    for name in ("counted", "unreadable", "no entry"):
        before = files_of(tmp_path / name)
        assert names(tmp_path / name) is None and prune(tmp_path / name) == 0
        assert files_of(tmp_path / name) == before
