"""A wiki's own code, named in wiki.yaml: loaded from its file as it is now."""

from __future__ import annotations

import importlib.util
import os
import py_compile

import pytest

from pipeline.errors import ConfigError
from pipeline.runtime.named_code import import_named


def test_a_file_rewritten_in_the_same_second_at_the_same_size_runs_its_new_code(tmp_path):
    path = tmp_path / "probe.py"
    path.write_text("VERSION = 1\n")
    # The bytecode cache Python would trust: same size, same modification time as the rewritten source.
    py_compile.compile(str(path), cfile=importlib.util.cache_from_source(str(path)), doraise=True)
    stat = path.stat()
    path.write_text("VERSION = 2\n")
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    assert import_named(str(path), "passes: pass").VERSION == 2


def test_a_file_is_a_module_of_its_own_name_and_a_missing_one_is_one_line(tmp_path):
    path = tmp_path / "ext.py"
    path.write_text("from dataclasses import dataclass\n@dataclass\nclass Thing:\n    x: int = 1\n")
    module = import_named(str(path), "markdown: extension")
    assert module.Thing().x == 1 and module.__file__ == str(path)
    with pytest.raises(ConfigError, match=r"^markdown: extension file .*gone\.py not found$"):
        import_named(str(tmp_path / "gone.py"), "markdown: extension")
