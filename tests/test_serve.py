"""The preview server: serves the output folder and nothing else, injects live reload, rebuilds on change."""

from __future__ import annotations

import dataclasses
import http.client
import threading
import time

import pytest

from conftest import folder_hashes
from pipeline.build import build
from pipeline.cli import build_parser
from pipeline.config import load_config
from pipeline.serve import EVENTS, PreviewServer, Rebuilder, watch
from pipeline.site import search

SITE = {
    "index.md": "---\ntitle: Home\n---\n\nWelcome. Read [[Gardening]].\n",
    "gardening.md": "---\ntitle: Gardening\n---\n\nTomatoes need sunlight.\n",
}
SECRET = b"top-secret-bytes-4711"
DEADLINE = 20.0  # seconds: a bound on waiting for a rebuild, never a sleep


def build_site(config, written=lambda: None) -> None:
    build(config, workers=1, site=True, written=written)


@pytest.fixture
def wiki(make_wiki, tmp_path):
    """The SITE wiki built without search (Pagefind is the e2e test's business), and a secret beside it."""
    config = dataclasses.replace(make_wiki(SITE), search=False)
    build_site(config)
    (tmp_path / "secret.txt").write_bytes(SECRET)
    return config


def start(config, **kwargs) -> PreviewServer:
    server = PreviewServer(config.out_dir, config.base_url, port=0, **kwargs)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    return server


@pytest.fixture
def server(wiki):
    server = start(wiki)
    yield server
    server.close()


def get(server: PreviewServer, path: str, method: str = "GET") -> tuple[int, dict, bytes]:
    """One raw request: http.client sends the path as given, so traversal attempts reach the server intact."""
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=DEADLINE)
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response.status, dict(response.getheaders()), response.read()
    finally:
        conn.close()


class Events:
    """A server-sent events client that reads line by line, each read bounded by the deadline."""

    def __init__(self, server: PreviewServer, query: str = "") -> None:
        host, port = server.server_address[:2]
        self.conn = http.client.HTTPConnection(host, port, timeout=DEADLINE)
        self.conn.request("GET", EVENTS + query)
        self.response = self.conn.getresponse()
        assert self.response.status == 200
        assert self.response.getheader("Content-Type") == "text/event-stream"
        self.until(": connected")  # from here on, every rebuild reaches this client

    def until(self, wanted: str) -> list[str]:
        lines, deadline = [], time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            line = self.response.readline().decode().rstrip("\n")
            lines.append(line)
            if line == wanted:
                return lines
        raise AssertionError(f"no {wanted!r} within {DEADLINE}s: {lines}")

    def close(self) -> None:
        self.conn.close()


def test_serves_pages_assets_and_folder_indexes(server, wiki):
    status, headers, body = get(server, "/gardening/")
    assert status == 200 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"Tomatoes need sunlight." in body
    status, headers, body = get(server, "/assets/wiki.css")
    assert status == 200 and headers["Content-Type"].startswith("text/css")
    assert body == (wiki.out_dir / "assets" / "wiki.css").read_bytes()
    assert get(server, "/")[2].startswith(b"<!doctype html>") and b"Welcome." in get(server, "/")[2]
    assert get(server, "/gardening/index.html")[0] == 200
    status, headers, _ = get(server, "/gardening?x=1")
    assert status == 302 and headers["Location"] == "/gardening/?x=1"  # relative links need the slash
    status, _, body = get(server, "/gardening/", method="HEAD")
    assert status == 200 and body == b""


def test_missing_files_get_the_sites_404_page(server):
    status, headers, body = get(server, "/no/such/page/")
    assert status == 404 and headers["Content-Type"] == "text/html; charset=utf-8"
    assert b"Page not found" in body and b"data-pipeline-serve" in body


TRAVERSALS = [
    "/../secret.txt", "/site/../../secret.txt", "/%2e%2e/secret.txt", "/%2E%2E/secret.txt", "/..%2fsecret.txt",
    "/%2e%2e%2fsecret.txt", "/assets/..%2f..%2fsecret.txt", "/..%5csecret.txt", "/..\\secret.txt",
    "/link-out", "/dir-out/secret.txt", "/trap/", "/trap", "/%00/../secret.txt", "/%ff%fe",
]  # fmt: skip


def test_nothing_outside_the_output_folder_is_served(server, wiki, tmp_path):
    out = wiki.out_dir
    (out / "link-out").symlink_to(tmp_path / "secret.txt")
    (out / "dir-out").symlink_to(tmp_path, target_is_directory=True)
    (out / "trap").mkdir()
    (out / "trap" / "index.html").symlink_to(tmp_path / "secret.txt")  # a folder URL resolves index.html too
    absolute = (tmp_path / "secret.txt").as_posix()
    for path in [*TRAVERSALS, absolute, f"/{absolute}", f"/%2f{absolute[1:]}", f"/..{absolute}"]:
        status, _, body = get(server, path)
        assert status == 404, path
        assert SECRET not in body, path
    assert get(server, "/gardening/")[0] == 200  # and the site itself is still served


def test_binds_loopback_by_default(wiki):
    server = PreviewServer(wiki.out_dir, port=0)
    try:
        assert server.server_address[0] == "127.0.0.1"
        assert server.url.startswith("http://127.0.0.1:")
    finally:
        server.server_close()
    args = build_parser().parse_args(["serve"])
    assert (args.host, args.port, args.watch) == ("127.0.0.1", 8000, True)


def test_live_reload_script_is_added_on_the_way_out_only(server, wiki):
    before = folder_hashes(wiki.out_dir)
    body = get(server, "/gardening/")[2]
    on_disk = (wiki.out_dir / "gardening" / "index.html").read_bytes()
    assert b"data-pipeline-serve" not in on_disk
    assert body.count(b"<script data-pipeline-serve>") == 1
    assert body.index(b"data-pipeline-serve") < body.rindex(b"</body>")
    assert body.replace(body[body.index(b"<script data-pipeline-serve>") : body.rindex(b"</body>")], b"") == on_disk
    assert get(server, "/assets/wiki.css")[2] == (wiki.out_dir / "assets" / "wiki.css").read_bytes()
    assert folder_hashes(wiki.out_dir) == before


def test_a_rebuild_after_an_edit_reloads_open_pages(server, wiki):
    rebuilder = Rebuilder(lambda: wiki, build_site, server.reloads)
    events = Events(server)
    try:
        (wiki.content_dir / "gardening.md").write_text("---\ntitle: Gardening\n---\n\nPeppers too.\n")
        assert rebuilder.rebuild()  # what the watcher calls after a batch of changes
        assert events.until("event: reload")[-1] == "event: reload"
        assert b"Peppers too." in get(server, "/gardening/")[2]
    finally:
        events.close()


def test_open_pages_reload_before_the_search_index_is_rebuilt(server, wiki, monkeypatch):
    indexed = []  # the reload generation each time the indexer starts
    monkeypatch.setattr(search, "index_site", lambda indexing, **options: indexed.append(server.reloads.generation))
    searching = dataclasses.replace(wiki, search=True)
    rebuilder = Rebuilder(lambda: searching, build_site, server.reloads)
    (wiki.content_dir / "gardening.md").write_text("---\ntitle: Gardening\n---\n\nPeppers too.\n")
    assert rebuilder.rebuild()
    assert indexed == [1] and server.reloads.generation == 1  # reloaded first, and once


def test_a_search_index_stopped_midway_is_rebuilt_by_the_next_build(wiki, monkeypatch):
    searching = dataclasses.replace(wiki, search=True)
    (wiki.content_dir / "gardening.md").write_text("---\ntitle: Gardening\n---\n\nPeppers too.\n")

    def stopped(indexing, **options):
        raise KeyboardInterrupt

    monkeypatch.setattr(search, "index_site", stopped)
    with pytest.raises(KeyboardInterrupt):
        build_site(searching)
    indexed = []
    monkeypatch.setattr(search, "index_site", lambda indexing, **options: indexed.append(indexing))
    (searching.out_dir / "pagefind").mkdir()
    for name in ("pagefind-ui.js", "pagefind-ui.css", "shards.js"):  # the old index is still there
        (searching.out_dir / "pagefind" / name).write_text("")
    report = build(searching, workers=1, site=True)
    assert report.site.written == [] and [i.out_dir for i in indexed] == [searching.out_dir]  # no page changed, yet it indexes
    build(searching, workers=1, site=True, reuse=False)
    assert len(indexed) == 1  # once indexed, not again


def test_a_page_older_than_the_site_reloads_at_once(server):
    server.reloads.publish()  # a rebuild finished between serving the page (generation 0) and its event stream
    events = Events(server, "?since=0")
    try:
        assert events.until("data: 1")[-2:] == ["event: reload", "data: 1"]
    finally:
        events.close()


def test_a_failed_rebuild_keeps_the_last_good_site(server, wiki, capsys):
    def broken(config, written):
        raise RuntimeError("a pass exploded")

    before = get(server, "/gardening/")[2]
    assert not Rebuilder(lambda: wiki, broken, server.reloads).rebuild()
    assert server.reloads.generation == 0  # no reload event
    assert get(server, "/gardening/")[2] == before
    assert "a pass exploded" in capsys.readouterr().err


def test_the_watcher_rebuilds_after_a_content_edit(server, wiki, tmp_path):
    rebuilder = Rebuilder(lambda: wiki, build_site, server.reloads)
    stop, ready = threading.Event(), threading.Event()
    watcher = threading.Thread(target=watch, args=(rebuilder, stop, tmp_path / "wiki.yaml", ready), daemon=True)
    watcher.start()
    events = Events(server)
    try:
        assert ready.wait(DEADLINE)
        (wiki.content_dir / "gardening.md").write_text("---\ntitle: Gardening\n---\n\nBeans, watched.\n")
        events.until("event: reload")
        assert b"Beans, watched." in get(server, "/gardening/")[2]
    finally:
        stop.set()
        events.close()
        watcher.join(DEADLINE)
    assert not watcher.is_alive()


def test_the_watcher_follows_the_config_file_and_the_templates(wiki, tmp_path):
    config_file, theme = tmp_path / "wiki.yaml", tmp_path / "theme"
    theme.mkdir()
    config_file.write_text(f"site_name: Before\ntemplates_dir: {theme}\nsearch: false\n")

    def load():
        return load_config(config_file, content=wiki.content_dir, out=wiki.out_dir, state=wiki.state_dir)

    build_site(load())
    server = start(load())
    rebuilder = Rebuilder(load, build_site, server.reloads)
    stop, ready = threading.Event(), threading.Event()
    watcher = threading.Thread(target=watch, args=(rebuilder, stop, config_file, ready), daemon=True)
    watcher.start()
    events = Events(server)
    try:
        assert ready.wait(DEADLINE)
        config_file.write_text(f"site_name: After\ntemplates_dir: {theme}\nsearch: false\n")
        events.until("event: reload")
        assert b"<title>Gardening \xc2\xb7 After</title>" in get(server, "/gardening/")[2]
        ready.clear()  # a changed config file restarts the watch: wait until the new one is in place
        assert ready.wait(DEADLINE)
        (theme / "404.html").write_text("<!doctype html><body><p>Lost in the {{ site_name }} garden.</p></body>")
        events.until("event: reload")
        assert b"Lost in the After garden." in get(server, "/nowhere/")[2]
    finally:
        stop.set()
        events.close()
        watcher.join(DEADLINE)
        server.close()


def test_a_site_under_a_sub_path(make_wiki):
    config = dataclasses.replace(make_wiki(SITE), search=False, base_url="/docs/")
    build_site(config)
    server = start(config)
    try:
        assert get(server, "/docs/gardening/")[0] == 200
        assert get(server, "/docs/assets/wiki.css")[0] == 200
        assert get(server, "/gardening/")[0] == 404
        for path in ("/", "/docs"):
            status, headers, _ = get(server, path)
            assert status == 302 and headers["Location"] == "/docs/"
        assert server.url.endswith("/docs/")
    finally:
        server.close()
