"""Build progress on the console: a tqdm bar on a terminal, nothing at all otherwise (CI logs stay line-oriented)."""

from __future__ import annotations

import sys


class Progress:
    """The stages of a build. This base class shows nothing."""

    def stage(self, name: str, total: int = 0) -> None:
        pass

    def advance(self, count: int = 1) -> None:
        pass

    def close(self) -> None:
        pass


SILENT = Progress()


class Bar(Progress):
    """One tqdm bar per stage, on stderr, cleared when the stage ends."""

    def __init__(self) -> None:
        self.bar = None

    def stage(self, name: str, total: int = 0) -> None:
        from tqdm import tqdm

        self.close()
        self.bar = tqdm(total=total or None, desc=name, unit="", leave=False, file=sys.stderr, dynamic_ncols=True)

    def advance(self, count: int = 1) -> None:
        if self.bar is not None:
            self.bar.update(count)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


def progress_for(stream=None) -> Progress:
    """A bar when `stream` (stdout) is a terminal, else silence."""
    stream = stream or sys.stdout
    return Bar() if stream.isatty() else SILENT
