"""What the preview may answer: the Host names no other site can send it, and files outside the refused folders."""

from __future__ import annotations

import pytest

from pipeline.preview.access import host_allowed, locate

ANSWERED = [
    "127.0.0.1", "127.0.0.1:8000", "localhost", "localhost:8000", "LocalHost:1", "[::1]", "[::1]:8000",
    "192.168.1.20:8000", "[fe80::1]:8000", "0.0.0.0:8000", "127.0.0.1:",
]  # fmt: skip
REFUSED = [
    "evil.example", "evil.example:8000", "127.0.0.1.nip.io", "localhost.evil.example", "localhost.", "", " ",
    "[::1", "::1", "127.0.0.1:80:80", "localhost:abc", "local host", "user@localhost", "[evil.example]",
    "localhost:123456", "127.0.0.1/x",
]  # fmt: skip


@pytest.mark.parametrize("header", ANSWERED)
def test_loopback_names_and_addresses_are_answered(header):
    assert host_allowed(header, "127.0.0.1")


@pytest.mark.parametrize("header", REFUSED)
def test_any_other_name_is_refused(header):
    assert not host_allowed(header, "127.0.0.1")


def test_the_bound_host_name_is_answered_and_only_exactly():
    assert host_allowed("wiki.lan:8000", "wiki.lan") and host_allowed("WIKI.lan", "wiki.lan")
    assert not host_allowed("wiki.lan.evil.example", "wiki.lan") and not host_allowed("wiki.lan", "127.0.0.1")
    assert host_allowed(None, "127.0.0.1")  # no Host header: not a browser, so no rebinding


def test_files_in_a_refused_folder_are_not_located_wherever_it_is(tmp_path):
    out, state = tmp_path / "out", tmp_path / "out" / ".state"
    state.mkdir(parents=True)
    (state / "state.db").write_bytes(b"SQLite")
    (out / "page.html").write_text("page")
    (out / "linked").symlink_to(state, target_is_directory=True)
    assert locate(out, "page.html", [state])[0] == (out / "page.html").resolve()
    assert locate(out, ".state/state.db")[0] is not None  # what a build's output folder holding its state served
    for rel in (".state/state.db", "linked/state.db", ".state", ".state/"):
        assert locate(out, rel, [state])[0] is None, rel
    assert locate(out, "page.html", [out])[0] is None  # the output folder is the content folder: nothing
