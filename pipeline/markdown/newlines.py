"""The `normalize` core rule, done only when there is something to normalize.

markdown-it's own rule runs two regex substitutions over every source: one
replaces each `\\n` with itself, to catch `\\r\\n` and lone `\\r`. Wiki sources
rarely hold either, so a substring test first saves that pass over the text,
a noticeable share of a parse. The result is the same: line ends become `\\n`, NUL becomes
U+FFFD, as CommonMark asks.
"""

from __future__ import annotations


def normalize(state) -> None:
    """Replace `\\r\\n` and lone `\\r` with `\\n`, and NUL with U+FFFD, in `state.src`."""
    src = state.src
    if "\r" in src:
        src = src.replace("\r\n", "\n").replace("\r", "\n")
    if "\0" in src:
        src = src.replace("\0", "\ufffd")
    state.src = src


def newlines_plugin(md) -> None:
    """Put `normalize` in place of markdown-it's rule of that name."""
    md.core.ruler.at("normalize", normalize)
