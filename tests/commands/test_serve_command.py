"""`pipeline serve` as a command: builds, prints a loopback URL, serves the site, stops cleanly on Ctrl-C."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
import time
import urllib.request

import pytest

from conftest import write_files

DEADLINE = 60.0


def first_url(process: subprocess.Popen) -> str:
    """The URL `serve` prints once the first build is done (bounded: it must come)."""
    deadline, out, found = time.monotonic() + DEADLINE, b"", None
    fd = process.stdout.fileno()
    while time.monotonic() < deadline and select.select([fd], [], [], deadline - time.monotonic())[0]:
        chunk = os.read(fd, 4096)  # unbuffered: a buffered readline could hide a line from select
        out += chunk
        found = re.search(rb"^Serving (http://\S+)", out, re.MULTILINE)
        if found or not chunk:
            break
    assert found, f"no URL printed: {out.decode()}"
    return found.group(1).decode()


def _ctrl_c_not_ignored() -> None:
    """A shell starts background jobs with SIGINT ignored, and Python then keeps it ignored (the
    Unix convention: Ctrl-C is not theirs). Tests run so would see a serve that never stops: this
    one starts it as a terminal would, with SIGINT at its default."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_serve_builds_prints_the_url_and_stops_on_ctrl_c(tmp_path):
    write_files(tmp_path / "content", {"index.md": "---\ntitle: Home\n---\n\nHello from serve.\n"})
    process = subprocess.Popen(
        [sys.executable, "-X", "faulthandler", "-m", "pipeline", "serve", "--content", "content", "--state", "state",
         "--out", "out", "--port", "0", "--no-watch", "--workers", "1", "--base-url", "/docs/"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_ctrl_c_not_ignored,
    )  # fmt: skip
    try:
        url = first_url(process)
        assert url.startswith("http://127.0.0.1:") and url.endswith("/docs/")
        with urllib.request.urlopen(url, timeout=DEADLINE) as response:
            page = response.read().decode()
        assert "Hello from serve." in page and "data-pipeline-serve" in page
        assert "data-pipeline-serve" not in (tmp_path / "out" / "index.html").read_text()
        process.send_signal(signal.SIGINT)
        try:
            status = process.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            process.send_signal(signal.SIGABRT)  # faulthandler writes where every thread is
            pytest.fail(f"serve did not stop on Ctrl-C:\n{process.communicate(timeout=DEADLINE)[0].decode()}")
        assert status == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_each_rebuild_stops_the_search_index_of_the_last_and_serve_stops_it_on_exit(tmp_path, monkeypatch):
    """A writer's next edit must not wait for the index of the pages it replaces (16 s at 10k)."""
    from pipeline.cli import main
    from pipeline.commands import serve as command
    from pipeline.site import search
    from pipeline.site.search import BackgroundIndex

    stall = [sys.executable, "-c", "import select; select.select([], [], [])"]
    made = []

    class Stalled(BackgroundIndex):
        def __init__(self, warn):
            super().__init__(warn)
            made.append(self)

    runs = []

    def serve(load_config, build_site, options):
        config = load_config()
        for _ in range(2):
            build_site(config, lambda: None)
            runs.append(made[0]._run)  # the run this build started, still going
        assert runs[0].stopped and not runs[0].thread.is_alive() and runs[1].thread.is_alive()

    write_files(tmp_path / "content", {"index.md": "---\ntitle: Home\n---\n\nHello.\n"})
    monkeypatch.setattr(command, "BackgroundIndex", Stalled)
    monkeypatch.setattr(search, "pagefind", lambda site, bundle: stall)
    monkeypatch.setattr(command, "serve", serve)
    args = ["serve", "--content", str(tmp_path / "content"), "--state", str(tmp_path / "state"),
            "--out", str(tmp_path / "site")]  # fmt: skip
    assert main(args) == 0
    assert len(runs) == 2 and runs[1].stopped and not runs[1].thread.is_alive()  # stopped when serve ended
