"""JSON Schemas as validating functions, made once per process.

jsonschema-rs compiles a schema quickly and checks an instance in Rust: a cold build's pass outputs validate several
times faster than with the Python code fastjsonschema generated (`docs/performance.md`), and no compiled code needs
keeping between builds. A schema without `$schema` is read as draft 7, and formats are checked.

An instance is checked as JSON: a subclass of `str` (a page's filled HTML, a stored text) as the string it is.
"""

from __future__ import annotations

import json
from typing import Callable

import orjson

Validator = Callable[[object], object]  # returns its argument; raises ContractError naming what does not match


class ContractError(ValueError):
    """An instance that does not match its schema, in one line: where (`data.links[0].line`) and what."""


class SchemaError(ValueError):
    """A schema that is not a valid JSON Schema."""


_COMPILED: dict[str, Validator] = {}


def compiled(schema: dict) -> Validator:
    """The validating function of `schema`, made once a process (raises SchemaError for a bad one)."""
    try:
        key = json.dumps(schema, sort_keys=True)
    except (TypeError, ValueError):  # not JSON (a custom pass's): made each time, and refused as a schema below
        return _validator(schema)
    if key not in _COMPILED:
        _COMPILED[key] = _validator(schema)
    return _COMPILED[key]


def load_checker() -> None:
    """Import jsonschema-rs now (a big native library), where a process is waiting for its first job."""
    import jsonschema_rs  # noqa: F401


def _validator(schema: dict) -> Validator:
    import jsonschema_rs  # here, not above: a build whose jobs run in another process validates nothing

    try:
        kind = jsonschema_rs.validator_cls_for(schema) if "$schema" in schema else jsonschema_rs.Draft7Validator
        check = kind(schema, validate_formats=True)
    except ValueError as exc:  # jsonschema-rs's own error is one too
        raise SchemaError(_first_line(exc)) from None

    def validate(instance):
        try:
            check.validate(instance)
        except jsonschema_rs.ValidationError as exc:
            raise ContractError(f"{_where(exc.instance_path)}: {exc.message}") from None
        except ValueError:  # a type JSON has not, as such: a str subclass is checked as its text
            validate(orjson.loads(orjson.dumps(instance)))  # raises TypeError for what JSON cannot hold
        return instance

    return validate


def _where(path) -> str:
    return "data" + "".join(f"[{step}]" if isinstance(step, int) else f".{step}" for step in path)


def _first_line(exc: Exception) -> str:
    return str(exc).strip().split("\n", 1)[0]
