"""Mermaid diagrams (`markdown/diagrams.py`): fixtures, and the fence rule it hands the others to."""

from __future__ import annotations

from pipeline.markdown import make_parser
from pipeline.markdown.extensions import setting


def test_without_the_code_extension_other_fences_are_markdown_its():
    md = make_parser(markdown=setting([{"code": False}]))
    assert md.render("```python\nx\n```\n\n```mermaid\nA-->B\n```\n", {}) == (
        '<pre><code class="language-python">x\n</code></pre>\n<pre class="mermaid">A--&gt;B\n</pre>\n'
    )


def test_without_the_mermaid_extension_a_diagram_is_plain_code():
    html = make_parser(markdown=setting([{"mermaid": False}])).render("```mermaid\nA-->B\n```\n", {})
    assert 'class="mermaid"' not in html and '<code class="language-mermaid">A--&gt;B\n</code>' in html
