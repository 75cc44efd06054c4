"""The preview server of `pipeline serve`: serve the output folder, rebuild on change, reload open pages.

Three parts, each usable alone (the tests drive them one by one):

- `PreviewServer` serves only files inside the output folder, never the
  content or state folder, and answers only requests whose Host header no
  other site can have sent it (`preview/access.py`: what it may answer). Each
  request runs in a daemon thread of its own, and the listen queue holds
  many connections opened at once.
- Live reload (`preview/live.py`): HTML responses get a script that reloads the
  page when a rebuild finishes, and shows `--strict`'s warnings over it.
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
from collections.abc import Sequence
from dataclasses import dataclass
from errno import EADDRINUSE
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from socket import AF_INET6
from typing import Callable
from urllib.parse import parse_qs, urlsplit

from pipeline.config import Config
from pipeline.errors import UserError
from pipeline.preview.access import host_allowed, locate, site_path
from pipeline.preview.live import EVENTS, Reloads, inject
from pipeline.site.theme import builtin_root
from pipeline.urls import normalize_base

HTML = "text/html; charset=utf-8"
TEXT = "text/plain; charset=utf-8"
WRONG_HOST = b"403 Forbidden: this preview answers to localhost, IP addresses and its --host name only\n"


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
        if not host_allowed(self.headers.get("Host"), self.server.host):
            return self.send_bytes(HTTPStatus.FORBIDDEN, WRONG_HOST, TEXT, body)
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
        file, folder = locate(self.server.root, rel, self.server.refused)
        if file is None:
            return self.not_found(body, rel)
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

    def not_found(self, body: bool, rel: str = "") -> None:
        """The nearest 404.html up the path (a language's own, `es/404.html`, else the site's), as static hosts
        such as Cloudflare Pages serve it."""
        folders = rel.strip("/").split("/")[:-1]
        for depth in range(len(folders), -1, -1):
            page, _ = locate(self.server.root, "/".join([*folders[:depth], "404.html"]), self.server.refused)
            if page is not None:
                break
        if page is None:
            return self.send_bytes(HTTPStatus.NOT_FOUND, b"404 Not Found\n", TEXT, body)
        self.send_file(HTTPStatus.NOT_FOUND, page, body)

    def redirect(self, location: str) -> None:
        self.send_response(HTTPStatus.FOUND)
        self.send_header("Location", location)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def events(self, since: str | None, body: bool) -> None:
        """Server-sent events: see `Reloads.messages`."""
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.close_connection = True
        if not body:
            return
        try:
            for message in self.server.reloads.messages(since):
                self.wfile.write(message.encode())
                self.wfile.flush()
        except OSError:  # the page went away
            return


class PreviewServer(ThreadingHTTPServer):
    """An HTTP server over one output folder; binds loopback unless told otherwise."""

    daemon_threads = True  # open event streams must not keep the process alive, nor its close wait for them
    # Connections waiting to be accepted: a browser opens several per page, a link checker hundreds at
    # once; past the queue the kernel drops them and clients retry a second or more later, or time out.
    request_queue_size = 1024

    def __init__(
        self, out_dir: Path, base_url: str = "/", host: str = "127.0.0.1", port: int = 8000,
        refused: Sequence[Path] = (),
    ) -> None:  # fmt: skip
        self.address_family = AF_INET6 if ":" in host else self.address_family
        self.host = host  # the name the Host header may carry besides localhost and addresses
        self.reloads = Reloads()
        self.point_at(out_dir, base_url, refused)
        try:
            super().__init__((host, port), Handler)
        except (OSError, OverflowError, UnicodeError) as exc:  # in use, not this machine's, not a name...
            raise UserError(bind_error(host, port, exc)) from None

    def point_at(self, out_dir: Path, base_url: str, refused: Sequence[Path] = ()) -> None:
        """Serve `out_dir` under `base_url`'s path, never what is in `refused` (the config may change while serving)."""
        self.root = Path(out_dir)
        self.base_path = urlsplit(normalize_base(base_url)).path or "/"
        self.refused = tuple(Path(folder) for folder in refused)

    @classmethod
    def of(cls, config: Config, host: str, port: int) -> PreviewServer:
        """A server over `config`'s output folder (see `follow`)."""
        return cls(config.out_dir, config.base_url, host, port, never_served(config))

    def follow(self, config: Config) -> None:
        """Serve `config`'s output folder, never its content or state folder, wherever they are."""
        self.point_at(config.out_dir, config.base_url, never_served(config))

    @property
    def url(self) -> str:
        host, port = self.server_address[:2]
        host = f"[{host}]" if ":" in host else host
        return f"http://{host}:{port}{self.base_path}"

    def handle_error(self, request, client_address) -> None:
        """One line instead of the base class's traceback; a client that went away is no error."""
        error = sys.exc_info()[1]
        if not isinstance(error, ConnectionError):
            print(f"pipeline: warning: a request failed: {error!r}", file=sys.stderr, flush=True)

    def close(self) -> None:
        """Stop serving (call from another thread than `serve_forever`'s) and end the event streams."""
        self.shutdown()
        self.reloads.close()
        self.server_close()


def never_served(config: Config) -> tuple[Path, Path]:
    return (config.content_dir, config.state_dir)


def bind_error(host: str, port: int, error: Exception) -> str:
    """One line naming the address and why it cannot be served on."""
    where = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    cause = getattr(error, "strerror", None) or str(error)
    hint = " (another server has it: choose another --port, or --port 0 for a free one)"
    return f"cannot serve on {where}: {cause}{hint if getattr(error, 'errno', None) == EADDRINUSE else ''}"


# (config, called once the pages are written) -> the problems to show over open pages (`--strict`'s), if any
BuildSite = Callable[[Config, Callable[[], None]], Sequence[str] | None]


class Rebuilder:
    """One build at a time; a reload event after each good one, the last good site kept after a bad one."""

    def __init__(
        self,
        load_config: Callable[[], Config],
        build_site: BuildSite,
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
        The build's problems are known only once it returns: they reach open pages then.
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
                problems = self.build_site(self.config, reload)
            except UserError as exc:
                print(f"pipeline: error: {exc} (still serving the last good site)", file=sys.stderr, flush=True)
                return False
            except Exception:  # noqa: BLE001 - a broken edit or pass must not stop the preview
                traceback.print_exc()
                print("pipeline: error: rebuild failed (still serving the last good site)", file=sys.stderr)
                return False
            self.reloads.report(problems or ())
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
    build_site: BuildSite,
    options: Options,
    announce: Callable[[str], None] = lambda url: print(f"Serving {url} (Ctrl-C to stop)", flush=True),
    serving: Callable[[Reloads], None] = lambda reloads: None,
) -> list[str]:
    """Build, serve the output folder and rebuild on change, until Ctrl-C; the last build's problems. `serving` gets
    what reloads the open pages, once the first build is done and before the site is served."""
    config = load_config()
    server = PreviewServer.of(config, options.host, options.port)  # before building: a port in use fails at once
    try:
        # A first build that fails is an error, not a preview of nothing.
        server.reloads.report(build_site(config, lambda: None) or ())
        rebuilder = Rebuilder(load_config, build_site, server.reloads, server.follow, config)
        stop = threading.Event()
        if options.watch:
            threading.Thread(target=watch, args=(rebuilder, stop, options.config_file), daemon=True).start()
        serving(server.reloads)
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
    return list(server.reloads.problems)
