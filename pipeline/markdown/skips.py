"""Where a parse's inline rules took text that is not prose: code spans, links, HTML, entities.

Passes that look for words in running text (the mentions pass, through
`passes/prose.py`) must leave everything else alone, and markdown-it tells
where an inline token's text came from only by line. So every inline rule
but those of prose is wrapped to note the `[start, end)` range of the
token's content it took, in `env[SKIPS]`, when the parse's env holds that
key. The parse the passes of an article share does (`markdown.parse`): the
links pass finds the prose from it, without scanning a paragraph again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pipeline.markdown.autolinks import RULE as URL_RULE

if TYPE_CHECKING:
    from markdown_it import MarkdownIt

# Inline rules whose characters are prose; any other rule's are not.
PROSE_RULES = frozenset({"text", "newline", "emphasis", "strikethrough", "highlight", "literal_brackets"})
# The rule that takes a bare URL (`autolinks.py`) at the `:` of its `://` takes its scheme back from the text
# before it, so what it took starts that much earlier (no mention is found in `https`).
SCHEME_RULES = frozenset({URL_RULE})
SKIPS = "prose_skips"  # env key: id of an inline token's content -> the ranges its rules took

Span = tuple[int, int]


def noting_skips(md: MarkdownIt) -> None:
    """Wrap every inline rule of `md` but the prose ones to note what it took (call after every plugin)."""
    for rule in list(md.inline.ruler.__rules__):
        if rule.name not in PROSE_RULES:
            md.inline.ruler.at(rule.name, _noting(rule.name, rule.fn), {"alt": rule.alt})


def scheme_before(name: str, state) -> int:
    """How much of the text before `state.pos` the inline rule `name` takes back if it succeeds there (a bare URL's
    scheme); asked before it runs."""
    if name not in SCHEME_RULES or not state.pending or not state.src.startswith("://", state.pos):
        return 0
    from markdown_it.rules_inline.linkify import SCHEME_RE  # the rule's own: what it takes back is what it finds

    found = SCHEME_RE.search(state.pending)
    return len(found.group(1)) if found else 0


def _noting(name: str, fn):
    def rule(state, silent: bool) -> bool:
        start = state.pos - (0 if silent else scheme_before(name, state))
        if not fn(state, silent):
            return False
        skips = None if silent else state.env.get(SKIPS)
        if skips is not None:
            # Keyed by the token's content, the text its inline parse and nested ones (a link's label)
            # share and that lives as long as the token (its children list may be replaced later).
            # Nested ranges fall inside the one around them.
            skips.setdefault(id(state.src), []).append((start, state.pos))
        return True

    return rule


def skipped(env: dict, token) -> list[Span] | None:
    """The ranges of an inline `token`'s content its rules took, or None when its parse noted none."""
    skips = env.get(SKIPS)
    return None if skips is None else skips.get(id(token.content), [])
