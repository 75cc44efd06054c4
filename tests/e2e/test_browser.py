"""End to end: headless Chromium against `pipeline serve` follows a wikilink, switches language and searches.

Chromium is driven over the DevTools protocol through a pipe (`--remote-debugging-pipe`: JSON messages
separated by NUL bytes on file descriptors 3 and 4), so the test needs no driver binary, no
port and no Python package beyond the standard library.
"""

from __future__ import annotations

import fcntl
import json
import os
import queue
import re
import select
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a whole wiki built: outside the fast tier

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--remote-debugging-pipe",
]  # fmt: skip
DEADLINE = 20.0  # seconds for any one step; the whole test takes a few
ATTEMPT = 2.0  # seconds a page is asked about a condition before it is asked again

SITE = {
    "index.md": "---\ntitle: Home\npaired_with: index.es.md\n---\n\nWelcome. Read about [[Gardening]].\n",
    "index.es.md": (
        "---\ntitle: Inicio\npaired_with: index.md\n---\n\nBienvenido. Lee sobre [[Gardening|jardinería]].\n"
    ),
    "gardening.md": "---\ntitle: Gardening\npaired_with: gardening.es.md\n---\n\nTomatoes need sunlight.\n",
    "gardening.es.md": "---\ntitle: Jardinería\npaired_with: gardening.md\n---\n\nLos tomates necesitan sol.\n",
    "compost.md": "---\ntitle: Compost\npaired_with: compost.es.md\n---\n\nWorms turn peelings into humus.\n",
    "compost.es.md": (
        "---\ntitle: Compostaje\npaired_with: compost.md\n---\n\nLas lombrices convierten las mondaduras en humus.\n"
    ),
}


def chromium() -> str:
    """The Chromium binary; a clear failure under CI, where .ci/run installs it; a skip elsewhere."""
    found = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    if found:
        return found
    message = "Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)"
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def high(fd: int) -> int:
    """The same pipe end on a descriptor above 9 (the original is closed)."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class ProtocolError(Exception):
    """Chromium answered a command with an error."""


class NoAnswer(AssertionError):
    """Chromium did not answer a command in time."""


class Browser:
    """One headless Chromium with one page, spoken to over the DevTools pipe."""

    def __init__(self, binary: str, profile: Path) -> None:
        to_browser, self._commands = os.pipe()
        self._answers, from_browser = os.pipe()
        # Chromium reads commands on fd 3 and writes answers on fd 4; bash puts the pipes there (dash
        # cannot: it only redirects one-digit descriptors), from numbers above 9 so none is 3 or 4 already.
        to_browser, from_browser = (high(fd) for fd in (to_browser, from_browser))
        script = f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser} {to_browser}<&- {from_browser}>&-'
        self.log = profile.parent / "chromium.log"
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                ["bash", "-c", script, binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", "about:blank"],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, pass_fds=(to_browser, from_browser),
            )  # fmt: skip
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next_id = b"", 0
        try:
            target = self.command("Target.createTarget", url="about:blank")["targetId"]
            self.session = self.command("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        except BaseException:
            self.close()
            raise

    def command(self, method: str, session: str | None = None, wait: float = DEADLINE, **params) -> dict:
        """Send one command and return its result (events, and late answers to earlier commands, are dropped)."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._commands, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + wait
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next_id:
                if "error" in answer:
                    raise ProtocolError(f"{method}: {answer['error'].get('message')}")
                return answer["result"]

    def _read(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._answers], [], [], max(0.0, deadline - time.monotonic()))
            if not ready:
                raise NoAnswer(f"Chromium did not answer in time; see {self.log}")
            chunk = os.read(self._answers, 1 << 16)
            if not chunk:
                raise AssertionError(f"Chromium exited; see {self.log}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def page(self, method: str, wait: float = DEADLINE, **params) -> dict:
        return self.command(method, self.session, wait, **params)

    def goto(self, url: str) -> None:
        self.page("Page.navigate", url=url)

    def wait_for(self, condition: str, what: str):
        """Wait (bounded) until the JavaScript `condition` is truthy in the page; return its value.

        The page polls for up to ATTEMPT seconds per question. A navigation destroys the page that was
        asked (an error, or no answer at all from a page put in the back-forward cache), so the
        question is asked again, of the new page, until the deadline.
        """
        script = f"""new Promise((resolve, reject) => {{
            const searchReady = () => !document.getElementById("search") || document.querySelector("#search input");
            const started = performance.now();
            const poll = () => {{
                let value; try {{ value = ({condition}); }} catch (e) {{ value = null; }}
                if (value) return resolve(value);
                if (performance.now() - started > {ATTEMPT * 1000}) return reject(new Error("not yet"));
                setTimeout(poll, 25);
            }};
            poll();
        }})"""
        deadline = time.monotonic() + DEADLINE
        while time.monotonic() < deadline:
            try:
                answer = self.page("Runtime.evaluate", wait=ATTEMPT + 1, expression=script, awaitPromise=True,
                                   returnByValue=True)  # fmt: skip
            except (ProtocolError, NoAnswer):
                continue
            if "exceptionDetails" not in answer:
                return answer["result"].get("value")
        raise AssertionError(f"not seen within {DEADLINE}s: {what} ({condition})")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element, once the page is loaded and nothing covers it."""
        box = self.wait_for(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e || document.readyState !== 'complete' || !searchReady()) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " const x = r.x + r.width / 2, y = r.y + r.height / 2;"
            " return r.width && e.contains(document.elementFromPoint(x, y)) ? {x, y} : null; })()",
            f"a visible {selector}",
        )
        for kind in ("mousePressed", "mouseReleased"):
            self.page("Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)

    def type(self, selector: str, text: str) -> None:
        self.wait_for(f"document.querySelector({json.dumps(selector)})", f"the field {selector}")
        self.page("Runtime.evaluate", expression=f"document.querySelector({json.dumps(selector)}).focus()")
        self.page("Input.insertText", text=text)

    def close(self) -> None:
        try:
            self.command("Browser.close")
        except (AssertionError, OSError, ProtocolError):
            pass
        try:
            self.process.wait(timeout=DEADLINE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        os.close(self._commands)
        os.close(self._answers)


@pytest.fixture
def served(tmp_path):
    """`pipeline serve` over the inline SITE on a free loopback port; yields its URL."""
    content = tmp_path / "content"
    for name, text in SITE.items():
        (content / name).parent.mkdir(parents=True, exist_ok=True)
        (content / name).write_text(text, encoding="utf-8")
    command = [sys.executable, "-m", "pipeline", "serve", "--content", str(content), "--state", str(tmp_path / "state"),
               "--out", str(tmp_path / "site"), "--port", "0", "--no-watch", "--workers", "1"]  # fmt: skip
    # cwd: tmp_path, so no wiki.yaml of the repository is read.
    server = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in server.stdout], daemon=True).start()
    seen, url = [], None
    try:
        while url is None:
            line = lines.get(timeout=DEADLINE * 3)  # the first build runs Pagefind too
            seen.append(line)
            match = re.match(r"Serving (http://127\.0\.0\.1:\d+/)", line)
            url = match.group(1) if match else None
        yield url
    except queue.Empty:
        raise AssertionError(f"pipeline serve printed no URL: {''.join(seen)}") from None
    finally:
        server.terminate()
        server.wait(timeout=DEADLINE)


@pytest.fixture
def browser(tmp_path):
    binary = chromium()
    browser = Browser(binary, tmp_path / "profile")
    yield browser
    browser.close()


def test_wikilink_language_switch_and_search(served, browser):
    started = time.monotonic()
    browser.goto(served)
    browser.wait_for("document.readyState === 'complete' && document.title.startsWith('Home')", "the home page")

    browser.click("a.wikilink[href='/gardening/']")
    browser.wait_for("location.pathname === '/gardening/' && document.querySelector('h1').textContent === 'Gardening'",
                     "the wikilink's target page")  # fmt: skip

    browser.click(".language-switcher a[hreflang='es']")
    assert browser.wait_for("location.pathname === '/es/gardening/' && document.documentElement.lang",
                            "the Spanish page") == "es"  # fmt: skip
    assert browser.wait_for("document.querySelector('h1').textContent", "the Spanish title") == "Jardinería"

    browser.type("#search input.pagefind-ui__search-input", "humus")  # in both languages
    hrefs = browser.wait_for(
        "(() => { const links = [...document.querySelectorAll('.pagefind-ui__result-link')]"
        ".map(a => a.getAttribute('href')); return links.length ? links : null; })()",
        "a search result",
    )
    assert hrefs == ["/es/compost/"]  # the Spanish index only: not /compost/
    browser.click(".pagefind-ui__result-link")
    browser.wait_for("location.pathname === '/es/compost/' && document.documentElement.lang === 'es'", "the result")
    assert time.monotonic() - started < 30


@pytest.fixture
def static(tmp_path):
    """A plain static server (standard library) over `tmp_path / "site"`, as a host would serve the output; yields its URL."""
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    (tmp_path / "site").mkdir()
    quiet = type("Quiet", (SimpleHTTPRequestHandler,), {"log_message": lambda self, *args: None})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(quiet, directory=str(tmp_path / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_search_finds_pages_in_every_shard_of_the_page_s_language(tmp_path, static, browser, monkeypatch):
    from pipeline.build import build
    from pipeline.config import Config
    from pipeline.site import shards

    monkeypatch.setattr(shards, "SHARD_PAGES", 1)  # a shard a page, or nearly: hashes may share one
    content = tmp_path / "content"
    content.mkdir()
    for n in range(4):
        (content / f"bed{n}.md").write_text(f"---\ntitle: Bed {n}\n---\n\nRaised bed {n} holds loam.\n")
    (content / "cama.es.md").write_text("---\ntitle: Cama\n---\n\nLa cama tiene loam.\n")
    config = Config(content_dir=content, state_dir=tmp_path / "state", out_dir=tmp_path / "site", search=True)
    assert build(config, workers=1, site=True).site.indexed
    assert len(list((config.out_dir / "pagefind" / "en").iterdir())) >= 2  # merged, not one bundle
    browser.goto(static + "bed0/")
    browser.wait_for("document.readyState === 'complete' && document.title.startsWith('Bed 0')", "a page")
    browser.type("#search input.pagefind-ui__search-input", "loam")  # in every page, both languages
    hrefs = browser.wait_for(
        "(() => { const links = [...document.querySelectorAll('.pagefind-ui__result-link')]"
        ".map(a => a.getAttribute('href')); return links.length === 4 ? links : null; })()",
        "four search results",
    )
    assert sorted(hrefs) == ["/bed0/", "/bed1/", "/bed2/", "/bed3/"]  # the English shards only: not /es/cama/
