"""Run shares of one job in forked processes: this process takes the first share.

Forked children inherit everything already loaded (passes and their
compiled contracts, the wiki index, the templates) without pickling it; only
their results travel back. Without `fork` (not on Linux), every share runs
here, one after another.
"""

from __future__ import annotations

import multiprocessing
import os
import queue
import traceback
from typing import Callable, TypeVar

Share = TypeVar("Share")
Result = TypeVar("Result")


class ForkedError(RuntimeError):
    """A forked share raised, or its process died before sending a result."""


def fork_map(function: Callable[[Share], Result], shares: list[Share]) -> list[Result]:
    """`[function(share) for share in shares]`, the shares after the first in forked processes."""
    if len(shares) <= 1 or not hasattr(os, "fork"):
        return [function(share) for share in shares]
    context = multiprocessing.get_context("fork")
    results = context.Queue()
    children = [
        context.Process(target=_child, args=(function, share, index, results))
        for index, share in enumerate(shares[1:], start=1)
    ]
    for child in children:
        child.start()
    found = {0: function(shares[0])}
    while len(found) < len(shares):
        try:
            index, ok, value = results.get(timeout=0.5)
        except queue.Empty:
            if not any(child.is_alive() for child in children) and results.empty():
                raise ForkedError("a forked process died before sending its result") from None
            continue
        if not ok:
            raise ForkedError(value)
        found[index] = value
    for child in children:
        child.join()
    return [found[index] for index in range(len(shares))]


def fork_each(function: Callable[[Share], Result], items: list[Share], shares: int) -> list[Result]:
    """`[function(item) for item in items]`, the items dealt round-robin to `shares` processes."""
    parts = fork_map(lambda share: [function(item) for item in items[share::shares]], list(range(shares)))
    results: list = [None] * len(items)
    for share, part in enumerate(parts):
        results[share::shares] = part
    return results


def _child(function, share, index: int, results) -> None:
    try:
        results.put((index, True, function(share)))
    except BaseException:  # the parent raises it; a child must never exit silently
        results.put((index, False, traceback.format_exc()))
