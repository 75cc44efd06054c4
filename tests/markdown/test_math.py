"""Math (`markdown/math.py`): fixtures, MathML kept to MathML, errors with their lines, hostile text."""

from __future__ import annotations

from xml.etree import ElementTree

import pytest

from pipeline.markdown import make_parser
from pipeline.markdown.math import FORMULA_BUDGET, MAX_FORMULA, convert, math_errors


@pytest.mark.parametrize("latex", [
    r"\text{<img src=x onerror=alert(1)>}", r"\href{javascript:alert(1)}{x}", r"\color{red\" onload=\"x}{a}",
    r"\mathrm{<b>&amp;}", r"\operatorname{\"<x>}", r"\class{a\" style=\"x}{b}",
])  # fmt: skip
def test_a_formula_makes_no_markup_but_mathml(latex):
    mathml, error = convert(latex, False)
    assert error is None
    for element in ElementTree.fromstring(mathml).iter():  # well-formed: every text escaped
        assert element.tag.rsplit("}", 1)[-1] in {"math", "mrow", "mi", "mo", "mn", "mtext", "mstyle"}
        assert set(element.attrib) <= {"display", "mathvariant", "mathcolor"}


def test_errors_carry_their_body_line_and_why():
    text = "Intro.\n\n- item $x^$\n- and\n  more $\\frac{a}{b}$ then $\\nosuch$\n\n$$\n\\begin{matrix} a\n$$\n"
    html = make_parser().render(text, {})
    assert math_errors(html) == [
        (2, "formula does not parse: missing super script or subscript"),
        (4, "formula does not parse: unknown command \\nosuch"),
        (6, "formula does not parse: missing end"),
    ]


def test_an_embedded_articles_errors_are_not_the_embedding_pages():
    html = make_parser().render("$x^$\n", {"docId": "embed1"})
    assert 'class="math-error"' in html and math_errors(html) == []


def test_a_too_long_formula_shows_its_source():
    html = make_parser().render(f"$${'x+' * MAX_FORMULA}x$$\n", {})
    assert [why for _, why in math_errors(html)] == [f"formula longer than {MAX_FORMULA:,} characters: not rendered"]


@pytest.mark.slow
def test_past_the_budget_formulas_show_their_source_and_only_the_first_is_reported():
    count = FORMULA_BUDGET // 10
    text = "\n\n".join(f"$x_{{{number}}}$" for number in range(count))
    html = make_parser().render(text, {})
    errors = math_errors(html)
    assert len(errors) == 1 and "from here on not rendered" in errors[0][1]
    assert html.count("<math ") < count and html.count('class="math-error"') == count - html.count("<math ")


@pytest.mark.parametrize("text,block_end", [("- $$ab\n- $$cd\n- x $$\n", 1), ("$$ab\ncd\n\n$$\n", 2)])
def test_display_math_looks_for_its_end_only_in_its_block(monkeypatch, text, block_end):
    # It looked to the end of the text from each `$$`: a list of 20,000 unclosed ones took minutes.
    from pipeline.markdown import math

    seen = []
    bounded = math._within_block
    monkeypatch.setattr(math, "_within_block", lambda rule: bounded(lambda state, start, end, silent: seen.append(end)))
    make_parser.cache_clear()
    try:
        make_parser().parse(text, {})
    finally:
        make_parser.cache_clear()
    assert seen[0] == block_end
