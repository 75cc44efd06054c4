"""Passes declared by installed packages: found by scanning them once, then read back until a package folder changes."""

import importlib.metadata
import os

import pytest

from pipeline.passes import plugins
from pipeline.passes.plugins import KEPT, declared_passes

PASS = 'NAME = "{name}"\nVERSION = 1\nCONTRACT = {{"type": "object", "required": ["diagnostics"]}}\n'


def install(packages, name: str, value: str | None = None) -> None:
    """A package declaring one pass, as pip leaves it: its module and its dist-info folder."""
    (packages / f"{name}.py").write_text(PASS.format(name=name))
    info = packages / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pipeline.passes]\n{name} = {value or name}\n")


@pytest.fixture
def packages(tmp_path, monkeypatch):
    folder = tmp_path / "site-packages"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    return folder


def scans(monkeypatch) -> list[int]:
    """Counts each scan of the installed packages' metadata."""
    calls = []
    entry_points = importlib.metadata.entry_points

    def counting(**options):
        calls.append(1)
        return entry_points(**options)

    monkeypatch.setattr(importlib.metadata, "entry_points", counting)
    return calls


def test_the_passes_found_are_kept_and_read_back_without_scanning_the_packages_again(packages, tmp_path, monkeypatch):
    install(packages, "first_pass")
    calls = scans(monkeypatch)
    state = tmp_path / "state"
    assert [module.NAME for module in declared_passes(state)] == ["first_pass"]
    assert (state / KEPT).is_file() and len(calls) == 1
    assert [module.NAME for module in declared_passes(state)] == ["first_pass"]
    assert len(calls) == 1


def test_a_package_installed_since_is_found(packages, tmp_path, monkeypatch):
    install(packages, "first_pass")
    state = tmp_path / "state"
    declared_passes(state)
    install(packages, "second_pass")
    os.utime(packages, ns=(0, os.stat(packages).st_mtime_ns + 1))  # should the clock not have ticked since
    calls = scans(monkeypatch)
    assert sorted(module.NAME for module in declared_passes(state)) == ["first_pass", "second_pass"]
    assert len(calls) == 1


def test_a_kept_list_that_does_not_read_is_found_again(packages, tmp_path, monkeypatch):
    install(packages, "first_pass")
    state = tmp_path / "state"
    state.mkdir()
    (state / KEPT).write_text("{not json")
    calls = scans(monkeypatch)
    assert [module.NAME for module in declared_passes(state)] == ["first_pass"]
    assert len(calls) == 1 and (state / KEPT).read_text().startswith("{")


def test_without_a_folder_nothing_is_kept(packages, tmp_path):
    install(packages, "first_pass")
    assert [module.NAME for module in declared_passes()] == ["first_pass"]
    assert not any(tmp_path.rglob(KEPT))


def test_an_entry_point_may_name_an_attribute_of_a_module(packages, tmp_path):
    (packages / "holder.py").write_text("import types\nINNER = types.SimpleNamespace(NAME='inner')\n")
    install(packages, "first_pass", value="holder:INNER")
    assert [module.NAME for module in declared_passes(tmp_path / "state")] == ["inner"]
    with pytest.raises(ImportError, match="not `module`"):
        plugins._load("not a value")


def test_a_declared_pass_that_does_not_import_is_named(packages, tmp_path):
    from pipeline.passes.registry import PassLoadError, load_passes

    install(packages, "first_pass", value="no_such_module")
    with pytest.raises(PassLoadError, match="no_such_module"):
        load_passes(cached_in=tmp_path / "state")
