"""Math: `$…$` inline and `$$…$$` display formulas, rendered at build time to MathML.

The syntax is mdit-py-plugins' dollarmath with pandoc's rules for inline
math, so prices are not formulas: the opening `$` has a non-space character
right after it, the closing `$` a non-space character right before it and
no digit right after it (`$5 and $10` is text, `$x$` is math). Display math
may not hold a blank line (as in LaTeX); `$$…$$ (label)` gives it an anchor.

latex2mathml turns each formula into MathML, which the page shows with no
script. Its output is rebuilt from its element tree with only MathML's
elements and presentation attributes, every text escaped: a formula is
untrusted content (`\\text{<script>}`, `\\href{javascript:…}`).
A formula that does not convert (or names a command latex2mathml does not
know) shows its source, escaped, in `<code class="math-error">`, whose
`data-line` (the 0-based body line, only in the article's own body, not in
an embedded one) and `title` (why) the html pass reports as `math-error`
(`math_errors`). One rendering converts at most `FORMULA_BUDGET` characters
of formulas, each at most `MAX_FORMULA` long, so hostile text stays fast.
"""

from __future__ import annotations

import functools
import html
import re
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt
    from markdown_it.rules_block import StateBlock
    from markdown_it.rules_core import StateCore

MAX_FORMULA = 20_000  # characters of one formula; a longer one shows its source
# What one rendering converts, counted in characters of formulas and `FORMULA_COST` for each (latex2mathml's
# time grows with both); the formulas past it show their source, and only the first is reported.
FORMULA_BUDGET = 100_000
FORMULA_COST = 10
BUDGET_USED = "math_converted"  # env key: what this rendering converted so far (None: past the budget, reported)
MATH_TOKENS = ("math_inline", "math_block", "math_block_label")
ERROR = re.compile(r'<code class="math-error" data-line="(\d+)" title="([^"]*)">')
# MathML's presentation attributes that latex2mathml writes; anything else (href, class, id...) is dropped.
ATTRIBUTES = frozenset({
    "xmlns", "display", "mathvariant", "stretchy", "fence", "separator", "lspace", "rspace", "linebreak", "width",
    "height", "depth", "columnalign", "columnlines", "columnspacing", "rowalign", "rowlines", "rowspacing", "frame",
    "framespacing", "displaystyle", "scriptlevel", "minsize", "maxsize", "movablelimits", "accent", "accentunder",
    "notation", "open", "close", "separators", "symmetric", "largeop", "form", "mathsize", "mathcolor",
    "mathbackground", "columnspan", "rowspan", "align", "equalrows", "equalcolumns", "voffset",
})  # fmt: skip
UNKNOWN_COMMAND = re.compile(r"\\[A-Za-z]+")


def math_plugin(md: MarkdownIt) -> None:
    from mdit_py_plugins.dollarmath import dollarmath_plugin

    dollarmath_plugin(md, allow_space=False, allow_digits=False, allow_blank_lines=False)
    rule = next(rule for rule in md.block.ruler.__rules__ if rule.name == "math_block")
    md.block.ruler.at("math_block", _within_block(rule.fn), {"alt": rule.alt})
    md.core.ruler.after("inline", "math_lines", note_lines)
    for name in MATH_TOKENS:
        md.add_render_rule(name, render_math)


def _within_block(math_block: Callable) -> Callable:
    """dollarmath's block rule, looking for the closing `$$` only in the block it starts in (up to a blank
    line, or a line less indented than the block, such as the next list item): it looked to the end of the
    text, so that a list of unclosed `$$` took a time growing with the square of its length."""

    def rule(state: StateBlock, start_line: int, end_line: int, silent: bool) -> bool:
        start = state.bMarks[start_line] + state.tShift[start_line]
        if not state.src.startswith("$$", start):
            return False
        last = start_line + 1
        while last < end_line and not state.isEmpty(last) and state.sCount[last] >= state.blkIndent:
            last += 1
        return math_block(state, start_line, last, silent)

    return rule


def note_lines(state: StateCore) -> None:
    """Each inline formula's 0-based line in `meta["line"]` (a block formula has its `map`)."""
    if "$" not in state.src:
        return
    for token in state.tokens:
        if token.type != "inline" or not token.map or "$" not in token.content:
            continue
        line, searched = token.map[0], 0
        for child in token.children or ():
            if child.type == "math_inline":
                found = token.content.find(f"${child.content}$", searched)
                found = searched if found < 0 else found
                line += token.content.count("\n", searched, found)  # counted once: a paragraph of many stays linear
                searched = found
                child.meta["line"] = line


def render_math(self, tokens, idx, options, env) -> str:
    token = tokens[idx]
    display = token.type != "math_inline"
    latex = token.content.strip()
    line = token.map[0] if token.map else token.meta.get("line", 0)
    reported = env.get(BUDGET_USED, 0) is not None
    error = _past_budget(latex, env)
    mathml, error = convert(latex, display) if error is None else ("", error)
    if error is None:
        body = mathml
    else:
        # An embedded article's formulas are its own page's to report (an embed's env names its `docId`).
        where = "" if "docId" in env or not reported else f' data-line="{line}"'
        body = f'<code class="math-error"{where} title="{html.escape(error)}">{html.escape(latex)}</code>'
    if not display:
        return f'<span class="math inline">{body}</span>'
    label = f' id="{html.escape(token.info)}"' if token.type == "math_block_label" else ""
    return f'<div class="math block"{label}>\n{body}\n</div>\n'


def _past_budget(latex: str, env: dict) -> str | None:
    """Why `latex` is not converted (too long, or past this rendering's budget), or None: it is, counted."""
    used = env.get(BUDGET_USED, 0)
    if used is None:
        return "past this article's formula budget: not rendered"
    if len(latex) > MAX_FORMULA:
        return f"formula longer than {MAX_FORMULA:,} characters: not rendered"
    used += len(latex) + FORMULA_COST
    if used > FORMULA_BUDGET:
        env[BUDGET_USED] = None
        return f"more than {FORMULA_BUDGET:,} characters of formulas in this article: from here on not rendered"
    env[BUDGET_USED] = used
    return None


@functools.lru_cache(maxsize=4096)
def convert(latex: str, display: bool) -> tuple[str, str | None]:
    """(MathML, None) of a formula, or ("", why it does not convert)."""
    from latex2mathml.converter import convert_to_element

    try:
        element = convert_to_element(latex, display="block" if display else "inline")
    except Exception as exc:  # a formula is content: any failure is its author's to fix, one line
        return "", f"formula does not parse: {_reason(exc)}"
    parts: list[str] = []
    unknown = _serialize(element, parts)
    if unknown:
        return "", f"formula does not parse: unknown command {unknown}"
    return "".join(parts), None


def _reason(exc: Exception) -> str:
    text = " ".join(str(exc).split())[:200]
    name = re.sub(r"(?<!^)(?=[A-Z])", " ", type(exc).__name__.removesuffix("Error")).lower()
    return f"{name} ({text})" if text else name


def _serialize(element, parts: list[str]) -> str | None:
    """Append the MathML of `element` to `parts`, kept to known attributes, every text escaped; the
    first unknown command (a `\\name` latex2mathml left as an identifier), or None."""
    attributes = "".join(
        f' {name}="{html.escape(value)}"' for name, value in element.attrib.items() if name in ATTRIBUTES
    )
    text = html.unescape(element.text or "")  # latex2mathml writes characters as references: `&#x003B1;`
    unknown = text if element.tag in ("mi", "mo") and UNKNOWN_COMMAND.fullmatch(text) else None
    parts.append(f"<{element.tag}{attributes}>{html.escape(text, quote=False)}")
    for child in element:
        unknown = _serialize(child, parts) or unknown
        parts.append(html.escape(html.unescape(child.tail or ""), quote=False))
    parts.append(f"</{element.tag}>")
    return unknown or None


def math_errors(page_html: str) -> list[tuple[int, str]]:
    """(0-based body line, why) of each formula of the article's own body that shows its source."""
    if 'class="math-error" data-line=' not in page_html:
        return []
    return [(int(match.group(1)), html.unescape(match.group(2))) for match in ERROR.finditer(page_html)]
