"""The preview server: the output folder only, to loopback names only; live reload; rebuilds on change."""

from __future__ import annotations

import dataclasses
import http.client
import json
import selectors
import socket
import threading
import time
from pathlib import Path

import pytest

from conftest import folder_hashes
from pipeline.build import build
from pipeline.cli import build_parser
from pipeline.config import load_config
from pipeline.errors import UserError
from pipeline.preview.server import EVENTS, Handler, PreviewServer, Rebuilder, watch
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


def get(server: PreviewServer, path: str, method: str = "GET", headers=None) -> tuple[int, dict, bytes]:
    """One raw request: http.client sends the path as given, so traversal attempts reach the server intact."""
    host, port = server.server_address[:2]
    conn = http.client.HTTPConnection(host, port, timeout=DEADLINE)
    try:
        conn.request(method, path, headers=headers or {})
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


def test_a_missing_page_of_a_language_gets_that_language_s_404_page(server, wiki):
    (wiki.out_dir / "es").mkdir(exist_ok=True)
    (wiki.out_dir / "es" / "404.html").write_bytes(b"<!doctype html><html lang='es'><body>No encontrada</body></html>")
    status, _, body = get(server, "/es/no/such/page/")
    assert status == 404 and b"No encontrada" in body
    assert b"Page not found" in get(server, "/esx/no/such/")[2] and b"Page not found" in get(server, "/missing")[2]


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


def test_never_serves_the_content_or_the_state_folder_wherever_they_are(wiki, tmp_path):
    """An output folder holding the state folder served the database; one that is the content folder, the sources."""
    refused = (wiki.content_dir, wiki.state_dir)
    around = start(dataclasses.replace(wiki, out_dir=tmp_path), refused=refused)  # holds content/, state/, site/
    (wiki.out_dir / "state-link").symlink_to(wiki.state_dir, target_is_directory=True)
    try:
        assert get(around, "/site/gardening/")[0] == 200 and get(around, "/secret.txt")[0] == 200
        for path in ("/state/state.db", "/content/gardening.md", "/site/state-link/state.db", "/state/", "/content/"):
            status, _, body = get(around, path)
            assert status == 404 and b"SQLite" not in body and b"Tomatoes" not in body, path
        around.point_at(wiki.content_dir, "/", refused)
        (wiki.content_dir / "404.html").write_text("a 404 page inside the content folder")
        assert get(around, "/gardening.md")[:3:2] == (404, b"404 Not Found\n")  # nor its 404 page
    finally:
        around.close()


def test_a_server_for_a_config_never_serves_its_state_folder(wiki):
    inside = dataclasses.replace(wiki, state_dir=wiki.out_dir / ".state")  # as a build made before refusing it
    inside.state_dir.mkdir()
    (inside.state_dir / "state.db").write_bytes(b"SQLite format 3\x00")
    server = PreviewServer.of(inside, "127.0.0.1", 0)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    try:
        assert get(server, "/gardening/")[0] == 200
        assert get(server, "/.state/state.db")[0] == 404
        server.follow(dataclasses.replace(inside, content_dir=wiki.out_dir))  # a new config: the same rule
        assert get(server, "/gardening/")[0] == 404
    finally:
        server.close()


@pytest.mark.parametrize("host", ["evil.example", "evil.example:8000", "127.0.0.1.nip.io:80", "localhost.evil"])
def test_a_host_header_naming_another_site_is_refused(server, host):
    """DNS rebinding: a page of evil.example whose name now leads to 127.0.0.1 must not read the preview."""
    for path in ("/gardening/", EVENTS, "/no/such/page/"):
        status, headers, body = get(server, path, headers={"Host": host})
        assert status == 403 and headers["Content-Type"].startswith("text/plain") and b"Tomatoes" not in body
        assert body.startswith(b"403 Forbidden") and body.count(b"\n") == 1
    port = server.server_address[1]
    for allowed in (f"127.0.0.1:{port}", f"localhost:{port}", "localhost", f"[::1]:{port}"):
        assert get(server, "/gardening/", headers={"Host": allowed})[0] == 200


def kernel_listen_queue() -> int:
    """The kernel's cap on a listen queue (Linux's net.core.somaxconn; 0 where it cannot be read)."""
    somaxconn = Path("/proc/sys/net/core/somaxconn")
    return int(somaxconn.read_text()) if somaxconn.exists() else 0


@pytest.mark.skipif(kernel_listen_queue() < 500, reason="the kernel caps listen queues below 500 (net.core.somaxconn)")
def test_answers_500_clients_connecting_at_once(wiki):
    """All connect before the server accepts one (the listen queue holds them), then all are answered."""
    server, serving = PreviewServer(wiki.out_dir, port=0), False
    selector, sent, answers = selectors.DefaultSelector(), [], {}
    request = b"GET /gardening/ HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

    def send(client: socket.socket) -> None:  # once connected (or refused)
        selector.unregister(client)
        if client.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
            client.sendall(request)
            sent.append(client)

    def read(client: socket.socket) -> None:  # until the server closes it: the answer is whole
        chunk = client.recv(65536)
        answers[client] = answers.get(client, b"") + chunk
        if not chunk:
            selector.unregister(client)

    try:
        for _ in range(500):
            client = socket.socket()
            client.setblocking(False)
            client.connect_ex(server.server_address)
            selector.register(client, selectors.EVENT_WRITE)
        clients = [key.fileobj for key in selector.get_map().values()]
        step_until_done(selector, send)
        assert len(sent) == 500, f"{len(sent)} of 500 connected: the listen queue is too short"
        threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
        serving = True
        for client in sent:
            selector.register(client, selectors.EVENT_READ)
        step_until_done(selector, read)
        assert [answer.split(b"\r\n", 1)[0] for answer in answers.values()] == [b"HTTP/1.0 200 OK"] * 500
        assert all(b"Tomatoes need sunlight." in answer for answer in answers.values())
    finally:
        for client in clients:
            client.close()
        selector.close()
        server.close() if serving else server.server_close()


def step_until_done(selector: selectors.BaseSelector, step) -> None:
    """`step` each socket as it is ready, until every one has unregistered itself (or the deadline)."""
    deadline = time.monotonic() + DEADLINE
    while selector.get_map() and time.monotonic() < deadline:
        for key, _ in selector.select(timeout=0.5):
            step(key.fileobj)


def test_request_threads_are_daemons_and_close_ends_open_streams(wiki):
    server = start(wiki)
    before = set(threading.enumerate())
    events = Events(server)
    try:
        streaming = set(threading.enumerate()) - before
        assert streaming and all(thread.daemon for thread in streaming)  # Ctrl-C never waits for a tab
        server.close()
        events.response.read()  # the stream ends: the server closed it
        for thread in streaming:
            thread.join(DEADLINE)
        assert not any(thread.is_alive() for thread in streaming)
    finally:
        events.close()


def test_a_failing_request_is_one_line_not_a_traceback(server, monkeypatch, capsys):
    def broken(handler, body):
        raise RuntimeError("handler bug")

    monkeypatch.setattr(Handler, "respond", broken)
    with pytest.raises(http.client.RemoteDisconnected):
        get(server, "/gardening/")
    err = capsys.readouterr().err
    assert err == "pipeline: warning: a request failed: RuntimeError('handler bug')\n"


def test_port_in_use_and_unbindable_hosts_are_one_line_errors(wiki):
    taken = PreviewServer(wiki.out_dir, port=0)
    try:
        port = taken.server_address[1]
        with pytest.raises(UserError, match=rf"^cannot serve on 127\.0\.0\.1:{port}: Address already in use \("):
            PreviewServer(wiki.out_dir, port=port)
    finally:
        taken.server_close()
    with pytest.raises(UserError, match=r"^cannot serve on 192\.0\.2\.1:0: Cannot assign requested address$"):
        PreviewServer(wiki.out_dir, host="192.0.2.1", port=0)  # TEST-NET-1: no machine's own address
    with pytest.raises(UserError, match=r"^cannot serve on 127\.0\.0\.1:99999: "):
        PreviewServer(wiki.out_dir, port=99999)


def test_the_last_builds_problems_reach_open_pages(server, wiki):
    """What `--strict` shows over the page: sent when a build ends, to every stream, and cleared by a clean one."""
    problems = [["pipeline serve --strict: this build fails", "content/a.md:3:1: warning: broken-link: <b>x</b>"]]
    rebuilder = Rebuilder(lambda: wiki, lambda config, written: problems[-1], server.reloads)
    events = Events(server)
    try:
        assert rebuilder.rebuild()
        assert events.until("event: problems")[-1] == "event: problems"
        assert json.loads(events.until("")[0].removeprefix("data: ")) == problems[-1]
        late = Events(server)  # a page opened afterwards is told at once
        try:
            late.until("event: problems")
            assert json.loads(late.until("")[0].removeprefix("data: ")) == problems[-1]
        finally:
            late.close()
        problems.append([])
        assert rebuilder.rebuild()
        events.until("event: problems")
        assert events.until("")[0] == "data: []"
    finally:
        events.close()
    assert server.reloads.problems == ()


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


@pytest.mark.slow
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
