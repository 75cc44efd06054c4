"""Giving freed memory back to the system."""

import platform

import pytest

from pipeline import heap


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="malloc_trim is glibc's")
def test_freed_memory_goes_back_to_the_system_with_glibc():
    def resident() -> int:  # pages
        return int(open("/proc/self/statm").read().split()[1])

    held = [bytes(1000) + bytes([n % 256]) for n in range(90_000)]  # ~90 MB of blocks too big for Python's own
    del held[: len(held) - 1]  # the last one pins the top of the heap: only a trim gives the rest back
    before = resident()
    assert heap.give_back()
    assert resident() < before - 10_000  # 40 MB of 4 KB pages


def test_without_glibc_nothing_is_done(monkeypatch):
    monkeypatch.setattr(heap, "_trim", lambda: None)
    assert heap.give_back() is False
