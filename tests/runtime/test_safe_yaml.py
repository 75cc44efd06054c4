"""The one YAML loader of frontmatter, data files and wiki.yaml: plain data, within limits, errors with a line."""

from __future__ import annotations

import pytest
import yaml

from pipeline.runtime import safe_yaml
from pipeline.runtime.safe_yaml import MAX_ALIAS_VALUES, MAX_CHARS, MAX_DEPTH, YamlError, load


def alias_bomb(levels: int, width: int = 9) -> str:
    """`levels` mappings each listing `width` aliases of the one before: width ** levels values in a few bytes."""
    names = "abcdefghijklmnop"[:levels]
    lines = [f"a: &a [{', '.join(['x'] * width)}]"]
    lines += [f"{name}: &{name} [{', '.join([f'*{before}'] * width)}]" for before, name in zip(names, names[1:])]
    return "\n".join(lines) + "\n"


def refused(text: str) -> YamlError:
    with pytest.raises(YamlError) as caught:
        load(text)
    return caught.value


def test_the_issues_alias_bomb_is_refused_at_the_alias_that_passes_the_budget():
    bomb = alias_bomb(9)
    assert len(bomb) < 400  # the issue's was 367 bytes
    error = refused(bomb)
    assert "more than 10,000 values" in str(error) and error.line == 5  # past 9 ** 4 values at e


def test_aliases_within_the_budget_load_as_plain_yaml_does():
    text = alias_bomb(4)  # 9 ** 3 + ... values: well within
    assert load(text) == yaml.safe_load(text)
    shared = "base: &base {a: 1, b: [x, y]}\npage:\n  <<: *base\n  c: &c plain\n  d: *c\n"
    page = {"a": 1, "b": ["x", "y"], "c": "plain", "d": "plain"}
    assert load(shared) == {"base": {"a": 1, "b": ["x", "y"]}, "page": page}


def test_an_alias_inside_what_it_names_is_refused():
    assert "inside the collection it names" in str(refused("a: &a [x, *a]"))
    assert "inside the collection it names" in str(refused("a: &a {b: {c: *a}}"))


def test_nesting_is_bounded_before_libyaml_recurses():
    deep = "x: " + "[" * 100_000 + "]" * 100_000  # libyaml's composer crashes the process on this
    assert str(refused(deep)) == f"nests deeper than {MAX_DEPTH} levels"
    assert load("[" * MAX_DEPTH + "]" * MAX_DEPTH) is not None
    refused("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))
    block = "".join(f"{'  ' * n}k{n}:\n" for n in range(MAX_DEPTH + 1))  # block mappings count alike
    assert refused(block).line == MAX_DEPTH + 1


def test_nesting_through_an_alias_counts_what_the_alias_names():
    text = "a: &a " + "[" * 60 + "]" * 60 + "\nb: " + "[" * 50 + "*a" + "]" * 50 + "\n"
    error = refused(text)
    assert "nests deeper" in str(error) and error.line == 2


def test_size_is_bounded():
    assert refused("a: " + "x" * MAX_CHARS).message == f"is larger than {MAX_CHARS:,} characters"


@pytest.mark.parametrize(
    "text, line, message",
    [
        ("a: 1\nb: 2024-13-45\n", 2, "'2024-13-45' is not a valid timestamp"),  # ValueError in PyYAML
        ("a: " + "1" * 5000, 1, "is not a valid int"),  # Python's limit on int digits
        ("a: !!bool maybe", 1, "'maybe' is not a valid bool"),
        ("a: !!float x", 1, "'x' is not a valid float"),
        ("a: [unclosed\nb: 1\n", 2, "does not parse: "),
        ("a: &x 1\nb: &x 2\n", 2, "found duplicate anchor"),
        ("a: 1\n---\nb: 2\n", 2, "expected a single document in the stream"),
        ("a: !!python/object/apply:os.system [echo]", 1, "could not determine a constructor"),
    ],
)
def test_what_does_not_load_is_one_line_with_its_line(text, line, message):
    error = refused(text)
    assert message in error.message and error.line == line and "\n" not in error.message


def test_a_text_with_few_openers_and_no_alias_skips_the_event_walk(monkeypatch):
    walked = []
    monkeypatch.setattr(safe_yaml, "_check_events", walked.append)
    load("title: A\ntags: [a, b]\n")
    assert walked == []
    load("a: &x 1\nb: *x\n")
    load("\n".join(f"k{n}: v" for n in range(MAX_DEPTH + 1)))
    assert len(walked) == 2


def test_many_openers_only_cost_the_walk_and_legitimate_deep_yaml_loads_as_plain_yaml_does(monkeypatch):
    """Dashes and colons in prose, dates and URLs set off the walk; only real nesting past MAX_DEPTH is refused."""
    registry = "".join(f"- id: ref-{n}\n  text: 'A book: 2024-01-02'\n  url: https://x.example/a-b/{n}\n"
                       for n in range(500))  # fmt: skip
    levels = MAX_DEPTH - 1  # below the top mapping: MAX_DEPTH deep in all
    deep = "".join(f"{'  ' * n}note{n}: a - b\n{'  ' * n}k{n}:\n" for n in range(levels)) + "  " * levels + "x: end\n"
    shared = "base: &b {a: 1}\n" + "".join(f"p{n}: {{<<: *b, t: 'x - y: z'}}\n" for n in range(200))
    walked, check = [], safe_yaml._check_events
    monkeypatch.setattr(safe_yaml, "_check_events", lambda text: walked.append(text) or check(text))
    for text in (registry, deep, shared):
        assert load(text) == yaml.safe_load(text)
    assert walked == [registry, deep, shared]


def test_every_alias_budget_value_is_counted_once_per_use():
    uses = MAX_ALIAS_VALUES // 3  # each use of *p stands for 3 values: the list and its two items
    assert load("p: &p [a, b]\nq: [" + ", ".join(["*p"] * uses) + "]")["q"][0] == ["a", "b"]
    refused("p: &p [a, b]\nq: [" + ", ".join(["*p"] * (uses + 1)) + "]")
