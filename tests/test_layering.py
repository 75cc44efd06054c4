"""The package map in the README is the import order: each module imports only modules listed above it."""

from __future__ import annotations

import ast
import re

from conftest import REPO

MAP_LINE = re.compile(r"^(pipeline/\S.*?)\s{2,}\S")


def layers() -> dict[str, int]:
    """Top-level module or package name -> its line in the README's package map."""
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    block = readme.split("### Package layout", 1)[1].split("```", 2)[1]
    found: dict[str, int] = {"__init__": 0, "theme": 0}  # the version string; the templates (no imports)
    for number, line in enumerate(block.splitlines()):
        match = MAP_LINE.match(line)
        if match:
            for entry in match.group(1).split(","):
                found[entry.strip().removeprefix("pipeline/").removesuffix("/").removesuffix(".py")] = number
    return found


def top_level(module: str) -> str:
    return module.split(".")[1] if module.count(".") else "__init__"


def imports_of(path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names if alias.name.startswith("pipeline.")}
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "pipeline":
            names |= {f"pipeline.{alias.name}" for alias in node.names} if node.module == "pipeline" else {node.module}
    return names


def test_every_module_imports_only_modules_above_it():
    order = layers()
    package = REPO / "pipeline"
    wrong = []
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package).with_suffix("").parts
        own = "cli" if relative == ("__main__",) else relative[0]
        assert own in order, f"{path} is not in the README's package map"
        for name in imports_of(path):
            target = top_level(name)
            if target != own and order.get(target, -1) > order[own]:
                wrong.append(f"{path.relative_to(REPO)} imports {name}")
    assert wrong == []
