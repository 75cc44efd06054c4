"""Whether a bundle Pagefind made is whole, before it replaces the last one and is recorded as indexed.

Pagefind exits 0 when it could not write its files: on a full disk it left a
0-byte `pagefind-entry.json` and a cut `pagefind.js`, and the build recorded
the shard as indexed, so no later build made it again. So a bundle is taken
only when every file in it has bytes; each gzip file (the index chunks,
fragments, metadata and WebAssembly) is a whole stream; the entry, the
script and the UI files the pages load are there; the entry parses and
its metadata names a fragment there for each page it counts
(`bundles.names`); it counts the pages Pagefind said it indexed, and no more
than it was given; and each script and style sheet ends as one does (the
minified ones end with `;`, `}`, `)` or a comment: one cut short almost
never does).
"""

from __future__ import annotations

import os
import re
import zlib
from pathlib import Path

from pipeline.runtime import jsonio
from pipeline.site import UI_FILES
from pipeline.site.bundles import ENTRY, names

REQUIRED = (ENTRY, "pagefind.js", *UI_FILES)  # what the site's pages load, and the loader lists
GZIP = b"\x1f\x8b"
TEXT = (".js", ".css")
TEXT_ENDS = (b";", b"}", b")", b"*/")
INDEXED = re.compile(r"Indexed (\d+) pages?\b")  # Pagefind's summary; its last is the total


def bundle_problem(bundle: Path, given: int, output: str = "") -> str | None:
    """What is wrong with the bundle Pagefind wrote at `bundle` from `given` pages (`output`: what it
    printed), as `file: problem`; None when it is whole."""
    for name in REQUIRED:
        if not (bundle / name).is_file():
            return f"{name}: missing"
    for folder, _, files in os.walk(bundle):
        for name in sorted(files):
            path = os.path.join(folder, name)
            with open(path, "rb") as file:
                data = file.read()
            problem = _file_problem(name, data)
            if problem:
                return f"{os.path.relpath(path, bundle)}: {problem}"
    if names(bundle) is None:
        return f"{ENTRY}: missing or unreadable, or a fragment of a page it counts is missing"
    languages = jsonio.loads((bundle / ENTRY).read_bytes())["languages"]  # read well by `names`
    counted = sum(int(about["page_count"]) for about in languages.values())
    reported = INDEXED.findall(output)
    if counted > given or (reported and int(reported[-1]) != counted):
        said = f", Pagefind said {reported[-1]}" if reported else ""
        return f"{ENTRY}: counts {counted} pages of the {given} given{said}"
    return None


def _file_problem(name: str, data: bytes) -> str | None:
    if not data:
        return "empty"
    if data[:2] == GZIP and not _whole_gzip(data):
        return "cut short"
    if name.endswith(TEXT) and not _ends_whole(data):
        return "cut short"
    return None


def _whole_gzip(data: bytes) -> bool:
    reader = zlib.decompressobj(wbits=31)  # gzip
    try:
        reader.decompress(data)
    except zlib.error:
        return False
    return reader.eof


def _ends_whole(data: bytes) -> bool:
    text = data.rstrip()
    return text.endswith(TEXT_ENDS) or text.rpartition(b"\n")[2].lstrip().startswith(b"//")
