"""Live reload for the preview: what open pages are told, and the script that listens.

HTML responses get a small script, added on the way out (never written into
the output folder), that listens to server-sent events on a reserved path
(`EVENTS`): `reload` after each good rebuild, and `problems`, the lines
(`--strict`'s warnings) the script shows over the page until a build has none.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator, Sequence

# No site URL segment starts with a dot (url_slug strips them, hidden files are never captured or
# copied), so nothing under this path can be a file of the site.
RESERVED = "/.pipeline-serve/"
EVENTS = f"{RESERVED}events"
KEEPALIVE = 15.0  # seconds between SSE comments, so a closed tab's thread notices and ends
# The problems come from the content (file names, messages): the script sets them as text, never as HTML.
LIVE_SCRIPT = (
    '<script data-pipeline-serve>(function(){var s=new EventSource("' + EVENTS + '?since=%d"),box=null;'
    's.addEventListener("reload",function(){s.close();location.reload();});'
    's.addEventListener("problems",function(e){var p=JSON.parse(e.data);if(box)box.remove();box=null;'
    'if(!p.length)return;box=document.createElement("pre");box.setAttribute("data-pipeline-serve","problems");'
    'box.style.cssText="position:fixed;left:0;right:0;bottom:0;z-index:2147483647;max-height:40vh;overflow:auto;'
    'margin:0;padding:.75em 1em;background:#fff4f4;color:#7f1d1d;border-top:3px solid #c62828;'
    'font:13px/1.4 monospace;white-space:pre-wrap";box.textContent=p.join("\\n");document.body.appendChild(box);});'
    "})();</script>\n"
)


class Reloads:
    """What open pages are told: a reload after each good rebuild, and the last build's problems.

    One change counter covers both, so every event stream waiting on it wakes on either.
    """

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self.generation = 0
        self.problems: tuple[str, ...] = ()  # lines shown over every open page (`--strict`'s warnings)
        self.changes = 0
        self.closed = False

    def publish(self) -> int:
        with self._changed:
            self.generation += 1
            self._notify()
            return self.generation

    def report(self, problems: Sequence[str]) -> None:
        with self._changed:
            if tuple(problems) != self.problems:
                self.problems = tuple(problems)
                self._notify()

    def _notify(self) -> None:
        self.changes += 1
        self._changed.notify_all()

    def wait(self, seen: int, timeout: float) -> None:
        """Until the change count differs from `seen`, or `timeout` seconds, or the close."""
        with self._changed:
            self._changed.wait_for(lambda: self.changes != seen or self.closed, timeout)

    def close(self) -> None:
        with self._changed:
            self.closed = True
            self._changed.notify_all()

    def messages(self, since: str | None) -> Iterator[str]:
        """One page's event stream: `reload` after each good rebuild (at once when `since`, the generation
        the page was served at, is not the current one), `problems` when they change, a ping when idle."""
        seen = self.generation if since in (None, str(self.generation)) else None
        shown: tuple[str, ...] = ()
        message = "retry: 1000\n: connected\n\n"
        while not self.closed:
            changes = self.changes  # read before what changed: a change after this ends the wait at once
            if self.problems != shown:
                shown = self.problems
                message += f"event: problems\ndata: {json.dumps(shown)}\n\n"
            if self.generation != seen:
                seen = self.generation
                message += f"event: reload\ndata: {seen}\n\n"
            yield message or ": ping\n\n"
            message = ""
            self.wait(changes, KEEPALIVE)


def inject(html: bytes, generation: int) -> bytes:
    """`html` with the live-reload script before `</body>` (or at the end)."""
    script = (LIVE_SCRIPT % generation).encode()
    at = html.lower().rfind(b"</body>")
    return html[:at] + script + html[at:] if at >= 0 else html + script
