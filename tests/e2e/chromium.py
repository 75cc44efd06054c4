"""What the browser tests share: headless Chromium driven over the DevTools protocol, and `pipeline serve` run on a
small wiki.

Chromium is driven through a pipe (`--remote-debugging-pipe`: JSON messages separated by NUL bytes on file
descriptors 3 and 4), so the tests need no driver binary, no port and no Python package beyond the standard library.
"""

from __future__ import annotations

import base64
import contextlib
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
from typing import Iterator

import pytest

from pipeline.commands.serve import SEARCH_READY

CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--remote-debugging-pipe",
]  # fmt: skip
DEADLINE = 20.0  # seconds for any one step; the whole test takes a few
ATTEMPT = 2.0  # seconds a page is asked about a condition before it is asked again
# key -> (code, Windows virtual key code, text typed): what Input.dispatchKeyEvent needs to act as a real key.
KEYS = {
    "/": ("Slash", 191, "/"), "k": ("KeyK", 75, "k"), "ArrowDown": ("ArrowDown", 40, ""),
    "Enter": ("Enter", 13, "\r"), "Escape": ("Escape", 27, ""),
}  # fmt: skip
CONTROL = 2  # the Ctrl bit of Input.dispatchKeyEvent's `modifiers`


def missing(message: str):
    """A tool the browser tests need is not installed: a clear failure under CI, where .ci/run installs it; a skip
    elsewhere (a developer's machine without it)."""
    if os.environ.get("CI") == "true":
        pytest.fail(message)
    pytest.skip(message)


def chromium() -> str:
    """The Chromium binary."""
    found = shutil.which("chromium") or ("/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None)
    return found or missing("Chromium is not installed (Debian: apt-get install chromium; .ci/run installs it)")


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
        answer = self.page("Page.navigate", url=url)
        if answer.get("errorText"):  # refused or aborted: said now, not as a page that never shows what is asked
            raise AssertionError(f"{url}: {answer['errorText']}")

    def open(self, url: str, ready: str = "document.readyState === 'complete'") -> None:
        """Go to `url` and wait until the new page (not the one left: it is marked; nor a blank or error page, which
        a navigation that did not happen would leave: http only) meets `ready`, a JavaScript condition."""
        self.evaluate("window.leaving = true")
        self.goto(url)
        self.wait_for(f"!window.leaving && location.protocol.startsWith('http') && ({ready})", f"{url} ready")

    def evaluate(self, expression: str, wait: float = DEADLINE):
        """The value of a JavaScript expression in the page (a promise is awaited); a thrown error fails the test."""
        answer = self.page("Runtime.evaluate", wait=wait, expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in answer:
            raise AssertionError(f"{expression[:200]}: {answer['exceptionDetails'].get('exception', answer)}")
        return answer["result"].get("value")

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

    def _middle(self, selector: str) -> dict:
        """The middle of the element, scrolled into view, once the page is loaded and nothing covers it."""
        return self.wait_for(
            f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
            " if (!e || document.readyState !== 'complete' || !searchReady()) return null;"
            " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
            " const x = r.x + r.width / 2, y = r.y + r.height / 2;"
            " return r.width && e.contains(document.elementFromPoint(x, y)) ? {x, y} : null; })()",
            f"a visible {selector}",
        )

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element."""
        box = self._middle(selector)
        for kind in ("mousePressed", "mouseReleased"):
            self.page("Input.dispatchMouseEvent", type=kind, x=box["x"], y=box["y"], button="left", clickCount=1)

    def hover(self, selector: str) -> None:
        """The mouse moved onto the middle of the element."""
        box = self._middle(selector)
        self.page("Input.dispatchMouseEvent", type="mouseMoved", x=box["x"], y=box["y"])

    def press(self, key: str, modifiers: int = 0) -> None:
        """A real key press (down and up) on the focused element; `modifiers`: CONTROL for Ctrl-`key`."""
        code, number, text = KEYS[key]
        typed = {"text": text} if text and not modifiers else {}
        for kind in ("keyDown", "keyUp"):
            self.page("Input.dispatchKeyEvent", type=kind, key=key, code=code, windowsVirtualKeyCode=number,
                      modifiers=modifiers, **(typed if kind == "keyDown" else {}))  # fmt: skip

    def type(self, selector: str, text: str) -> None:
        self.wait_for(f"document.querySelector({json.dumps(selector)})", f"the field {selector}")
        self.page("Runtime.evaluate", expression=f"document.querySelector({json.dumps(selector)}).focus()")
        self.page("Input.insertText", text=text)

    def screen(self, width: int, height: int, mobile: bool = False, scheme: str = "light") -> None:
        """The page's window size (a phone's when `mobile`: the viewport meta obeyed) and the system's colour
        scheme."""
        self.page("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=mobile)
        self.page("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": scheme}])

    def screenshot(self, path: Path) -> None:
        path.write_bytes(base64.b64decode(self.page("Page.captureScreenshot", format="png")["data"]))

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


@contextlib.contextmanager
def serve(content: Path, root: Path) -> Iterator[str]:
    """`pipeline serve` over the wiki in `content`, its state and site below `root`, on a free loopback port; yields
    its URL."""
    command = [sys.executable, "-m", "pipeline", "serve", "--content", str(content), "--state", str(root / "state"),
               "--out", str(root / "site"), "--port", "0", "--no-watch", "--workers", "1"]  # fmt: skip
    # cwd: root, so no wiki.yaml of the repository is read.
    server = subprocess.Popen(command, cwd=root, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in server.stdout], daemon=True).start()
    seen, url = [], None
    try:
        while url is None:
            seen.append(lines.get(timeout=DEADLINE * 3))
            match = re.match(r"Serving (http://127\.0\.0\.1:\d+/)", seen[-1])
            url = match.group(1) if match else None
        # Its search index is made after the pages, in the background: a page opened before it would have no search.
        while 'id="search"' in (root / "site" / "index.html").read_text(encoding="utf-8") and SEARCH_READY not in seen[-1]:
            seen.append(lines.get(timeout=DEADLINE * 3))
        yield url
    except queue.Empty:
        raise AssertionError(f"pipeline serve printed no URL: {''.join(seen)}") from None
    finally:
        server.terminate()
        server.wait(timeout=DEADLINE)
