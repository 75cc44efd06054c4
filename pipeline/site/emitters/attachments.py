"""The wiki's own files (images, PDFs, audio, video...): each published at its path in the content folder.

The bytes come from the state folder, where the capture keeps them by hash (`content/attachments.py`), so the
output never depends on the content folder changing meanwhile; a file the last build copied, unchanged, is
not copied again, and a big one is copied in chunks (`SiteWriter.copy`).

Content is untrusted: a file a browser would run as part of the site (HTML, scripts, style sheets) is not
published, nor one that would take the place of another output's file (the theme's, the search index's, the
sitemap); each is one warning of the build, and stays captured.
"""

from __future__ import annotations

from pipeline.content.attachments import attachment_file
from pipeline.site.emitters.base import Emitter
from pipeline.urls import runs_in_browser

# Put by outputs that run after this one (they list the pages), or made after every file is in place.
LATER = ("sitemap.xml", "pagefind/")


def emit(site, out) -> None:
    if not site.attachments:  # most wikis of text alone: no list of every file to make
        return
    taken, left_out = out.taken(), []
    for path, sha256 in sorted(site.attachments.items()):
        if runs_in_browser(path) or path in taken or path.startswith(LATER):
            left_out.append(path)
            continue
        out.copy(path, attachment_file(site.config.state_dir, sha256), sha256)
    if left_out:
        out.after(lambda report: report.warnings.extend(
            f"{path}: not published: a browser would run it as part of the site, or it is another output's file"
            for path in left_out
        ))  # fmt: skip


EMITTER = Emitter("attachments", emit)
