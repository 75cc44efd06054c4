"""The pairing index: made with the last read set's entries where they hold, it is what a build makes."""

import pickle
import random

import pytest

from pipeline.inline import DEFAULT_OPTIONS
from pipeline.inline import articles_from
from pipeline.passes import metadata
from pipeline.passes.base import Wiki
from pipeline.passes.pairing_index import Entry, Index, build_index, claims_of
from tests.passes.changes import changed

PATHS = [f"{folder}{name}{lang}.md" for folder in ("", "a/") for name in ("x", "y", "z") for lang in ("", ".es")]


def _file(path: str, draw: random.Random) -> str:
    """A title, maybe a slug, a `paired_with` (some naming files that never exist) and a translation key."""
    front = f"title: {draw.choice(['A', 'B'])}\n"
    if draw.random() < 0.3:
        front += f"slug: {draw.choice(['s', 't'])}\n"
    if draw.random() < 0.5:
        front += f"paired_with: {draw.choice(['x.md', 'y.es.md', '../x.md', 'a/z.md', 'missing.md'])}\n"
    if draw.random() < 0.5:
        front += f"translation_key: k{draw.randrange(3)}\n"
    return f"---\n{front}---\nBody.\n"


def _index(files: dict, options: dict, old=None):
    articles = articles_from(files)
    wiki = Wiki(options=options, articles=articles)
    wiki.results["metadata"] = {a.capture_id: metadata.run(a, metadata.select(a, wiki)) for a in articles}
    return build_index(wiki, options, old), claims_of(wiki, options)


@pytest.mark.parametrize("seed", range(30))
def test_an_index_made_with_the_last_read_sets_entries_is_the_index_built_anew(seed):
    draw = random.Random(seed)
    options = {**DEFAULT_OPTIONS, "pairing": draw.choice(["paired_with", "suffix", "key"])}
    before = {path: _file(path, draw) for path in draw.sample(PATHS, 8)}
    now = changed(before, PATHS, draw, _file)
    old = pickle.loads(pickle.dumps(_index(before, options)[0]))  # as kept: its entries pickled as columns
    assert old == _index(before, options)[0] and all(type(entry) is Entry for entry in old.entries.values())
    assert _index(now, options, old) == _index(now, options)
    assert pickle.loads(pickle.dumps(Index())) == Index()  # an empty wiki's


@pytest.mark.parametrize("path", ["x.md", "a/x.md", "a/b/x.es.md"])
@pytest.mark.parametrize("value", ["y.md", "y", ".y.md", "./y.md", "../y.md", "b/y.md", "/y.md", "a//y.md", "y.md/"])
def test_a_paired_with_resolves_from_the_article_folder_as_normpath_joins_it(path, value):
    import posixpath

    from pipeline.passes.pairing_index import resolve

    nearest = posixpath.normpath(posixpath.join(posixpath.dirname(path), value))
    assert resolve(path, value, {nearest}) == nearest  # found beside the article, however it is written
    assert resolve(path, value, set()) == nearest  # and named so when no file has that path
