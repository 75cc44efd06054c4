"""A stand-in for Pagefind in tests: `python fake_pagefind.py SITE BUNDLE [whole|disk-full]`.

It makes a bundle as whole as `bundle_check` asks (an entry counting the pages, metadata naming a
gzip fragment for each, scripts that end as scripts do), plus `pages.txt`: the pages it was given,
one a line, for the tests to read. `disk-full` writes what Pagefind wrote on a full disk, and
exits 0 as it did: a 0-byte entry and a cut `pagefind.js`.
"""

import gzip
import json
import os
import sys


def main(site: str, bundle: str, mode: str = "whole") -> None:
    found = (os.path.join(folder, name) for folder, _, files in os.walk(site) for name in files)
    pages = sorted(os.path.relpath(path, site) for path in found)
    os.makedirs(os.path.join(bundle, "fragment"), exist_ok=True)
    fragments = [f"en_{number + 1:07x}" for number in range(len(pages))]
    for name, page in zip(fragments, pages):
        _write(os.path.join(bundle, "fragment", f"{name}.pf_fragment"), gzip.compress(page.encode()))
    _write(os.path.join(bundle, "pagefind.en_00aa.pf_meta"), gzip.compress(" ".join(fragments).encode()))
    entry = {"version": "fake", "languages": {"en": {"hash": "en_00aa", "wasm": "en", "page_count": len(pages)}}}
    whole = mode == "whole"
    _write(os.path.join(bundle, "pagefind-entry.json"), json.dumps(entry).encode() if whole else b"")
    _write(os.path.join(bundle, "pagefind.js"), b"window.fakePagefind = {search: 1};\n" if whole else b"window.fake")
    _write(os.path.join(bundle, "pagefind-ui.js"), b"window.PagefindUI = function () {};\n")
    _write(os.path.join(bundle, "pagefind-ui.css"), b".pagefind-ui {}\n")
    _write(os.path.join(bundle, "pages.txt"), "\n".join(pages).encode())
    print(f"Total:\n  Indexed 1 language\n  Indexed {len(pages)} pages")


def _write(path: str, data: bytes) -> None:
    with open(path, "wb") as file:
        file.write(data)


if __name__ == "__main__":
    main(*sys.argv[1:])
