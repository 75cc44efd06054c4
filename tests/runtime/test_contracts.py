"""Contracts compiled once: kept in the process, and as code in a folder for the next process."""

import fastjsonschema
import pytest

from pipeline.runtime import contracts
from pipeline.runtime.contracts import compiled

SCHEMA = {
    "type": "object",
    "required": ["slug", "diagnostics"],
    "properties": {"slug": {"type": "string", "pattern": "^[a-z-]+$"}, "diagnostics": {"type": "array"}},
}


@pytest.fixture
def new_process(monkeypatch):
    """What a process has compiled, emptied: as a new process starts."""
    monkeypatch.setattr(contracts, "_COMPILED", {})


def _no_compiling(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("compiled again")

    monkeypatch.setattr(fastjsonschema, "compile_to_code", refuse)


def test_a_compiled_contract_checks_as_fastjsonschema_does(new_process):
    check = compiled(SCHEMA)
    assert check({"slug": "a-b", "diagnostics": []}) == {"slug": "a-b", "diagnostics": []}
    with pytest.raises(fastjsonschema.JsonSchemaValueException, match="must match pattern"):
        check({"slug": "A B", "diagnostics": []})
    with pytest.raises(ValueError, match="must contain"):
        check({"slug": "a"})
    with pytest.raises(fastjsonschema.JsonSchemaDefinitionException):
        compiled({"type": "object", "properties": {"a": {"type": "no-such-type"}}})


def test_a_process_compiles_a_contract_once(new_process, monkeypatch):
    first = compiled(SCHEMA)
    _no_compiling(monkeypatch)
    assert compiled(dict(SCHEMA)) is first  # the same schema, another dict


def test_the_next_process_loads_the_code_kept_in_the_folder(new_process, monkeypatch, tmp_path):
    compiled(SCHEMA, tmp_path)
    assert len(list(tmp_path.iterdir())) == 1
    monkeypatch.setattr(contracts, "_COMPILED", {})
    _no_compiling(monkeypatch)
    check = compiled(SCHEMA, tmp_path)
    with pytest.raises(fastjsonschema.JsonSchemaValueException, match="must match pattern"):
        check({"slug": "A B", "diagnostics": []})


def test_kept_code_that_does_not_load_is_compiled_again(new_process, monkeypatch, tmp_path):
    compiled(SCHEMA, tmp_path)
    (kept,) = tmp_path.iterdir()
    kept.write_bytes(kept.read_bytes()[:20])  # torn
    monkeypatch.setattr(contracts, "_COMPILED", {})
    assert compiled(SCHEMA, tmp_path)({"slug": "a", "diagnostics": []})
    monkeypatch.setattr(contracts, "_COMPILED", {})
    _no_compiling(monkeypatch)
    assert compiled(SCHEMA, tmp_path)({"slug": "a", "diagnostics": []})  # written again, whole


def test_another_schema_is_kept_apart(new_process, tmp_path):
    compiled(SCHEMA, tmp_path)
    other = compiled({**SCHEMA, "required": ["slug"]}, tmp_path)
    assert other({"slug": "a"}) and len(list(tmp_path.iterdir())) == 2


def test_a_schema_with_an_id_and_references_is_checked_by_its_own_function(new_process, monkeypatch, tmp_path):
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/page.json",
        "definitions": {"link": {"type": "object", "required": ["target"]}},
        "type": "object", "properties": {"links": {"type": "array", "items": {"$ref": "#/definitions/link"}}},
    }  # fmt: skip
    compiled(schema, tmp_path)
    monkeypatch.setattr(contracts, "_COMPILED", {})
    check = compiled(schema, tmp_path)  # loaded: the schema's function is the first the code defines
    assert check({"links": [{"target": "a"}]})
    with pytest.raises(fastjsonschema.JsonSchemaValueException):
        check({"links": [{}]})  # checked through the reference
    with pytest.raises(fastjsonschema.JsonSchemaValueException):
        check([])


def test_a_schema_that_is_not_json_is_compiled_without_keeping_it(new_process, tmp_path):
    schema = {"type": "object", "properties": {"a": {"enum": [frozenset()]}}}
    assert compiled(schema, tmp_path)({"b": 1}) == {"b": 1}
    assert not list(tmp_path.iterdir())
