"""What a build's forked helper loads ahead: nothing when its scan finds no edit, the checker, Pygments and the
lexers the changed files' code blocks name when it finds one."""

from __future__ import annotations

import os
import subprocess
import sys
import time

from pipeline.build import build
from pipeline.content.scan import Scan
from pipeline.jobs import helper_loading
from pipeline.runtime.forks import Afterwards

CODE = "# A\n\n```python\nx = 1\n```\n\n~~~ Rust title=\"x\"\nfn x() {}\n~~~\n\n```nolanguage\n```\n"


def test_a_scan_that_finds_nothing_changed_or_many_files_loads_nothing(make_wiki, monkeypatch):
    config = make_wiki({"a.md": "# A\n", "b.md": "# B\n"})
    for name in ("a.md", "b.md"):  # written long enough ago for the scan to vouch for them once captured
        os.utime(config.content_dir / name, (time.time() - 3600, time.time() - 3600))
    build(config, workers=1)
    assert isinstance(helper_loading.scan_then_load(config, str(config.state_db)), Scan)  # nothing changed
    for name in ("a.md", "b.md"):
        (config.content_dir / name).write_text("# Changed\n\nText.\n")
    monkeypatch.setattr(helper_loading, "FEW_CHANGED", 1)
    assert isinstance(helper_loading.scan_then_load(config, str(config.state_db)), Scan)  # a cold or CI build's
    monkeypatch.setattr(helper_loading, "FEW_CHANGED", 2)
    found = helper_loading.scan_then_load(config, str(config.state_db))
    assert isinstance(found, Afterwards) and sorted(found.value.unvouched) == ["a.md", "b.md"]


def test_an_edit_s_code_blocks_name_the_lexers_loaded_ahead(make_wiki):
    config = make_wiki({"a.md": "# A\n"})
    build(config, workers=1)
    (config.content_dir / "a.md").write_text(CODE)
    code = (
        "import sys\n"
        "from pathlib import Path\n"
        "from pipeline.config import Config\n"
        "from pipeline.jobs.helper_loading import scan_then_load\n"
        "from pipeline.markdown import code\n"
        f"config = Config(content_dir=Path({str(config.content_dir)!r}), state_dir=Path({str(config.state_dir)!r}))\n"
        "found = scan_then_load(config, str(config.state_db))\n"
        "assert 'jsonschema_rs' not in sys.modules and 'pygments' not in sys.modules  # not before it answers\n"
        "found.then()  # then, while the build captures and plans\n"
        "assert 'jsonschema_rs' in sys.modules\n"
        "assert 'pygments.lexers.python' in sys.modules and 'pygments.lexers.rust' in sys.modules\n"
        "assert code._lexer.cache_info().currsize == 3  # python, rust, and the unknown one as None\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=config.content_dir.parent)
