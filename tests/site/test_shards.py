"""Search shards: a language's pages split by a hash of their file, each shard known by its pages' keys."""

from __future__ import annotations

import json

from pipeline.site import shards
from pipeline.site.shards import loader, shards_of

PAGES = [(f"p{n}/index.html", "en") for n in range(1200)] + [(f"es/p{n}/index.html", "es") for n in range(300)]
KEYS = {file: f"key-{file}" for file, _ in PAGES}


def test_a_language_has_a_power_of_two_of_shards_of_at_most_128_pages_every_page_in_one():
    made = shards_of(PAGES, KEYS)
    assert [(shard.lang, shard.number) for shard in made] == [("en", n) for n in range(16)] + [("es", n) for n in range(4)]
    assert sorted(file for shard in made for file in shard.files) == sorted(file for file, _ in PAGES)
    assert all(45 <= len(shard.files) <= 110 for shard in made if shard.lang == "en")  # 1,200 as the hash spreads them


def test_the_shards_are_made_again_only_when_a_language_s_pages_double():
    assert [shards.shard_count(n) for n in (1, 128, 129, 256, 257, 512, 513)] == [1, 1, 2, 2, 4, 4, 8]
    assert shards.shard_count(10**6) == shards.MAX_SHARDS


def test_a_changed_page_changes_its_shard_alone_and_an_added_page_changes_none_but_its_own():
    before = {shard.folder: shard for shard in shards_of(PAGES, KEYS)}
    after = {shard.folder: shard for shard in shards_of(PAGES, {**KEYS, "p7/index.html": "edited"})}
    changed = [folder for folder in before if before[folder].digest != after[folder].digest]
    assert changed == [next(folder for folder, shard in after.items() if "p7/index.html" in shard.files)]
    grown = {shard.folder: shard for shard in shards_of([*PAGES, ("new/index.html", "en")], KEYS)}
    assert sum(before[folder].files != grown[folder].files for folder in before) == 1


def test_a_page_stays_in_its_shard_from_build_to_build():
    first = {file: shard.folder for shard in shards_of(PAGES, KEYS) for file in shard.files}
    again = {file: shard.folder for shard in shards_of(list(reversed(PAGES)), {}) for file in shard.files}
    assert first == again


def test_a_big_language_has_at_most_max_shards(monkeypatch):
    monkeypatch.setattr(shards, "SHARD_PAGES", 10)
    assert len([shard for shard in shards_of(PAGES, KEYS) if shard.lang == "en"]) == shards.MAX_SHARDS


def test_a_language_that_is_no_plain_tag_gets_a_folder_named_by_its_digest():
    (shard,) = shards_of([("x/index.html", "../../etc")], {})
    assert shard.folder.startswith("x-") and "/" not in shard.folder[:-len("/0/")] and shard.folder.endswith("/0/")


def test_the_loader_lists_each_language_s_shard_folders():
    text = loader(shards_of(PAGES, KEYS))
    assert json.loads(text.split("= ", 1)[1].rstrip(";\n")) == {
        "en": [f"en/{n}/" for n in range(16)], "es": [f"es/{n}/" for n in range(4)]}
