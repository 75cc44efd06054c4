"""The ordered table of passes: the built-in ones, then a wiki's own.

A wiki adds passes by naming modules in `wiki.yaml` (`passes:`, a dotted
module name or a path to a `.py` file) or by installing a package that
declares an entry point in the group `pipeline.passes`.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from pipeline.passes.base import WIKI_PARTS, PassSpec
from pipeline.passes.plugins import declared_passes
from pipeline.runtime.contracts import compiled

# Order matters only for display; execution order follows NEEDS.
BUILTIN = ("pipeline.passes.metadata", "pipeline.passes.pairing", "pipeline.passes.citations", "pipeline.passes.headings", "pipeline.passes.links", "pipeline.passes.wikilinks", "pipeline.passes.mentions", "pipeline.passes.html")


class PassLoadError(Exception):
    """A pass module is missing or does not fulfil the pass contract."""


def load_passes(
    extra: list[str] | tuple[str, ...] = (), *, base_dir: Path = Path("."), entry_points: bool = True,
    compiled_in: Path | None = None, cached_in: Path | None = None,
):
    """Return the PassSpecs of every registered pass, built-in first (`compiled_in`: where their
    compiled contracts are kept between processes, see `pipeline/runtime/contracts.py`; `kept_in`: where
    the entry points found are, see `plugins.py`)."""
    modules = [importlib.import_module(name) for name in BUILTIN]
    modules += [_import(ref, base_dir) for ref in extra]
    if entry_points:
        try:
            modules += declared_passes(cached_in)
        except ImportError as exc:
            raise PassLoadError(f"a pass an installed package declares cannot be imported: {exc}") from None
    specs = [spec_of(module, compiled_in) for module in modules]
    names = [spec.name for spec in specs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise PassLoadError(f"two passes are named {', '.join(duplicates)}")
    for spec in specs:
        missing = [need for need in spec.needs if need not in names]
        if missing:
            raise PassLoadError(f"pass {spec.name} needs unknown pass(es): {', '.join(missing)}")
    return specs


def rounds(specs: list[PassSpec]) -> list[list[PassSpec]]:
    """Group passes so that every pass comes after the passes it NEEDS."""
    done: set[str] = set()
    remaining = list(specs)
    result = []
    while remaining:
        ready = [s for s in remaining if set(s.needs) <= done]
        if not ready:
            raise PassLoadError("passes need each other in a cycle: " + ", ".join(s.name for s in remaining))
        result.append(ready)
        done |= {s.name for s in ready}
        remaining = [s for s in remaining if s not in ready]
    return result


def spec_of(module: ModuleType, compiled_in: Path | None = None) -> PassSpec:
    """Check a module against the pass contract and wrap it."""
    where = getattr(module, "__name__", repr(module))
    for attribute in ("NAME", "VERSION", "CONTRACT", "run"):
        if not hasattr(module, attribute):
            raise PassLoadError(f"pass module {where} has no {attribute}")
    contract = module.CONTRACT
    if "diagnostics" not in contract.get("required", ()):
        raise PassLoadError(f"pass module {where}: CONTRACT must require a 'diagnostics' list")
    needs = tuple(getattr(module, "NEEDS", ()))
    reads, reads_own = _reads(module, "READS", where), _reads(module, "READS_OWN", where) or ()
    unknown = [name for name in (*(reads or ()), *reads_own) if name not in WIKI_PARTS + needs and not callable(name)]
    if unknown or set(reads_own) & set(WIKI_PARTS):
        raise PassLoadError(f"pass module {where}: READS may name {', '.join(WIKI_PARTS)} and passes in NEEDS; "
                            f"READS_OWN passes in NEEDS (each may also be a function)")  # fmt: skip
    return PassSpec(
        name=module.NAME,
        version=int(module.VERSION),
        contract_version=int(getattr(module, "CONTRACT_VERSION", 1)),
        contract=contract,
        run=module.run,
        select=getattr(module, "select", None),
        needs=needs,
        validate=LazyValidator(contract, where, compiled_in),
        module=where,
        reads=reads,
        reads_own=reads_own,
        lazy_fields=_names(module, "LAZY_FIELDS", where),
        keeps=_keeps(module, where),
        keeps_by_capture=_memo_keys(module, "KEEP_BY_CAPTURE", where),
        **_delta(module, where),
    )


def _delta(module: ModuleType, where: str) -> dict:
    affected, touches = getattr(module, "AFFECTED", None), getattr(module, "TOUCHES", None)
    if not all(value is None or callable(value) for value in (affected, touches)):
        raise PassLoadError(f"pass module {where}: AFFECTED and TOUCHES must be functions")
    if affected is not None and not getattr(module, "KEEP", ()):
        raise PassLoadError(f"pass module {where}: AFFECTED needs KEEP (the values it compares with the last world's)")
    if touches is not None and affected is None:
        raise PassLoadError(f"pass module {where}: TOUCHES needs AFFECTED (which reads what it names)")
    return {"affected": affected, "touches": touches}


def _keeps(module: ModuleType, where: str) -> tuple[str, ...]:
    value = _memo_keys(module, "KEEP", where)
    if value and getattr(module, "READS", None) is None:
        raise PassLoadError(f"pass module {where}: KEEP needs READS (what the kept values are built from)")
    return value


def _memo_keys(module: ModuleType, attribute: str, where: str) -> tuple[str, ...]:
    value = getattr(module, attribute, ())
    if isinstance(value, str) or not all(isinstance(item, str) and item for item in value):
        raise PassLoadError(f"pass module {where}: {attribute} must be a tuple of memo keys")
    return tuple(value)


def _names(module: ModuleType, attribute: str, where: str) -> tuple[str, ...]:
    value = getattr(module, attribute, ())
    if isinstance(value, str) or not all(isinstance(item, str) and item.isidentifier() for item in value):
        raise PassLoadError(f"pass module {where}: {attribute} must be a tuple of field names")
    return tuple(value)


def _reads(module: ModuleType, attribute: str, where: str) -> tuple | None:
    value = getattr(module, attribute, None)
    if value is None:
        return None
    if isinstance(value, str) or not all(isinstance(item, str) or callable(item) for item in value):
        raise PassLoadError(f"pass module {where}: {attribute} must be a tuple of names (or functions)")
    return tuple(value)


class LazyValidator:
    """Compiles a contract on first use: a build whose jobs are all reused never pays for it.

    The schema itself is checked when the pass is loaded, which is cheap; the compiled code is
    kept in the process, and in `folder` when given (`pipeline/runtime/contracts.py`).
    """

    def __init__(self, contract: dict, where: str, folder: Path | None = None) -> None:
        if not isinstance(contract, dict) or not isinstance(contract.get("type", "object"), (str, list)):
            raise PassLoadError(f"pass module {where}: CONTRACT is not a valid JSON Schema object")
        self.contract, self.where, self.folder, self.compiled = contract, where, folder, None

    def __call__(self, output):
        if self.compiled is None:
            import fastjsonschema  # with the first contract compiled: a build's own process may validate nothing

            try:
                self.compiled = compiled(self.contract, self.folder)
            except fastjsonschema.JsonSchemaDefinitionException as exc:  # fails the job, with this message
                raise ValueError(f"pass module {self.where}: CONTRACT is not a valid JSON Schema: {exc}") from None
        return self.compiled(output)


def _import(ref: str, base_dir: Path) -> ModuleType:
    if not ref.endswith(".py"):
        try:
            return importlib.import_module(ref)
        except ImportError as exc:
            raise PassLoadError(f"pass module {ref!r} cannot be imported: {exc}") from None
    path = (base_dir / ref).resolve()
    if not path.is_file():
        raise PassLoadError(f"pass file {path} not found")
    name = f"pipeline_custom_pass_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module
