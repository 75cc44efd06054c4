"""Code blocks: highlighted at build time with Pygments, with a title, line numbers and marked lines.

A fence's info string takes the options MkDocs Material (pymdownx.highlight)
takes: ```` ```python title="app.py" linenums="1" hl_lines="2 3-4" ````.
`linenums` is the number of the first line; `hl_lines` counts the block's
lines from 1 whatever `linenums` says. A language Pygments does not know, or
none, is plain escaped text. Every code block (fenced or indented) is a
`<div class="code-block">` around its `<pre>`, where the theme's script puts a
copy button; the `<code>` keeps markdown-it's `language-x` class.

Pygments loads with the first block that names a language (a page without
one never loads it), or in the build's forked helper while the build plans
(`load_highlighter`, with the lexers an edit's changed files name); lexers are
kept by name, and short blocks by their text (a snippet a wiki repeats is
highlighted once per process). One rendering highlights
at most `HIGHLIGHT_BUDGET` characters of code, so hostile text stays fast:
the blocks past it are plain text.

`python -m pipeline.markdown.code` writes the theme's `assets/code.css`, the
light and dark Pygments styles (see `stylesheet`).
"""

from __future__ import annotations

import functools
import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:  # markdown-it loads with the first parser (`make_parser`), not with the passes
    from markdown_it import MarkdownIt

HIGHLIGHT_BUDGET = 500_000  # characters of code one rendering highlights; the blocks past it are plain text
# A wiki repeats its short snippets (an install command, a config line) from page to page, and highlighting is a
# pure function of the code and the lexer: the last few hundred short ones are remembered, a longer one never held.
REMEMBERED_LENGTH = 2_000  # characters
BUDGET_USED = "code_highlighted"  # env key: the characters highlighted so far in this rendering
OPTION = re.compile(r"""([A-Za-z_][\w-]*)=(?:"([^"]*)"|'([^']*)'|(\S+))""")
LINE_RANGE = re.compile(r"(\d+)(?:-(\d+))?")
LEXERS_AHEAD = 8  # languages whose lexers `load_highlighter` makes ahead, at most
# The language a fence's info string names (its first word), as CommonMark opens a fence: to load its lexer ahead.
FENCE_LANGUAGE = re.compile(r"^[ \t]{0,3}(?:`{3,}|~{3,})[ \t]*([^\s`{]+)", re.MULTILINE)
# Pygments' styles for the theme's two colour schemes: token colours at WCAG AA contrast on the theme's
# code background (`--panel` in wiki.css) in each.
LIGHT_STYLE, DARK_STYLE = "xcode", "lightbulb"


def code_plugin(md: MarkdownIt) -> None:
    md.add_render_rule("fence", render_fence)
    md.add_render_rule("code_block", render_code_block)


def render_fence(self, tokens, idx, options, env) -> str:
    from markdown_it.common.utils import escapeHtml, unescapeAll

    token = tokens[idx]
    language, info = split_info(unescapeAll(token.info).strip())
    title = info.get("title")
    body = highlight(token.content, language, env) if language else None
    if body is None:
        body = escapeHtml(token.content)
    first = _number(info.get("linenums"))
    marked = marked_lines(info.get("hl_lines", ""))
    if first is not None or marked:
        body = decorate_lines(body, first, marked)
    code_class = f' class="{escapeHtml(options["langPrefix"] + language)}"' if language else ""
    title_html = f'<div class="code-title">{escapeHtml(title)}</div>\n' if title else ""
    return f'<div class="code-block">\n{title_html}<pre class="highlight"><code{code_class}>{body}</code></pre>\n</div>\n'


def render_code_block(self, tokens, idx, options, env) -> str:
    from markdown_it.common.utils import escapeHtml

    return f'<div class="code-block">\n<pre class="highlight"><code>{escapeHtml(tokens[idx].content)}</code></pre>\n</div>\n'


def split_info(info: str) -> tuple[str, dict[str, str]]:
    """(language, options) of a fence's info string: its first word, then `key="value"` pairs."""
    language, _, rest = info.partition(" ")
    if "=" in language:  # options with no language: ```title="x"
        language, rest = "", info
    return language.strip("{}."), {m.group(1): next(v for v in m.groups()[1:] if v is not None)
                                   for m in OPTION.finditer(rest)}  # fmt: skip


def _number(value: str | None) -> int | None:
    return int(value) if value and value.isdigit() and int(value) > 0 else None


def marked_lines(value: str) -> frozenset[int]:
    """The line numbers `hl_lines="2 3-4"` names (1 is the block's first line)."""
    found: set[int] = set()
    for match in LINE_RANGE.finditer(value):
        start = int(match.group(1))
        end = int(match.group(2) or start)
        found.update(range(start, min(end, start + 10_000) + 1))  # a range as wide as any real block, no wider
    return frozenset(found)


def highlight(code: str, language: str, env: dict) -> str | None:
    """`code` as Pygments' HTML spans (one line of HTML per line of code); None for a language Pygments
    does not know, or past this rendering's budget."""
    used = env.get(BUDGET_USED, 0)
    if used + len(code) > HIGHLIGHT_BUDGET:
        return None
    language = language.lower()
    if _lexer(language) is None:
        return None
    env[BUDGET_USED] = used + len(code)
    return (_highlighted.__wrapped__ if len(code) > REMEMBERED_LENGTH else _highlighted)(code, language)


@functools.lru_cache(maxsize=512)
def _highlighted(code: str, language: str) -> str:
    from pygments import highlight as pygments_highlight

    return pygments_highlight(code, _lexer(language), _formatter())


@functools.lru_cache(maxsize=256)
def _lexer(name: str):
    from pygments.lexers import get_lexer_by_name

    if name.lower() not in _builtin_aliases():  # asking Pygments would scan every installed package's plugins
        return None
    return get_lexer_by_name(name, stripnl=False)  # keep blank first and last lines: they are numbered


@functools.cache
def _builtin_aliases() -> frozenset[str]:
    """Every alias of Pygments' own lexers, read from its table (no lexer is imported for it)."""
    from pygments.lexers import get_all_lexers

    return frozenset(alias.lower() for _, aliases, _, _ in get_all_lexers(plugins=False) for alias in aliases)


def load_highlighter(texts: Iterable[str] = ()) -> None:
    """Import Pygments, its table of lexers and its formatter now, and make the lexers the fenced blocks of `texts`
    name (a lexer compiles its rules when first made); the build's forked helper does, once it has told the build
    it is ready (`jobs/worker._ready`), so the first highlighted block does not wait for them."""
    _builtin_aliases()
    _formatter()
    import pygments  # noqa: F401

    named = dict.fromkeys(match[1].lower() for text in texts for match in FENCE_LANGUAGE.finditer(text))
    for language in list(named)[:LEXERS_AHEAD]:  # the first few: a page naming hundreds never holds the build up
        _lexer(language)


@functools.cache
def _formatter():
    from pygments.formatters import HtmlFormatter

    return HtmlFormatter(nowrap=True)


def decorate_lines(body: str, first: int | None, marked: frozenset[int]) -> str:
    """Each line of `body` (HTML whose every line closes its own elements) numbered from `first` (None:
    not numbered) and, when marked, wrapped in `<span class="hll">`. A number is a CSS-drawn attribute,
    so copying the code leaves it out."""
    lines = body.split("\n")
    ending = lines.pop() if lines and not lines[-1] else None  # the text after the last newline: none
    out = []
    for position, line in enumerate(lines, start=1):
        number = f'<span class="linenos" data-linenos="{first + position - 1}"></span>' if first is not None else ""
        text = f"{number}{line}\n"
        out.append(f'<span class="hll">{text}</span>' if position in marked else text)
    return "".join(out) + (ending or "")


def stylesheet() -> str:
    """The theme's code colours: the light Pygments style, and the dark one where the dark scheme applies
    (each light rule the dark style lacks is undone there, so no light colour shows on the dark background)."""
    light, dark = _rules(LIGHT_STYLE), _rules(DARK_STYLE)
    undone = "color: inherit; font-weight: inherit; font-style: inherit; text-decoration: inherit"
    dark = {**{selector: undone for selector in light if selector not in dark}, **dark}
    lines = [f"/* Made by `python -m pipeline.markdown.code` from Pygments' {LIGHT_STYLE!r} and {DARK_STYLE!r} styles. */"]
    lines += [f"{selector} {{ {rule} }}" for selector, rule in light.items()]
    lines.append("@media (prefers-color-scheme: dark) {")
    lines += [f':root:not([data-theme="light"]) {selector} {{ {rule} }}' for selector, rule in dark.items()]
    lines.append("}")
    lines += [f':root[data-theme="dark"] {selector} {{ {rule} }}' for selector, rule in dark.items()]
    return "\n".join(lines) + "\n"


def _rules(style: str) -> dict[str, str]:
    """selector -> declarations of a Pygments style's token rules; no background of the block (code sits on
    the theme's panel colour), no marked-line colour (wiki.css chooses it) and no red box around what a
    lexer could not read (`.err`: code in a wiki is often a fragment)."""
    from pygments.formatters import HtmlFormatter

    rules = {}
    for line in HtmlFormatter(style=style).get_style_defs(".highlight").splitlines():
        match = re.match(r"(\.highlight \.(\w+)) \{ (.*?);? \}", line)
        if match and match.group(2) not in ("hll", "err"):
            rules[match.group(1)] = match.group(3).strip()
    return rules


if __name__ == "__main__":
    target = Path(__file__).resolve().parents[2] / "templates" / "assets" / "code.css"
    target.write_text(stylesheet(), encoding="utf-8")
    sys.stdout.write(f"wrote {target}\n")
