"""Contracts as validating functions (`runtime/contracts.py`): JSON Schema draft 7 unless a schema names its own,
made once a process, failing in one line that says where and what."""

import pytest

from pipeline.runtime import contracts
from pipeline.runtime.contracts import ContractError, SchemaError, compiled
from pipeline.storage.text_refs import Filled

SCHEMA = {
    "type": "object",
    "required": ["slug", "diagnostics"],
    "properties": {
        "slug": {"type": "string", "pattern": "^[a-z-]+$"},
        "diagnostics": {"type": "array", "items": {"type": "object", "properties": {"line": {"minimum": 1}}}},
    },
}


@pytest.fixture
def new_process(monkeypatch):
    """What a process has compiled, emptied: as a new process starts."""
    monkeypatch.setattr(contracts, "_COMPILED", {})


def test_a_contract_passes_what_matches_and_names_where_and_what_does_not(new_process):
    check = compiled(SCHEMA)
    assert check({"slug": "a-b", "diagnostics": []}) == {"slug": "a-b", "diagnostics": []}
    with pytest.raises(ContractError, match=r'^data\.slug: "A B" does not match "\^\[a-z-\]\+\$"$'):
        check({"slug": "A B", "diagnostics": []})
    with pytest.raises(ContractError, match=r'^data: "diagnostics" is a required property$'):
        check({"slug": "a"})
    with pytest.raises(ContractError, match=r"^data\.diagnostics\[1\]\.line: 0 is less than the minimum of 1$"):
        check({"slug": "a", "diagnostics": [{"line": 1}, {"line": 0}]})


def test_a_bad_schema_is_refused_in_one_line(new_process):
    with pytest.raises(SchemaError) as refused:
        compiled({"type": "object", "properties": {"a": {"type": "no-such-type"}}})
    assert "no-such-type" in str(refused.value) and "\n" not in str(refused.value)
    with pytest.raises(SchemaError):  # not JSON: no schema at all
        compiled({"type": "object", "properties": {"a": {"enum": [frozenset()]}}})


def test_a_process_compiles_a_contract_once(new_process):
    assert compiled(dict(SCHEMA)) is compiled(SCHEMA)  # the same schema, another dict
    assert compiled({**SCHEMA, "required": ["slug"]}) is not compiled(SCHEMA)


def test_text_held_as_a_str_subclass_is_checked_as_its_text(new_process):
    filled = Filled("a-b", [])  # what the html pass's filled page is
    assert compiled(SCHEMA)({"slug": filled, "diagnostics": ()}) == {"slug": filled, "diagnostics": ()}
    with pytest.raises(ContractError, match="does not match"):
        compiled(SCHEMA)({"slug": Filled("A B", []), "diagnostics": []})
    with pytest.raises(TypeError):  # what JSON cannot hold at all
        compiled(SCHEMA)({"slug": "a", "diagnostics": [object()]})


def test_draft_7_unless_the_schema_names_another(new_process):
    draft7 = {"type": "array", "items": [{"type": "integer"}]}  # a tuple of items in draft 7; 2020-12 has none
    with pytest.raises(ContractError):
        compiled(draft7)(["not an integer"])
    later = {"$schema": "https://json-schema.org/draft/2020-12/schema", "type": "array",
             "prefixItems": [{"type": "integer"}]}  # fmt: skip
    with pytest.raises(ContractError):
        compiled(later)(["not an integer"])


def test_formats_are_checked(new_process):
    check = compiled({"type": "string", "format": "date-time"})
    assert check("2026-12-04T10:00:00.000Z")
    with pytest.raises(ContractError, match="date-time"):
        check("yesterday")


def test_a_schema_with_an_id_and_references_checks_through_them(new_process):
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#", "$id": "https://example.com/page.json",
        "definitions": {"link": {"type": "object", "required": ["target"]}},
        "type": "object", "properties": {"links": {"type": "array", "items": {"$ref": "#/definitions/link"}}},
    }  # fmt: skip
    check = compiled(schema)
    assert check({"links": [{"target": "a"}]})
    with pytest.raises(ContractError, match=r"data\.links\[0\]"):
        check({"links": [{}]})  # checked through the reference
