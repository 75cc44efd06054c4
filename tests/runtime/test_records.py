"""Named tuples made in bulk are those `_make` makes."""

from typing import NamedTuple

from pipeline.runtime.records import made


class Change(NamedTuple):
    path: str
    kind: str


def test_records_made_in_bulk_are_the_named_tuples_make_makes():
    rows = [("a.md", "file"), ["b.md", "removal"]]
    records = list(made(Change, rows))
    assert records == list(map(Change._make, rows)) and all(type(record) is Change for record in records)
    assert records[1].kind == "removal" and list(made(Change, [])) == []
