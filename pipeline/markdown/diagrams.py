"""Mermaid diagrams: a ```` ```mermaid ```` fence becomes `<pre class="mermaid">` holding its source, escaped.

The browser draws it with the copy of Mermaid the theme ships
(`assets/mermaid.min.js`), which the article template loads only on a page
whose HTML holds `MARKER`: nothing is fetched from elsewhere, and without
scripts the reader sees the diagram's source. Other fences go to the rule
before this one (the `code` extension's, when it is on).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt

LANGUAGE = "mermaid"
MARKER = '<pre class="mermaid">'


def mermaid_plugin(md: MarkdownIt) -> None:
    other = md.renderer.rules.get("fence")

    def render_fence(self, tokens, idx, options, env) -> str:
        token = tokens[idx]
        if token.info.strip().split(" ", 1)[0].lower() != LANGUAGE:
            return other(tokens, idx, options, env) if other else self.renderToken(tokens, idx, options, env)
        from markdown_it.common.utils import escapeHtml

        return f"{MARKER}{escapeHtml(token.content)}</pre>\n"

    md.add_render_rule("fence", render_fence)

