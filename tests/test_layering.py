"""The module map in docs/architecture.md is the import order: each module imports only modules listed above it.

A map line names one module or a small group (`pipeline/runtime/build_lock.py, disk_full.py`: the names after
the first are in the first one's folder unless they start with `pipeline/`); modules on one line may import each
other. A folder entry (`pipeline/site/`) covers its package's modules that no line of their own names.
"""

from __future__ import annotations

import ast
import re

from conftest import REPO

MAP_LINE = re.compile(r"^(pipeline/\S.*?)\s{2,}\S")
PACKAGE = REPO / "pipeline"


def module_name(path) -> str:
    """pipeline/site/model.py -> pipeline.site.model; a package's __init__.py is the package."""
    parts = path.relative_to(REPO).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(path): path for path in sorted(PACKAGE.rglob("*.py"))}


def map_lines() -> list[tuple[str, list[str]]]:
    """(folder, module names) of each line of the module map; a folder entry's name ends in "/"."""
    architecture = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    block = architecture.split("## Module map", 1)[1].split("```", 2)[1]
    lines = []
    for line in block.splitlines():
        match = MAP_LINE.match(line)
        if not match:
            continue
        entries = [entry.strip() for entry in match.group(1).split(",")]
        folder = entries[0].rstrip("/") if entries[0].endswith("/") else entries[0].rsplit("/", 1)[0]
        names = []
        for entry in entries:
            path = entry if entry.startswith("pipeline/") else f"{folder}/{entry}"
            dotted = path.rstrip("/").removesuffix(".py").removesuffix("/__init__").replace("/", ".")
            names.append(dotted + "/" if path.endswith("/") else dotted)
        lines.append((folder, names))
    return lines


def layers() -> dict[str, int]:
    """Module name -> its line in the module map; a folder entry's rank goes to the modules no line names."""
    ranks: dict[str, int] = {}
    folders: dict[str, int] = {}
    for number, (_, names) in enumerate(map_lines()):
        for name in names:
            if name.endswith("/"):
                folders[name.removesuffix("/")] = number
            else:
                assert name in MODULES, f"the module map names {name}, which does not exist"
                ranks[name] = number
    for name in MODULES:
        owner = name if MODULES[name].name == "__init__.py" else name.rsplit(".", 1)[0]
        if name not in ranks and owner in folders:
            ranks[name] = folders[owner]
    return ranks


def imports_of(path) -> set[str]:
    """The package's modules `path` imports (`from pipeline.site import search` imports pipeline.site.search)."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("pipeline.")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "pipeline":
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                names.add(submodule if submodule in MODULES else node.module)
    return names


def test_the_map_names_every_module():
    """Every module has its line; a package's __init__ may go unnamed while it imports nothing of the package."""
    ranks = layers()
    unnamed = [
        str(path.relative_to(REPO))
        for name, path in MODULES.items()
        if name not in ranks and not (path.name == "__init__.py" and not imports_of(path))
    ]
    assert unnamed == [], "name these in the module map of docs/architecture.md"


def test_every_module_imports_only_modules_above_it():
    ranks = layers()
    wrong = []
    for name, path in MODULES.items():
        for target in imports_of(path):
            if target != name and ranks.get(target, -1) > ranks.get(name, -1):
                wrong.append(f"{path.relative_to(REPO)} imports {target}")
    assert wrong == []


def test_each_folder_is_one_stretch_of_the_map():
    """A folder's lines follow one another: the map reads as layers, each folder one of them."""
    folders = [folder for folder, _ in map_lines()]
    for folder in set(folders) - {"pipeline"}:
        first, last = folders.index(folder), len(folders) - 1 - folders[::-1].index(folder)
        assert set(folders[first:last + 1]) == {folder}, f"{folder}'s lines are apart in the module map"
