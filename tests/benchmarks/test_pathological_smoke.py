"""A small run of benchmarks/pathological.py, so it cannot rot. Its timing goals live in the script, not here."""

import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import pathological  # noqa: E402


@pytest.mark.slow
def test_every_kind_is_timed_at_one_and_four_times_its_size(capsys):
    assert pathological.main(["--size", "400"]) == 0
    rows = capsys.readouterr().out.splitlines()[1:]
    assert [row.split()[0] for row in rows] == list(pathological.SNIPPETS)
    assert pathological.body("brackets", 400) == "# Title\n\n" + "[" * 400 + "\n"


def test_a_whole_build_is_timed_with_build():
    ((kind, once, four),) = pathological.measure(["nested-quotes"], 200, whole_build=True)
    assert kind == "nested-quotes" and once > 0 and four > 0


def test_once_times_the_given_size_only(capsys):
    assert pathological.main(["--size", "400", "--kinds", "wikilinks", "--build", "--once"]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert "ratio" not in header and row.split()[0] == "wikilinks" and len(row.split()) == 2
