"""Attachments shown where a page embeds them: images, audio, video and PDFs as the elements a reader expects.

`![[photo.png]]`, `![[photo.png|300]]`, `![[photo.png|300x200]]` and `![[photo.png|A caption]]` (a size, or
the alt text, as Obsidian reads the part after `|`), `![[song.mp3]]`, `![[clip.mp4]]`, `![[guide.pdf#page=2]]`;
any other file embedded is a link to it. Every element is phrasing content, so an embed inside a sentence
keeps the paragraph valid HTML. Only the file's published URL is used: nothing is fetched.
"""

from __future__ import annotations

import posixpath
import re

IMAGE = frozenset({"png", "jpg", "jpeg", "gif", "webp", "svg", "avif", "bmp", "ico", "tif", "tiff"})
AUDIO = frozenset({"mp3", "wav", "m4a", "flac", "ogg", "oga", "opus", "3gp", "aac"})
VIDEO = frozenset({"mp4", "webm", "ogv", "mov", "mkv", "m4v"})
SIZE = re.compile(r"^\s*(\d{1,5})(?:\s*x\s*(\d{1,5}))?\s*$")


def kind_of(name: str) -> str:
    """`image`, `audio`, `video`, `pdf` or `file`, by the name's extension."""
    extension = name.rpartition(".")[2].lower()
    for kind, extensions in (("image", IMAGE), ("audio", AUDIO), ("video", VIDEO), ("pdf", {"pdf"})):
        if extension in extensions:
            return kind
    return "file"


def media_html(href: str, target: str, label: str | None, fragment: str | None, escape) -> str:
    """The element embedding the file published at `href` (`target`: the name as written; `escape`: the
    renderer's HTML escaping)."""
    name = posixpath.basename(target)
    size = SIZE.match(label or "")
    text = name if size or not label else label
    src = escape(href + (f"#{fragment}" if fragment else ""))
    dimensions = "".join(f' {attribute}="{value}"' for attribute, value in zip(("width", "height"), size.groups()) if value) if size else ""
    fallback = f'<a href="{src}">{escape(text)}</a>'
    kind = kind_of(name)
    if kind == "image":
        return f'<img src="{src}" alt="{escape(text)}"{dimensions} loading="lazy">'
    if kind == "audio":
        return f'<audio controls preload="metadata" src="{src}" title="{escape(text)}">{fallback}</audio>'
    if kind == "video":
        return f'<video controls preload="metadata" src="{src}" title="{escape(text)}"{dimensions}>{fallback}</video>'
    if kind == "pdf":
        return f'<object class="pdf" data="{src}" type="application/pdf"{dimensions}>{fallback}</object>'
    return f'<a class="attachment" href="{src}">{escape(text)}</a>'
