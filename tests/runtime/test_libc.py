"""The C library calls Python's os module lacks: giving heap back, syncing a filesystem."""

import platform

import pytest

from pipeline.runtime import libc

GLIBC = platform.libc_ver()[0] == "glibc"


def _resident() -> int:  # pages
    return int(open("/proc/self/statm").read().split()[1])


@pytest.mark.skipif(not GLIBC, reason="malloc_trim is glibc's")
def test_freed_memory_goes_back_to_the_system_with_glibc():
    held = [bytes(1000) + bytes([n % 256]) for n in range(90_000)]  # ~90 MB of blocks too big for Python's own
    del held[: len(held) - 1]  # the last one pins the top of the heap: only a trim gives the rest back
    before = _resident()
    assert libc.give_back_memory()
    assert _resident() < before - 10_000  # 40 MB of 4 KB pages


@pytest.mark.skipif(not GLIBC, reason="syncfs is Linux's")
def test_a_filesystem_is_synced_and_a_bad_folder_raises(tmp_path):
    (tmp_path / "a").write_bytes(b"x")
    assert libc.sync_filesystem(tmp_path)
    with pytest.raises(OSError):
        libc.sync_filesystem(tmp_path / "missing")


def test_without_those_calls_nothing_is_done(monkeypatch, tmp_path):
    monkeypatch.setattr(libc, "_function", lambda name: None)
    assert libc.give_back_memory() is False and libc.sync_filesystem(tmp_path) is False
