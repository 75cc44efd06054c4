"""Code, math, diagrams and permalinks in a built site: what a page holds and which scripts it loads."""

from __future__ import annotations

import re

from tests.site.helpers import build_site, read

CODE = """---
title: Code
---
Intro with $e^{i\\pi} + 1 = 0$.

## Example

```python title="app.py" linenums="1" hl_lines="2"
import os
print(os.getcwd())
```

Then a bad $x^$ formula, and [[Plain]].

```mermaid
graph TD; A-->B
```
"""
PLAIN = "---\ntitle: Plain\n---\nCosts $5 and $10, no code, no diagram.\n\n## Part\n"
EMBEDDING = "---\ntitle: Embedding\n---\nIt embeds:\n\n![[Code]]\n"


def test_a_built_page_has_its_code_math_and_diagram_and_only_the_scripts_it_needs(make_wiki):
    config = make_wiki({"code.md": CODE, "plain.md": PLAIN, "embedding.md": EMBEDDING})
    report = build_site(config)
    code, plain = read(config.out_dir, "code/index.html"), read(config.out_dir, "plain/index.html")

    assert '<div class="code-title">app.py</div>' in code
    assert '<code class="language-python"><span class="linenos" data-linenos="1"></span><span class="kn">import' in code
    assert re.search(r'<span class="hll"><span class="linenos" data-linenos="2"></span>.*print', code)
    assert '<math xmlns="http://www.w3.org/1998/Math/MathML" display="inline">' in code
    assert '<code class="math-error" data-line="9" title="formula does not parse' in code
    assert '<pre class="mermaid">graph TD; A--&gt;B\n</pre>' in code
    assert '<a class="headerlink" href="#example"' in code
    for script in ("assets/code.js", "assets/mermaid.min.js", "assets/diagrams.js"):
        assert f'<script src="/{script}" defer></script>' in code
        assert (config.out_dir / script).is_file() and script not in plain
    assert '<link rel="stylesheet" href="/assets/code.css">' in code and "code.css" not in plain
    assert "<p>Costs $5 and $10, no code, no diagram.</p>" in plain and "<math" not in plain
    assert (config.out_dir / "assets/mermaid.LICENSE.txt").is_file()

    # The bad formula is the Code page's, at its line in the file; the page embedding it reports nothing.
    errors = [(d.path, d.line, d.severity) for d in report.process.diagnostics if d.code == "math-error"]
    assert errors == [("code.md", 13, "warning")]
    embedding = read(config.out_dir, "embedding/index.html")
    assert '<code class="math-error" title=' in embedding and "assets/mermaid.min.js" in embedding
