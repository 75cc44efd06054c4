"""Every pass, on any text, frontmatter and file name: no exception, and every output within its contract.

The property tests of the wikilink parser (tests/markdown/test_wikilinks_plugin.py), carried to the whole
pipeline of passes over a small wiki held in memory (`run_inline` validates each output against its
contract): a pass that raises fails its job, and the page then shows none of its work.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.inline import run_inline

# The pieces of every syntax the parser knows, to be put together in any order with any text between them.
MARKUP = [
    "[[", "]]", "![[", "|", "#", "^", "^[", "[^1]", "[^1]: x", "`", "```", "\\", "%%", "<!--", "-->", ">",
    "> [!note]", "- [ ] ", "| a | b |\n|---|---|\n", "==", "~~", "---", "\n", "\n\n", "    ", "#tag", " ^id",
    "[t](b.md)", "$$", "{#x}",
]  # fmt: skip
LINKS = ["[[b]]", "[[b#^id]]", "[[b#A#B]]", "![[b#A]]", "![[a]]", "[[ก]]"]  # to the files PATH names
TEXT = st.lists(st.one_of(st.sampled_from(MARKUP), st.text(max_size=6), st.sampled_from(LINKS)), max_size=24).map("".join)
FRONTMATTER = st.one_of(
    st.just(""),
    TEXT.map(lambda text: f"---\n{text}\n---\n"),
    TEXT.map(lambda text: f"---\n{text}\n"),  # never closed
    st.just("---\ntitle: B\naliases: [ก]\ntags: x, #y\n---\n"),
    st.just("---\ntags: [1, null, '#']\ntitle: ''\n---\n"),
)
NAME = st.text(st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="/\\"), min_size=1, max_size=8)
PATH = st.one_of(st.sampled_from(["a.md", "b.md", "ก.md", "f/b.es.md"]), NAME.map(lambda name: f"{name}.md"))


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(PATH, st.tuples(FRONTMATTER, TEXT).map("".join), min_size=1, max_size=3))
def test_no_pass_raises_on_any_wiki(files):
    outputs = run_inline(files)
    assert set(outputs["html"]) == set(files)  # every pass made an output for every file
