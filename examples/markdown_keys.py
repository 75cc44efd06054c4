"""markdown_keys: an example Markdown extension, `++ctrl+alt+del++` as keyboard keys.

Register it in wiki.yaml by path or dotted name (`markdown: [examples/markdown_keys.py]`,
or with options: `markdown: [{examples/markdown_keys.py: {separator: " + "}}]`), or from an
installed package, with an entry point in the group `pipeline.markdown` naming `EXTENSION`.
`++ctrl+alt+del++` renders as `<kbd class="keys"><kbd>Ctrl</kbd>+<kbd>Alt</kbd>+<kbd>Del</kbd></kbd>`.
"""

from pipeline.markdown.extensions import MarkdownExtension

MARK = "++"


def keys_rule(state, silent: bool) -> bool:
    """`++key+key++` on one line: the keys between the marks, split on `+`."""
    start = state.pos
    if not state.src.startswith(MARK, start):
        return False
    end = state.src.find(MARK, start + len(MARK), state.posMax)
    inner = state.src[start + len(MARK) : end] if end > 0 else ""
    keys = [key.strip() for key in inner.split("+")]
    if not inner or "\n" in inner or not all(keys):
        return False
    if not silent:
        token = state.push("keys", "kbd", 0)
        token.meta = {"keys": keys}
        token.markup = MARK
    state.pos = end + len(MARK)
    return True


def keys_plugin(md, separator: str = "+") -> None:
    """Add the `keys` inline rule (before the emphasis rules, which would take no `+`) and its renderer."""
    from markdown_it.common.utils import escapeHtml

    def render(self, tokens, idx, options, env) -> str:
        keys = (f"<kbd>{escapeHtml(key[:1].upper() + key[1:])}</kbd>" for key in tokens[idx].meta["keys"])
        return f'<kbd class="keys">{escapeHtml(separator).join(keys)}</kbd>'

    md.inline.ruler.before("emphasis", "keys", keys_rule)
    md.add_render_rule("keys", render)


EXTENSION = MarkdownExtension("keys", keys_plugin, version=1, defaults={"separator": "+"})
