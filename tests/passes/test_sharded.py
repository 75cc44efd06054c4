"""A Sharded mapping: the dict it was made of, read a shard at a time once unpickled."""

import pickle

from pipeline.runtime.sharded import Overlay, Sharded

WORDS = {f"key-{number}": [number, f"value {number}"] for number in range(500)}


def _kept(mapping: dict, shards: int = 64) -> Sharded:
    return pickle.loads(pickle.dumps(Sharded.of(mapping, shards)))


def test_a_sharded_dict_reads_as_the_dict_it_was_made_of():
    kept = _kept(WORDS)
    assert len(kept) == len(WORDS) and kept == WORDS and dict(kept.items()) == WORDS
    assert sorted(kept) == sorted(WORDS) and set(kept.keys()) == WORDS.keys()
    assert kept["key-7"] == [7, "value 7"] and kept.get("key-8") == [8, "value 8"] and kept.get("nope", 0) == 0
    assert "key-9" in kept and "nope" not in kept and 9 not in kept  # keys are strings


def test_a_lookup_unpickles_only_the_shard_its_key_falls_in():
    kept = _kept(WORDS)
    assert kept._opened.count(None) == 64  # unpickled as bytes alone
    assert kept["key-1"] and "key-2" in kept and kept.get("nope") is None
    assert 1 <= 64 - kept._opened.count(None) <= 3
    assert dict(kept.items()) == WORDS and kept._opened.count(None) == 0  # read whole: every shard, once


def test_sharding_a_sharded_dict_keeps_it_and_an_empty_one_reads_as_empty():
    kept = _kept(WORDS)
    assert Sharded.of(kept) is kept and _kept(kept) == WORDS
    empty = _kept({})
    assert len(empty) == 0 and empty == {} and list(empty) == [] and "x" not in empty


def test_an_overlay_reads_as_its_base_changed_and_leaves_the_base_as_it_was():
    kept = _kept(WORDS)
    overlay = Overlay(kept)
    overlay["key-1"] = ["one"]
    overlay["new"] = ["new"]
    del overlay["key-2"]
    overlay["key-3"] = ["three"]
    del overlay["key-3"]  # set, then removed
    expected = {**{k: v for k, v in WORDS.items() if k not in ("key-2", "key-3")}, "key-1": ["one"], "new": ["new"]}
    assert dict(overlay.items()) == expected and len(overlay) == len(expected) and overlay == expected
    assert "key-2" not in overlay and "new" in overlay and overlay.get("key-3") is None
    assert overlay.touched() == {"key-1", "new", "key-2", "key-3"}
    assert kept == WORDS  # its base, as kept


def test_an_overlay_is_pickled_again_only_in_the_shards_its_changes_fall_in():
    kept = _kept(WORDS)
    overlay = Overlay(kept)
    overlay["key-1"], overlay["new"] = ["one"], ["new"]
    del overlay["key-2"]
    again = pickle.loads(pickle.dumps(Sharded.of(overlay)))
    assert again == dict(overlay.items()) and len(again) == len(WORDS)
    same = sum(a is b for a, b in zip(Sharded.of(overlay)._pickled, kept._pickled))
    assert 64 - 3 <= same < 64
    plain = Overlay(dict(WORDS))  # over a dict, as a build that made its index holds it: sharded whole
    plain["key-1"] = ["one"]
    assert Overlay(kept).sharded(str) == WORDS and plain.sharded(str) == {**{k: str(v) for k, v in WORDS.items()}, "key-1": "['one']"}
