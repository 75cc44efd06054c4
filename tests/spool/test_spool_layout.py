"""Spool directories and event file names (with their attempts counter)."""

from __future__ import annotations

import time

from pipeline.spool.layout import DIRS, Spool, SpoolName


def test_new_names_are_unique_time_ordered_and_parse_back():
    names = [SpoolName.new() for _ in range(200)]
    assert len({n.filename for n in names}) == 200
    first = names[0]
    assert SpoolName.parse(first.filename) == first and first.attempts == 0
    assert abs(first.enqueued_at() - time.time()) < 60
    assert sorted(n.filename for n in names)[0] == first.filename


def test_retried_counts_attempts_in_the_name_and_keeps_the_base():
    name = SpoolName.parse("00000000000000000042-abc.json")
    twice = name.retried().retried()
    assert twice.filename == "00000000000000000042-abc.a2.json"
    assert SpoolName.parse(twice.filename) == SpoolName("00000000000000000042-abc", 2)
    assert twice.enqueued_at() == 42e-9


def test_foreign_names_are_kept_whole():
    assert SpoolName.parse("from-elsewhere.txt") == SpoolName("from-elsewhere.txt")
    assert SpoolName("from-elsewhere.txt").retried().filename == "from-elsewhere.txt.a1.json"
    assert SpoolName("from-elsewhere").enqueued_at() is None


def test_ensure_creates_the_four_directories_and_names_skips_notes_and_temp_files(tmp_path):
    spool = Spool(tmp_path / "spool").ensure()
    assert sorted(p.name for p in spool.root.iterdir()) == sorted(DIRS)
    for name in ("b.json", "a.json", ".tmp-c.json", "a.error"):
        (spool.poison / name).write_text("x")
    assert spool.names(spool.poison) == ["a.json", "b.json"]
    assert spool.names(tmp_path / "missing") == []
