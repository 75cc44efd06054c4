"""Code blocks highlighted with Pygments (`markdown/code.py`): fixtures, options, the budget, the stylesheet."""

from __future__ import annotations

from pathlib import Path


import pytest

from pipeline.markdown import make_parser
from pipeline.markdown.code import HIGHLIGHT_BUDGET, marked_lines, split_info, stylesheet

ASSETS = Path(__file__).parents[2] / "templates" / "assets"


def test_info_string_options():
    assert split_info('python title="a b.py" linenums="1" hl_lines="2 3-4"') == (
        "python", {"title": "a b.py", "linenums": "1", "hl_lines": "2 3-4"})  # fmt: skip
    assert split_info("{.rust}") == ("rust", {})
    assert split_info('title="x"') == ("", {"title": "x"})
    assert marked_lines("2 3-4 junk 9") == {2, 3, 4, 9}


def test_numbered_lines_keep_blank_lines_and_the_copy_text_has_no_numbers():
    html = make_parser().render('```python linenums="1"\n\nx\n\n```\n', {})
    assert html.count('class="linenos"') == 3
    assert ">1<" not in html  # the numbers are an attribute CSS draws, not text a copy takes


@pytest.mark.slow
def test_past_the_budget_blocks_are_plain_text():
    block = "```python\n" + "x = 1\n" * (HIGHLIGHT_BUDGET // 6) + "```\n"
    html = make_parser().render(block + "\n" + block, {})
    first, second = html.split('<div class="code-block">')[1:]
    assert '<span class="n">x</span>' in first
    assert "<span" not in second and "x = 1" in second


def test_a_page_without_a_language_loads_no_pygments():
    import subprocess
    import sys

    code = ("import sys; from pipeline.markdown import make_parser; "
            "make_parser().render('```\\nx\\n```\\n\\n$x$\\n', {}); print('pygments' in sys.modules)")  # fmt: skip
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout == "False\n"


def test_the_shipped_stylesheet_has_both_schemes_for_every_token_class():
    shipped = (ASSETS / "code.css").read_text(encoding="utf-8")
    assert shipped == stylesheet(), "run: python -m pipeline.markdown.code"
    light = {line.split(" {")[0] for line in shipped.splitlines() if line.startswith(".highlight .")}
    dark = {line.split(" {")[0].removeprefix(':root[data-theme="dark"] ') for line in shipped.splitlines()
            if line.startswith(':root[data-theme="dark"]')}  # fmt: skip
    assert ".highlight .k" in light and light <= dark  # no light colour is left on the dark background
    assert "@media (prefers-color-scheme: dark)" in shipped and ".highlight .err" not in shipped
