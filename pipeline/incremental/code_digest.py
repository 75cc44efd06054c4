"""The digest of the code that made something: a value made by other code is not this code's.

A build's stamp, the site's shared state and each stored index name the code
that made them by the digest of the package's source (and of a wiki's own
pass module, which lives outside it), read once a process.
"""

from __future__ import annotations

import hashlib
import sys
from pathlib import Path

import pipeline

_CODE: dict[str, str] = {}  # module -> its digest; "" -> the package's
_PACKAGE = Path(pipeline.__file__).resolve().parent


def code_digest(module: str = "") -> str:
    """sha256 of the source of the pipeline package, and of `module` too when it lives elsewhere (a wiki's
    own pass). The package is read once a process, however many of its modules ask."""
    if module not in _CODE:
        _CODE[module] = _outside_digest(module) if module else _package_digest()
    return _CODE[module]


def _package_digest() -> str:
    digest = hashlib.sha256()
    for file in sorted(_PACKAGE.rglob("*.py")):
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _outside_digest(module: str) -> str:
    own = getattr(sys.modules.get(module), "__file__", None)
    if own is None or _PACKAGE in Path(own).resolve().parents:  # one of the package's: its source is in it
        return code_digest()
    return hashlib.sha256(code_digest().encode() + Path(own).read_bytes()).hexdigest()

