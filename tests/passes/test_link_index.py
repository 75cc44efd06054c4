"""The link index: patched from the last read set's with the records that changed, it is what a build makes."""

import pickle
import random

import pytest

from pipeline.passes.link_index_build import build_index, changed_pages, patch_index
from tests.passes.changes import changed

PATHS = [f"{folder}{name}{lang}.md" for folder in ("", "a/", "a/b/") for name in ("x", "y", "z") for lang in ("", ".es")]
NAMES = ["Alpha", "Beta", "alpha", "Gamma Delta", "x", "y"]


def _record(path: str, draw: random.Random) -> dict:
    """Titles, slugs and aliases drawn from a few names (so keys collide), and a `paired_with` maybe."""
    record = {"path": path, "slug": draw.choice(["x", "y", "alpha", path.split("/")[-1][:-3]]),
              "title": draw.choice(NAMES), "aliases": draw.sample(NAMES, draw.randrange(3)),
              "lang": "es" if path.endswith(".es.md") else "en", "paired_with": None}  # fmt: skip
    if draw.random() < 0.4:
        record["paired_with"] = draw.choice(["x.md", "y.es.md", "../x.md", "b/z.md", "missing.md"])
    return record


def _built(records: dict) -> object:
    sources = {path: repr(sorted(record.items())) for path, record in records.items()}
    return build_index(list(records.values()), [{"source": "old", "target": "/a/x/"}], "en", lambda path: [], sources)


def _plain(index) -> tuple:
    """What lookups and answers read of an index: its groups (pages in order), tables (as sets) and files."""
    tables = {name: {key: set(groups) for key, groups in table.items()} for name, table in index.tables.items() if table}
    return index.groups, tables, index.files, index.redirects, index.sources, index.partners


@pytest.mark.parametrize("seed", range(40))
def test_a_patched_index_is_the_index_built_from_the_records_now(seed):
    draw = random.Random(seed)
    before = {path: _record(path, draw) for path in sorted(draw.sample(PATHS, 12))}
    now = changed(before, PATHS, draw, _record)
    old = pickle.loads(pickle.dumps(_built(before)))  # as kept
    kept = _plain(pickle.loads(pickle.dumps(old)))
    sources = _built(now).sources
    patched = patch_index(old, sources, now.__getitem__, lambda path: [])
    assert _plain(patched) == _plain(_built(now))
    assert _plain(old) == kept  # the kept index is compared with the new one: patching leaves it alone
    again = pickle.loads(pickle.dumps(patched))  # kept in its turn, its changes pickled over the shards of `old`
    assert _plain(again) == _plain(_built(now))
    later = changed(now, PATHS, draw, _record)
    assert _plain(patch_index(again, _built(later).sources, later.__getitem__, lambda path: [])) == _plain(_built(later))
    assert {page.path for page in changed_pages(old, patched)} == {
        path for path in before.keys() | now.keys() if old.files.get(path) != _built(now).files.get(path)}


def test_a_kept_index_answers_as_built_reading_a_few_of_its_shards():
    records = [{"path": f"p{n}.md", "slug": f"p{n}", "title": f"Page {n}", "aliases": [f"Alias {n}"], "lang": "en",
                "paired_with": None} for n in range(2000)]  # fmt: skip
    built = build_index(records, [], "en", lambda path: [])
    kept = pickle.loads(pickle.dumps(built))
    kept.headings_of = lambda path: []
    questions = [("p7", "en", "", False), ("Alias 12", "en", "", False), ("page 1999", "en", "", False)]
    assert [kept.resolve(*question) for question in questions] == [built.resolve(*question) for question in questions]
    big = [kept.groups, kept.files, *kept.tables.values()]
    opened = sum(len(mapping._opened) - mapping._opened.count(None) for mapping in big)
    assert opened <= 3 * 6 and opened < sum(len(mapping._opened) for mapping in big) / 50


@pytest.mark.parametrize("seed", range(10))
def test_a_target_found_once_answers_each_question_as_a_fresh_index_does_and_reads_the_same(seed, monkeypatch):
    """`find` is kept apart from the language and headings of a question: a `#fragment` link is asked for
    without headings (own digests) and with them (its select); each answer and what it read stay as before."""
    from pipeline.passes.link_index import LinkIndex

    draw = random.Random(seed)
    records = {path: _record(path, draw) for path in sorted(draw.sample(PATHS, 12))}
    questions = [(target, lang, folder, headings, False) for target in [*NAMES, "a/x", "b/z", "missing"]
                 for lang in ("en", "es") for folder in ("", "a", "a/b") for headings in (False, True)]  # fmt: skip
    draw.shuffle(questions)
    finds = []
    find = LinkIndex.find
    monkeypatch.setattr(LinkIndex, "find", lambda self, *args: finds.append(args) or find(self, *args))
    kept = _built(records)
    answers = [(kept.resolve(*question, read=(read := set())), read) for question in questions]
    assert finds and len(finds) == len(set(finds))  # once a target and folder (asked twice each, with and without headings)
    for question, (answer, read) in zip(questions, answers):
        fresh = _built(records)  # nothing asked before
        assert (fresh.resolve(*question, read=(alone := set())), alone) == (answer, read)
