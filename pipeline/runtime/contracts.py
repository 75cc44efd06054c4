"""JSON Schemas compiled to validating functions once: per process, and as bytecode between processes.

fastjsonschema writes a Python function for a schema and compiles it: milliseconds for each
pass contract, all of which an edit build paid in full (each of
its few jobs is of another pass) and the preview paid at every rebuild (each loads the passes
anew). A process keeps what it compiled, by the schema's digest; given a folder, the compiled
code is kept there too (the state folder's `contracts-compiled`, as Jinja keeps its templates),
and loading it back takes a tenth of a millisecond. The key covers the schema, fastjsonschema's
version and Python's bytecode format; what does not load is compiled again.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import marshal
import os
import re
from pathlib import Path
from typing import Callable

COMPILED_CONTRACTS = "contracts-compiled"  # in the state folder
Validator = Callable[[object], object]  # returns its argument; raises JsonSchemaValueException (a ValueError)

_COMPILED: dict[str, Validator] = {}
_ENTRY = re.compile(r"^def (\w+)\(", re.MULTILINE)  # the schema's own function is the first the code defines


def compiled(schema: dict, folder: Path | None = None) -> Validator:
    """The validating function of `schema`, compiled once (raises JsonSchemaDefinitionException for a bad one)."""
    import fastjsonschema  # here, not above: a build whose jobs run in another process validates nothing

    try:
        text = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):  # not JSON (a custom pass's): no digest names it, compiled each time
        return fastjsonschema.compile(schema)
    key = hashlib.sha256(f"{fastjsonschema.VERSION}|{importlib.util.MAGIC_NUMBER.hex()}|{text}".encode()).hexdigest()
    validator = _COMPILED.get(key)
    if validator is None:
        validator = _COMPILED[key] = _load(key, folder) or _compile(schema, key, folder)
    return validator


def _compile(schema: dict, key: str, folder: Path | None) -> Validator:
    import fastjsonschema

    source = fastjsonschema.compile_to_code(schema)
    name, code = _ENTRY.search(source).group(1), compile(source, f"<contract {key[:12]}>", "exec")
    if folder is not None:
        _keep(folder / key, marshal.dumps((name, code)))
    return _function(name, code)


def _load(key: str, folder: Path | None) -> Validator | None:
    if folder is None:
        return None
    try:
        name, code = marshal.loads((folder / key).read_bytes())
        return _function(name, code)
    except Exception:  # missing, torn or not code: a cache, compiled again
        return None


def _function(name: str, code) -> Validator:
    namespace: dict = {}
    exec(code, namespace)  # the code fastjsonschema wrote: its imports, patterns and functions
    return namespace[name]


def _keep(path: Path, data: bytes) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}")
        temporary.write_bytes(data)
        os.replace(temporary, path)  # whole or not at all: a worker of another build may be reading it
    except OSError:  # a cache that cannot be written is compiled again next time
        pass
