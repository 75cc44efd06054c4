"""page_index: an example site output, `page-index.json`: every published page's URL, title, language and last update.

Enable it in wiki.yaml by path or dotted name (`emitters: [examples/page_index.py]`, or with options:
`emitters: [{examples/page_index.py: {file: pages.json}}]`), or from an installed package, with an entry
point in the group `pipeline.emitters` naming `EMITTER`. It has no `emit_changed`, so every build that
renders makes the index again (written only when its bytes changed): after an edit it is current too.
"""

import json

from pipeline.site.emitters.base import Emitter


def emit(site, out, file: str) -> None:
    base = site.settings.base_url
    pages = [
        {"url": f"{base}{page.url}", "title": page.title, "lang": page.lang, "updated": page.updated}
        for page in site.model.articles
        if not page.draft
    ]
    out.put(file, json.dumps({"pages": pages}, ensure_ascii=False, indent=1).encode())


EMITTER = Emitter("page_index", emit, version=1, defaults={"file": "page-index.json"})
