"""Code a wiki names in wiki.yaml: a module by dotted name or `.py` path, and what an entry-point group declares.

The extension points (Markdown extensions, passes, site emitters) each take a
list of names from wiki.yaml; a name is a table's own, a module, or an
installed package's entry point. Whatever that code raises while it loads is
one line naming it (a ConfigError), never a traceback.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from pipeline.errors import ConfigError


def is_module(name: str) -> bool:
    """Whether a name in a wiki.yaml list is a module (a `.py` path or a dotted name) rather than a table's name."""
    return name.endswith(".py") or "/" in name or "." in name


def import_named(ref: str, what: str, prefix: str = "pipeline_named") -> ModuleType:
    """The module `ref` names: a dotted name, or a `.py` path (absolute: config.py made it so).

    `what` starts each error line (`markdown: extension`). A file's module is named `prefix` and a digest
    of its whole path, so two files of one name in different folders are two modules.
    """
    try:
        if not ref.endswith(".py"):
            return importlib.import_module(ref)
        path = Path(ref)
        name = f"{prefix}_{hashlib.sha256(str(path).encode()).hexdigest()[:12]}"
        if not path.is_file():
            raise ConfigError(f"{what} file {ref} not found")
        return run_file(name, path)
    except ConfigError:
        raise
    except Exception as exc:  # a wiki's own code: whatever it raises on import is one line naming it
        raise ConfigError(f"{what} module {ref!r} cannot be imported: {exc}") from None


def run_file(name: str, path: Path) -> ModuleType:
    """The module a `.py` file makes, registered as `name`, run from the file's bytes as they are now.

    Never from a cached `.pyc`: Python trusts one whose source has the same size and modification second, so a
    pass whose `version = 1` became `version = 2` within a second of the last load would run its old code.
    """
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    exec(compile(path.read_bytes(), str(path), "exec", dont_inherit=True), module.__dict__)
    return module


def entry_points(group: str, what: str) -> dict[str, object]:
    """name -> the object each entry point of `group` names, loaded; `what` starts each error line."""
    import importlib.metadata  # only when a wiki names something neither built in nor a module

    found = {}
    for entry in importlib.metadata.entry_points(group=group):
        try:
            found[entry.name] = entry.load()
        except Exception as exc:  # an installed package's code: one line naming it
            raise ConfigError(f"{what} entry point {entry.name!r} cannot be loaded: {exc}") from None
    return found


def unknown_name(ref: str, known: list[str], what: str) -> ConfigError:
    """The error for a name no table knows (`what`: `markdown: unknown extension`), with the closest known one."""
    import difflib  # only for a name that is nothing's

    close = difflib.get_close_matches(ref, known, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return ConfigError(f"{what} {ref!r}{hint}")
