"""The ordered table of passes: the built-in ones, then a wiki's own.

A wiki adds passes by naming modules in `wiki.yaml` (`passes:`, a dotted
module name or a path to a `.py` file) or by installing a package that
declares an entry point in the group `pipeline.passes`; an item of
`passes:` that maps a module or a pass's name to options sets the options
the pass owns. The contract a pass fulfils is `contract.py`'s.
"""

from __future__ import annotations

import dataclasses
import importlib
from pathlib import Path
from types import ModuleType

from pipeline.config import CONFIG_FILE, Config, typed_section
from pipeline.errors import ConfigError, UserError
from pipeline.passes.contract import Pass, PassLoadError, PassSpec
from pipeline.passes.plugins import declared_passes
from pipeline.runtime.contracts import SchemaError, compiled
from pipeline.runtime.named_code import run_file

# Order matters only for display; execution order follows each pass's needs.
BUILTIN = ("pipeline.passes.metadata", "pipeline.passes.pairing", "pipeline.passes.citations", "pipeline.passes.headings", "pipeline.passes.links", "pipeline.passes.wikilinks", "pipeline.passes.mentions", "pipeline.passes.html")


def passes_for(config: Config) -> list[PassSpec]:
    """The passes `config` names, loaded (each contract compiled when it first checks an output)."""
    try:
        return load_passes(config.passes, cached_in=config.state_dir)
    except PassLoadError as exc:
        raise UserError(str(exc)) from None


def load_passes(
    items: list | tuple = (), *, base_dir: Path = Path("."), entry_points: bool = True, cached_in: Path | None = None,
) -> list[PassSpec]:
    """The PassSpecs of every registered pass, built-in first, each with its options as `items` set them.

    `items` is the `passes:` list of wiki.yaml: module references (a dotted name or a `.py` path), or one-key
    mappings of a reference or of a registered pass's name to its options. `cached_in`: where the entry points
    found are (`plugins.py`).
    """
    configured = [next(iter(item.items())) if isinstance(item, dict) else (item, None) for item in items]
    found = [importlib.import_module(name) for name in BUILTIN]
    if entry_points:
        try:
            found += declared_passes(cached_in)
        except ImportError as exc:
            raise PassLoadError(f"a pass an installed package declares cannot be imported: {exc}") from None
    named = {declaration_of(each).name for each in found}
    # An item naming a registered pass only configures it; any other names a module to load.
    imported = {ref: _import(ref, base_dir) for ref, _ in configured if ref not in named}
    specs = [spec_of(each) for each in [*found[:len(BUILTIN)], *imported.values(), *found[len(BUILTIN):]]]
    given = {(declaration_of(imported[ref]).name if ref in imported else ref): options for ref, options in configured}
    return [_with_settings(spec, given.get(spec.name)) for spec in _checked(specs, given)]


def _checked(specs: list[PassSpec], given: dict[str, dict | None]) -> list[PassSpec]:
    names = [spec.name for spec in specs]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise PassLoadError(f"two passes are named {', '.join(duplicates)}")
    for spec in specs:
        missing = [need for need in spec.needs if need not in names]
        if missing:
            raise PassLoadError(f"pass {spec.name} needs unknown pass(es): {', '.join(missing)}")
        if given.get(spec.name) and spec.options is None:
            raise PassLoadError(f"{CONFIG_FILE}: passes: {spec.name} takes no options")
    return specs


def _with_settings(spec: PassSpec, options: dict | None) -> PassSpec:
    if spec.options is None:
        return spec
    try:
        settings = typed_section(spec.options, options or {}, f"passes: {spec.name}")
    except ConfigError as exc:
        raise PassLoadError(str(exc)) from None
    return dataclasses.replace(spec, settings=settings)


def rounds(specs: list[PassSpec]) -> list[list[PassSpec]]:
    """Group passes so that every pass comes after the passes it needs."""
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


def declaration_of(found: ModuleType | Pass) -> Pass:
    """The `Pass` a module declares (`PASS`), or one an entry point names itself; a module in the simple
    form of earlier versions (NAME, VERSION, CONTRACT, run, optionally NEEDS, select) is read as one."""
    if isinstance(found, Pass):
        return found
    where = getattr(found, "__name__", repr(found))
    declared = getattr(found, "PASS", None)
    if declared is not None:
        if not isinstance(declared, Pass):
            raise PassLoadError(f"pass module {where}: PASS is not a pipeline.passes.contract.Pass")
        return declared
    for attribute in ("NAME", "VERSION", "CONTRACT", "run"):
        if not hasattr(found, attribute):
            raise PassLoadError(f"pass module {where} has no PASS (a pipeline.passes.contract.Pass)")
    tuning = [name for name in TUNING if hasattr(found, name)]
    if tuning:
        raise PassLoadError(f"pass module {where}: declare {', '.join(tuning)} in PASS = Pass(..., incremental=Incremental(...))")
    return Pass(
        name=found.NAME, version=int(found.VERSION), contract=found.CONTRACT, run=found.run,
        select=getattr(found, "select", None), needs=tuple(getattr(found, "NEEDS", ())),
        lazy_fields=tuple(getattr(found, "LAZY_FIELDS", ())), contract_version=int(getattr(found, "CONTRACT_VERSION", 1)),
    )  # fmt: skip


# The module-level names of the first pass contract that only the typed one may declare now.
TUNING = ("READS", "READS_OWN", "KEEP", "KEEP_BY_CAPTURE", "AFFECTED", "TOUCHES")


def spec_of(found: ModuleType | Pass) -> PassSpec:
    """Check a pass against the contract; return it loaded (its options at their defaults)."""
    declared = declaration_of(found)
    where = getattr(found, "__name__", declared.name)
    if not isinstance(declared.name, str) or not declared.name or not callable(declared.run):
        raise PassLoadError(f"pass {where}: a pass needs a name and a run function")
    if "diagnostics" not in declared.contract.get("required", ()):
        raise PassLoadError(f"pass {where}: its contract must require a 'diagnostics' list")
    needs = tuple(declared.needs)
    if declared.incremental is not None:
        declared.incremental.check(needs, where)
    _check_options(declared, where)
    lazy = tuple(declared.lazy_fields)
    if not all(isinstance(name, str) and name.isidentifier() for name in lazy):
        raise PassLoadError(f"pass {where}: lazy_fields must be a tuple of field names")
    values = {f.name: getattr(declared, f.name) for f in dataclasses.fields(Pass)}
    values.update(version=int(declared.version), needs=needs, lazy_fields=lazy, wiki_options=tuple(declared.wiki_options))
    settings = declared.options() if declared.options is not None else None
    return PassSpec(**values, module=where, validate=LazyValidator(declared.contract, where), settings=settings)


def _check_options(declared: Pass, where: str) -> None:
    known = {f.name for f in dataclasses.fields(Config)}
    unknown = [name for name in declared.wiki_options if name not in known]
    if isinstance(declared.wiki_options, str) or unknown:
        raise PassLoadError(f"pass {where}: wiki_options must name options of wiki.yaml (not {', '.join(unknown)})")
    if declared.options is not None and not dataclasses.is_dataclass(declared.options):
        raise PassLoadError(f"pass {where}: options must be a dataclass (the section of wiki.yaml it owns)")


class LazyValidator:
    """Compiles a contract on first use: a build whose jobs are all reused never pays for it.

    The schema's shape is checked when the pass is loaded, which is cheap; the compiled contract is kept in the
    process (`pipeline/runtime/contracts.py`).
    """

    def __init__(self, contract: dict, where: str) -> None:
        if not isinstance(contract, dict) or not isinstance(contract.get("type", "object"), (str, list)):
            raise PassLoadError(f"pass module {where}: CONTRACT is not a valid JSON Schema object")
        self.contract, self.where, self.compiled = contract, where, None

    def __call__(self, output):
        if self.compiled is None:
            try:
                self.compiled = compiled(self.contract)
            except SchemaError as exc:  # fails the job, with this message
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
    return run_file(f"pipeline_custom_pass_{path.stem}", path)
