"""`pipeline serve` as a command: builds, prints a loopback URL, serves, stops on Ctrl-C; one-line errors; --strict."""

from __future__ import annotations

import http.client
import json
import os
import re
import select
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

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
        def __init__(self, **callbacks):
            super().__init__(**callbacks)
            made.append(self)

    runs = []

    def serve(load_config, build_site, options, serving):
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


def test_open_pages_reload_once_when_the_first_search_index_is_in_place(capsys):
    """A page opened before the preview's first index has no search box; one opened after has it. Each index is said."""
    from pipeline.commands.serve import SEARCH_READY, FirstIndex

    published = []
    reloads = type("Reloads", (), {"publish": lambda self: published.append(True)})()
    first = FirstIndex()
    first.serving(reloads)
    first.ready()
    first.ready()  # a rebuild's index: the pages already have their search
    assert published == [True] and capsys.readouterr().out == f"{SEARCH_READY}\n" * 2
    indexed_before_serving = FirstIndex()
    indexed_before_serving.ready()
    indexed_before_serving.serving(reloads)
    indexed_before_serving.ready()
    assert published == [True]  # no page was open before that index


WARNED = {"index.md": "---\ntitle: Home\n---\n\nSee [[Nowhere]].\n"}  # a broken-link warning


def serve_args(tmp_path, *more: str) -> list[str]:
    write_files(tmp_path / "content", WARNED)
    return ["serve", "--content", str(tmp_path / "content"), "--state", str(tmp_path / "state"),
            "--out", str(tmp_path / "out"), "--no-watch", "--workers", "1", *more]  # fmt: skip


def test_a_port_in_use_is_one_line_and_nothing_is_built(tmp_path, capsys):
    from pipeline.cli import main

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(serve_args(tmp_path, "--port", str(port))) == 1
    assert capsys.readouterr().err == (
        f"pipeline: error: cannot serve on 127.0.0.1:{port}: Address already in use"
        " (another server has it: choose another --port, or --port 0 for a free one)\n"
    )
    assert not (tmp_path / "out").exists()  # checked before the first build


def test_an_unbindable_host_is_one_line(tmp_path, capsys):
    from pipeline.cli import main

    assert main(serve_args(tmp_path, "--host", "192.0.2.1", "--port", "0")) == 1  # TEST-NET-1: not this machine's
    assert capsys.readouterr().err == "pipeline: error: cannot serve on 192.0.2.1:0: Cannot assign requested address\n"


@pytest.mark.parametrize("value", ["99999", "65536", "-1", "http", "80.5", "\u0663"])
def test_a_port_out_of_range_is_a_usage_error(value, capsys):
    from pipeline.cli import main

    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--port", value])
    err = capsys.readouterr().err
    assert stopped.value.code == 2 and "Traceback" not in err
    assert err.splitlines()[-1] == (
        f"pipeline serve: error: argument --port: {value!r} is not a port number (0 to 65535; 0 picks a free one)"
    )


def test_strict_turns_the_warnings_into_problems_and_exit_1(tmp_path, monkeypatch, capsys):
    """What `serve` is handed back by each build: nothing without --strict; the warnings, under it."""
    from pipeline.cli import main
    from pipeline.commands import serve as command

    handed = []

    def serve(load_config, build_site, options, serving):  # one build, then as if Ctrl-C
        handed.append(build_site(load_config(), lambda: None))
        return handed[-1]

    monkeypatch.setattr(command, "serve", serve)
    assert main(serve_args(tmp_path)) == 0 and handed == [[]]
    capsys.readouterr()
    assert main(serve_args(tmp_path, "--strict")) == 1
    heading, *warnings = handed[-1]
    assert heading.startswith("pipeline serve --strict: this build fails: 0 error(s), 1 warning(s)")
    assert len(warnings) == 1 and warnings[0].startswith(f"{tmp_path / 'content' / 'index.md'}:5:5:")
    assert "warning: broken-link:" in warnings[0]
    err = capsys.readouterr().err
    assert "pipeline: error: this build fails under --strict (the preview goes on)\n" in err
    assert err.endswith("pipeline: error: the last build failed under --strict (see its warnings above)\n")


def test_a_page_shows_the_first_hundred_problems_and_counts_the_rest(tmp_path):
    from pipeline.commands.serve import strict_problems
    from pipeline.config import Config
    from pipeline.diagnostics import Diagnostic

    config = Config(content_dir=Path("content"), state_dir=tmp_path / "state", out_dir=tmp_path / "out")
    found = [Diagnostic(f"a{n}.md", 1, 1, "warning", "broken-link", "x") for n in range(150)]
    found.append(Diagnostic("b.md", 1, 1, "info", "unlinked-mention", "a suggestion, never a failure"))
    heading, *listed, more = strict_problems(config, found)
    assert heading == "pipeline serve --strict: this build fails: 0 error(s), 150 warning(s), 1 info"
    assert listed[0] == "content/a0.md:1:1: warning: broken-link: x" and len(listed) == 100
    assert more == "... and 50 more (see the terminal)"


def test_a_site_warning_fails_serve_strict_as_it_fails_build_strict_and_reaches_open_pages(tmp_path, capsys):
    from types import SimpleNamespace

    from pipeline.commands.build import report_site
    from pipeline.commands.serve import strict_problems
    from pipeline.config import Config

    config = Config(content_dir=Path("content"), state_dir=tmp_path / "state", out_dir=tmp_path / "out")
    report = SimpleNamespace(process=SimpleNamespace(diagnostics=[], unlisted_info=0, failures=[], problems=[]),
                             site=SimpleNamespace(conflicts=[], warnings=["search index not built: disk full"]))
    args = SimpleNamespace(strict=True, format="text", info=False)
    assert report_site(args, config, report) == 1
    assert strict_problems(config, [], report.site.warnings)[-1] == "pipeline: warning: search index not built: disk full"


def test_serve_strict_shows_the_warnings_in_open_pages_and_exits_1(tmp_path):
    write_files(tmp_path / "content", WARNED)
    process = subprocess.Popen(
        [sys.executable, "-m", "pipeline", "serve", "--content", "content", "--state", "state", "--out", "out",
         "--port", "0", "--no-watch", "--workers", "1", "--strict"],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_ctrl_c_not_ignored,
    )  # fmt: skip
    try:
        url = urllib.parse.urlsplit(first_url(process))
        with urllib.request.urlopen(url.geturl(), timeout=DEADLINE) as response:
            assert 'addEventListener("problems"' in response.read().decode()  # the script that shows them
        stream = http.client.HTTPConnection(url.hostname, url.port, timeout=DEADLINE)
        stream.request("GET", "/.pipeline-serve/events")
        events = stream.getresponse()
        lines = [events.readline() for _ in range(5)]  # retry, connected, blank, then the problems
        stream.close()
        assert lines[3] == b"event: problems\n"
        problems = json.loads(lines[4].removeprefix(b"data: "))
        assert problems[0].startswith("pipeline serve --strict: this build fails")
        assert problems[1].startswith("content/index.md:5:5:") and "broken-link" in problems[1]
        process.send_signal(signal.SIGINT)
        output = process.communicate(timeout=DEADLINE)[0].decode()
        assert process.returncode == 1, output
        assert output.endswith("pipeline: error: the last build failed under --strict (see its warnings above)\n")
        assert "Traceback" not in output
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
