"""What a process frees as it goes, by how long it lives.

A command-line process is short: `cli.entry` makes it `short_lived`, and ends
it without tearing down its heap. Such a process runs without the cyclic
garbage collector (a build makes almost none, and each full collection walked
every live object again: see `build.collector_paused`), and holds to its end
what a build is done with before it ends (`keep_until_exit`): freeing the site model of
a big wiki object by object was a noticeable part of an edit build when
the render returned, for memory nothing after it needs. A long-lived command
(`serve`, `spool drain`) makes itself `long_lived` again: it collects cyclic
garbage and frees what it is done with, build after build. Tests stay long-lived.
"""

from __future__ import annotations

import gc

_until_exit: list[tuple] = []
_short = False


def short_lived() -> None:
    """Run without the cyclic garbage collector, and hold what is left (`keep_until_exit`) to the end: the process
    must end without freeing its heap (`os._exit`)."""
    global _short
    _short = True
    gc.disable()


def long_lived() -> None:
    """Collect cyclic garbage and free what is left from now on, what was held so far included."""
    global _short
    _short = False
    _until_exit.clear()
    gc.enable()


def keep_until_exit(*values) -> None:
    """Hold `values` to the end of a short-lived process (they would be freed for nothing); else nothing."""
    if _short:
        _until_exit.append(values)
