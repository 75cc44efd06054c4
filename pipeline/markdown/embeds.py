"""Where embeds stand in the page: a note embedded in a paragraph becomes a block of its own.

A `div` cannot sit in a `<p>`: the paragraph is closed before a note's embed and opened again after it, and a
paragraph of embeds alone is the embeds themselves. A file embedded (an image, a video: `media.py`) is phrasing
content and stays in its sentence. A core rule, after the inline rules placed the links.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from pipeline.urls import is_attachment

if TYPE_CHECKING:
    from markdown_it.rules_core import StateCore


def embed_blocks(state: StateCore) -> None:
    """A note embedded in a paragraph is a block of its own: the paragraph is closed before it and opened again
    after it (a div cannot sit in a <p>), and a paragraph of embeds alone is the embeds themselves. A file
    (an image...) embedded stays in its sentence."""
    tokens, kept, index = state.tokens, [], 0
    while index < len(tokens):
        token = tokens[index]
        inline = tokens[index + 1] if index + 2 < len(tokens) else None
        if token.type == "paragraph_open" and inline is not None and inline.type == "inline" and inline.children and any(
            _note_embed(child) for child in inline.children
        ):
            kept += _split(token, inline, tokens[index + 2])
            index += 3
            continue
        kept.append(token)
        index += 1
    state.tokens = kept


def _note_embed(token) -> bool:
    return token.type == "wikilink_embed" and not is_attachment(token.meta["target"])


def _split(opening, inline, closing) -> list:
    """The paragraph's pieces: runs of its other content as paragraphs, each note embed alone, unwrapped."""
    pieces, run = [], []
    for child in [*inline.children, None]:
        if child is not None and not _note_embed(child):
            run.append(child)
            continue
        if any(not _blank(part) for part in run):
            pieces.append((opening.hidden, [part for part in run]))
        if child is not None:
            pieces.append((True, [child]))
        run = []
    made = []
    for number, (hidden, children) in enumerate(pieces):
        made += [_copy(opening, hidden, keep_attrs=number == len(pieces) - 1), _copy(inline, None, children=children),
                 _copy(closing, hidden)]  # fmt: skip
    return made


def _copy(token, hidden: bool | None, *, children: list | None = None, keep_attrs: bool = True):
    copied = copy.copy(token)
    if hidden is not None:
        copied.hidden = hidden
    if children is not None:
        copied.children = _trimmed(children)
    if not keep_attrs:  # an id (a block id) names one piece: the paragraph's last, where `^id` was written
        copied.attrs = {}
    return copied


def _trimmed(children: list) -> list:
    """The children without the line breaks a split leaves at either end."""
    start, end = 0, len(children)
    while start < end and children[start].type in ("softbreak", "hardbreak"):
        start += 1
    while end > start and children[end - 1].type in ("softbreak", "hardbreak"):
        end -= 1
    kept = children[start:end]
    for index, strip in ((0, str.lstrip), (len(kept) - 1, str.rstrip)):  # the spaces around the embed taken out
        if kept and kept[index].type == "text":
            kept[index] = copy.copy(kept[index])
            kept[index].content = strip(kept[index].content)
    return kept


def _blank(token) -> bool:
    return token.type in ("softbreak", "hardbreak") or (token.type == "text" and not token.content.strip())
