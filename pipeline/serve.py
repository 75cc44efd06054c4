"""The preview server of `pipeline serve`: serve the output folder, rebuild on change, reload open pages.

Three parts, each usable alone (the tests drive them one by one):

- `PreviewServer` serves only files inside the output folder. A URL path is
  percent-decoded, stripped of the site's `base_url` path, joined to the
  folder and resolved with `os.path.realpath`; anything whose real path is
  not inside the real folder (`..`, encoded dots or slashes, symlinks out)
  is a 404, exactly like a missing file.
- Live reload: HTML responses get a small script, added on the way out
  (never written into the folder), that listens to server-sent events on a
  reserved path (`RESERVED`) and reloads the page when a rebuild finishes.
- `Rebuilder` and `watch`: watchfiles reports changes to the content, the
  templates and the config file; each batch triggers one incremental build,
  run in the watcher's thread, one at a time. A failed build is printed and
  the last good site keeps being served.
"""

from __future__ import annotations

import mimetypes
import os
import sys
import threading
import traceback
from dataclasses import dataclass
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socket import AF_INET6
from typing import Callable
from urllib.parse import parse_qs, unquote, urlsplit

from pipeline.config import Config
from pipeline.errors import UserError
from pipeline.site import normalize_base
from pipeline.site.theme import builtin_root

# No site URL segment starts with a dot (url_slug strips them, hidden files are never captured or
# copied), so nothing under this path can be a file of the site.
RESERVED = "/.pipeline-serve/"
EVENTS = f"{RESERVED}events"
KEEPALIVE = 15.0  # seconds between SSE comments, so a closed tab's thread notices and ends
LIVE_SCRIPT = (
    '<script data-pipeline-serve>(function(){var s=new EventSource("' + EVENTS + '?since=%d");'
    's.addEventListener("reload",function(){s.close();location.reload();});})();</script>\n'
)
HTML = "text/html; charset=utf-8"


class Reloads:
    """A generation counter: each good rebuild bumps it, and every SSE client waiting on it wakes."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.generation = 0
        self.closed = False

    def publish(self) -> int:
        with self._changed:
            self.generation += 1
            self._changed.notify_all()
            return self.generation

    def wait(self, seen: int, timeout: float) -> int:
        """The generation once it differs from `seen`, or after `timeout` seconds, or on close."""
        with self._changed:
            self._changed.wait_for(lambda: self.generation != seen or self.closed, timeout)
            return self.generation

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()


def site_path(url_path: str, base_path: str) -> str | None:
    """The decoded path below the site root that a URL path names, or None when it is outside `base_path`."""
    path = unquote(url_path, errors="strict") if "%" in url_path else url_path
    if not path.startswith(base_path) or "\x00" in path or "\\" in path:
        return None
    return path[len(base_path) :]


def locate(root: Path, rel: str) -> tuple[Path | None, bool]:
    """(the real file `rel` names inside `root`, or None; whether `rel` named a folder)."""
    real_root = os.path.realpath(root)
    target = os.path.realpath(os.path.join(real_root, rel.lstrip("/")))
    folder = os.path.isdir(target)
    if folder:
        target = os.path.realpath(os.path.join(target, "index.html"))
    inside = target.startswith(real_root + os.sep)
    return (Path(target) if inside and os.path.isfile(target) else None), folder


def inject(html: bytes, generation: int) -> bytes:
    """`html` with the live-reload script before `</body>` (or at the end)."""
    script = (LIVE_SCRIPT % generation).encode()
    at = html.lower().rfind(b"</body>")
    return html[:at] + script + html[at:] if at >= 0 else html + script


def content_type(path: Path) -> str:
    if path.suffix in (".html", ".htm"):
        return HTML
    kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    textual = kind.startswith("text/") or kind.endswith(("javascript", "json", "xml"))
    return f"{kind}; charset=utf-8" if textual else kind


class Handler(BaseHTTPRequestHandler):
    """GET and HEAD of the output folder's files, plus the live-reload event stream."""

    server: PreviewServer
    server_version = "pipeline-serve"

    def do_GET(self) -> None:
        self.respond(body=True)

    def do_HEAD(self) -> None:
        self.respond(body=False)

    def log_message(self, format, *args) -> None:  # noqa: A002 - the base class's name
        pass  # one line per request would bury the build summaries

    def respond(self, body: bool) -> None:
        url = urlsplit(self.path)
        if url.path == EVENTS:
            return self.events(parse_qs(url.query).get("since", [None])[0], body)
        try:
            rel = site_path(url.path, self.server.base_path)
        except UnicodeDecodeError:
            rel = None
        if rel is None:
            # The bare host (or the sub-path without its slash) leads to the site.
            if url.path in ("/", self.server.base_path.rstrip("/")):
                return self.redirect(self.server.base_path)
            return self.not_found(body)
        file, folder = locate(self.server.root, rel)
        if file is None:
            return self.not_found(body)
        if folder and not url.path.endswith("/"):
            # Pages link relative to their folder, so a folder's URL must end with a slash.
            return self.redirect(url.path + "/" + (f"?{url.query}" if url.query else ""))
        self.send_file(HTTPStatus.OK, file, body)

    def send_file(self, status: HTTPStatus, file: Path, body: bool) -> None:
        try:
            data = file.read_bytes()
        except OSError:  # removed by a rebuild since it was located
            return self.not_found(body) if status == HTTPStatus.OK else self.send_bytes(status, b"", HTML, body)
        kind = content_type(file)
        if kind == HTML:
            data = inject(data, self.server.reloads.generation)
        self.send_bytes(status, data, kind, body)

    def send_bytes(self, status: HTTPStatus, data: bytes, kind: str, body: bool) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")  # a reload must show the rebuilt file
        self.end_headers()
        if body:
            self.wfile.write(data)

    def not_found(self, body: bool) -> None:
        page, _ = locate(self.server.root, "404.html")
        if page is None:
            return self.send_bytes(HTTPStatus.NOT_FOUND, b"404 Not Found\n", "text/plain; charset=utf-8", body)
        self.send_file(HTTPStatus.NOT_FOUND, page, body)

    def redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.FOUND)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def events(self, since: str | None, body: bool) -> None:
        """Server-sent events: `reload` after each good rebuild (at once if the page is older than the site)."""
        reloads = self.server.reloads
        seen = reloads.generation
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.close_connection = True
        if not body:
            return
        try:
            self.wfile.write(b"retry: 1000\n: connected\n\n")
            if since is not None and since != str(seen):
                self.wfile.write(f"event: reload\ndata: {seen}\n\n".encode())
            self.wfile.flush()
            while not reloads.closed:
                current = reloads.wait(seen, KEEPALIVE)
                message = f"event: reload\ndata: {current}\n\n" if current != seen else ": ping\n\n"
                seen = current
                self.wfile.write(message.encode())
                self.wfile.flush()
        except OSError:  # the page went away
            return


class PreviewServer(ThreadingHTTPServer):
    """An HTTP server over one output folder; binds loopback unless told otherwise."""

    daemon_threads = True  # open event streams must not keep the process alive

    def __init__(self, out_dir: Path, base_url: str = "/", host: str = "127.0.0.1", port: int = 8000) -> None:
        self.address_family = AF_INET6 if ":" in host else self.address_family
        self.reloads = Reloads()
        self.point_at(out_dir, base_url)
        super().__init__((host, port), Handler)

    def point_at(self, out_dir: Path, base_url: str) -> None:
        """Serve `out_dir` under `base_url`'s path (the config may change while serving)."""
        self.root = Path(out_dir)
        self.base_path = urlsplit(normalize_base(base_url)).path or "/"

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}{self.base_path}"

    def close(self) -> None:
        """Stop serving (call from another thread than `serve_forever`'s) and end the event streams."""
        self.shutdown()
        self.reloads.close()
        self.server_close()


class Rebuilder:
    """One build at a time; a reload event after each good one, the last good site kept after a bad one."""

    def __init__(
        self,
        load_config: Callable[[], Config],
        build_site: Callable[[Config, Callable[[], None]], object],  # (config, called once pages are written)
        reloads: Reloads,
        on_config: Callable[[Config], None] = lambda config: None,
        config: Config | None = None,
    ) -> None:
        self.load_config = load_config  # re-reads wiki.yaml with the command line's overrides
        self.build_site = build_site
        self.reloads = reloads
        self.on_config = on_config
        self.config = config or load_config()
        self._one_at_a_time = threading.Lock()

    def rebuild(self, config_changed: bool = False) -> bool:
        """Build the site again (re-reading the config first if it changed); True when it worked.

        Open pages reload as soon as the new pages are written: the search index, rebuilt
        after them, takes longer than the build on a big wiki, and search catches up then.
        """
        published: list[int] = []

        def reload() -> None:  # once: when the pages are written, or at the end of a build that wrote none
            if not published:
                published.append(self.reloads.publish())

        with self._one_at_a_time:
            try:
                if config_changed:
                    self.config = self.load_config()
                    self.on_config(self.config)
                self.build_site(self.config, reload)
            except UserError as exc:
                print(f"pipeline: error: {exc} (still serving the last good site)", file=sys.stderr, flush=True)
                return False
            except Exception:  # noqa: BLE001 - a broken edit or pass must not stop the preview
                traceback.print_exc()
                print("pipeline: error: rebuild failed (still serving the last good site)", file=sys.stderr)
                return False
            reload()
            return True


def watch_paths(config: Config, config_file: Path | None) -> list[Path]:
    """What to watch: the content, the templates (the wiki's and the built-in theme) and the config file."""
    candidates = [config.content_dir, config.templates_dir, Path(str(builtin_root())), config_file]
    found: list[Path] = []
    for path in candidates:
        if path is not None and Path(path).exists() and Path(path).resolve() not in found:
            found.append(Path(path).resolve())
    return found


def watch(
    rebuilder: Rebuilder, stop: threading.Event, config_file: Path | None = None, ready: threading.Event | None = None
) -> None:
    """Rebuild after each batch of changes until `stop` is set; `ready` is set once changes are being watched."""
    import watchfiles

    config_file = config_file.resolve() if config_file else None
    while not stop.is_set():
        config = rebuilder.config
        # The build's own writes are not edits, even when the output or state folder is inside a watched one.
        ignore = [f"{Path(p).resolve()}{os.sep}" for p in (config.out_dir, config.state_dir)]
        changes_of = watchfiles.watch(
            *watch_paths(config, config_file), watch_filter=watchfiles.DefaultFilter(ignore_paths=ignore),
            stop_event=stop, rust_timeout=500, yield_on_timeout=True, raise_interrupt=False,
        )  # fmt: skip
        for changes in changes_of:
            if ready is not None:
                ready.set()  # the first yield (a change or a timeout) comes after the watch is in place
            if not changes:
                continue
            config_changed = config_file is not None and any(Path(p) == config_file for _, p in changes)
            rebuilder.rebuild(config_changed)
            if config_changed:
                break  # watch again: folders may have moved, and editors replace the file (a new inode)


@dataclass
class Options:
    host: str = "127.0.0.1"
    port: int = 8000
    watch: bool = True
    config_file: Path | None = None  # watched, when it exists


def serve(
    load_config: Callable[[], Config],
    build_site: Callable[[Config, Callable[[], None]], object],
    options: Options,
    announce: Callable[[str], None] = lambda url: print(f"Serving {url} (Ctrl-C to stop)", flush=True),
) -> None:
    """Build, serve the output folder and rebuild on change, until Ctrl-C."""
    config = load_config()
    server = PreviewServer(config.out_dir, config.base_url, options.host, options.port)
    try:
        build_site(config, lambda: None)  # a first build that fails is an error, not a preview of nothing
        repoint = lambda new: server.point_at(new.out_dir, new.base_url)  # noqa: E731
        rebuilder = Rebuilder(load_config, build_site, server.reloads, repoint, config)
        stop = threading.Event()
        if options.watch:
            threading.Thread(target=watch, args=(rebuilder, stop, options.config_file), daemon=True).start()
        announce(server.url)
        try:
            server.serve_forever()
        except KeyboardInterrupt:
            pass
        finally:
            stop.set()
            server.reloads.close()
    finally:
        server.server_close()
