"""Random changes to a small wiki, for tests comparing an index made from the last read set's with one built anew."""

import random
from typing import Callable


def changed(before: dict, paths: list[str], draw: random.Random, make: Callable[[str, random.Random], object]) -> dict:
    """`before` (path -> file or record) after one to four changes, each a path made again by `make`,
    added, or removed; in path order."""
    now = dict(before)
    for _ in range(draw.randint(1, 4)):
        path = draw.choice(paths)
        if path in now and draw.random() < 0.3:
            del now[path]
        else:
            now[path] = make(path, draw)
    return dict(sorted(now.items()))
