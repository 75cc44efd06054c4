"""Full-text search: Pagefind indexes the written site, one index per `<html lang>`.

The `pagefind[bin]` package ships the binary, so indexing needs no network
and the search works from any static host, or offline from the folder.
Only the article body (`data-pagefind-body`) is indexed.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

BUNDLE = "pagefind"
TIMEOUT = 600


def index_site(out_dir: Path) -> str | None:
    """Index `out_dir` into `out_dir/pagefind/`; None when done, else one line saying why not."""
    command = [sys.executable, "-m", "pagefind", "--site", str(out_dir), "--output-subdir", BUNDLE, "--silent"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"search index not built: {exc}"
    if done.returncode != 0:
        last = (done.stderr.strip() or done.stdout.strip() or f"exit status {done.returncode}").splitlines()[-1]
        if "No module named pagefind" in last or "Could not find" in last:
            return "search index not built: the Pagefind binary is missing (pip install 'pagefind[bin]')"
        return f"search index not built: {last}"
    return None


def has_index(out_dir: Path) -> bool:
    return (Path(out_dir) / BUNDLE / "pagefind-ui.js").is_file()
