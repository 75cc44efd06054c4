"""mentions pass: unlinked mentions of other articles' titles and aliases, as suggestions and a diff."""

from __future__ import annotations

import hashlib
import pickle
import random
from pathlib import Path

import pytest
from markdown_it.utils import read_fixture_file

from pipeline.inline import DEFAULT_OPTIONS
from pipeline.inline import articles_from, run_inline
from pipeline.passes import links, mentions, metadata
from pipeline.passes.base import Wiki
from pipeline.passes.prose import prose_pieces
from pipeline.passes.registry import spec_of

FIXTURES = Path(__file__).parent / "fixtures" / "mentions"
SPECS = [spec_of(metadata), spec_of(links), spec_of(mentions)]
FRONT = "---\ntitle: Self Page\naliases: [myself]\n---\n"
WIKI = {
    "ring.md": "---\ntitle: Ring\n---\nx\n",
    "three-ring.md": "---\ntitle: Three Ring Architecture\n---\nx\n",
    "big-three.md": "---\ntitle: Big Three\n---\nx\n",
    "arch.md": "---\ntitle: Architecture\naliases: [arch]\n---\nx\n",
    "cafe.md": "---\ntitle: Café\n---\nx\n",
    "node.md": "---\ntitle: Node.js\n---\nx\n",
    "dotnet.md": "---\ntitle: .NET\n---\nx\n",
    "anillo.es.md": "---\ntitle: Anillo\n---\nx\n",
}


def mentions_of(files: dict, **options) -> dict[str, dict]:
    return run_inline(files, specs=SPECS, options=options)["mentions"]


def run(body: str, front: str = FRONT, **options) -> dict:
    return mentions_of({**WIKI, "a.md": front + body}, **options)["a.md"]


@pytest.mark.parametrize("line,title,text,expected", read_fixture_file(FIXTURES / "mentions.md"), ids=lambda v: str(v)[:40])
def test_fixture(line, title, text, expected):
    out = run(text)
    assert mentions.apply_suggestions(text, out["suggestions"], first_line=FRONT.count("\n") + 1) == expected


def test_positions_are_file_positions_and_the_diff_makes_the_edit():
    out = run("intro\n\n> see the ring here\n")
    [suggestion] = out["suggestions"]
    assert suggestion == {
        "target_slug": "ring", "target_path": "ring.md", "target_url": "ring/", "mention": "ring",
        "line": 7, "col": 11, "end_col": 15, "replacement": "[[ring|ring]]",
    }  # fmt: skip
    assert [(d["code"], d["severity"], d["line"], d["col"]) for d in out["diagnostics"]] == [
        ("unlinked-mention", "info", 7, 11)
    ]
    edited = FRONT + "intro\n\n> see the [[ring|ring]] here\n"
    assert out["edit"]["edited_sha256"] == hashlib.sha256(edited.encode()).hexdigest()
    assert "-> see the ring here\n+> see the [[ring|ring]] here\n" in out["edit"]["diff"]
    assert out["edit"]["diff"].startswith("--- a/a.md\n+++ b/a.md\n")


def test_suggest_is_the_default_and_apply_only_marks_the_edit():
    suggested, applied = run("A ring.\n"), run("A ring.\n", autolink="apply")
    assert (suggested["mode"], suggested["edit"]["applied"]) == ("suggest", False)
    assert (applied["mode"], applied["edit"]["applied"]) == ("apply", True)
    assert applied["suggestions"] == suggested["suggestions"]
    assert applied["edit"]["diff"] == suggested["edit"]["diff"]


def test_no_mentions_no_edit():
    out = run("Nothing to see.\n")
    assert out == {"mode": "suggest", "suggestions": [], "diagnostics": [], "edit": None}


def test_same_language_only():
    files = {**WIKI, "b.es.md": "---\ntitle: B\n---\nEl Anillo y el Ring.\n", "b.md": "---\ntitle: B\n---\nAnillo.\n"}
    out = mentions_of(files)
    assert [s["target_path"] for s in out["b.es.md"]["suggestions"]] == ["anillo.es.md"]
    assert out["b.md"]["suggestions"] == []


def test_a_name_two_articles_claim_links_to_neither_and_a_title_beats_an_alias():
    files = {
        "x.md": "---\ntitle: Overview\n---\nx\n",
        "y.md": "---\ntitle: Overview\naliases: [Summary]\n---\nx\n",
        "z.md": "---\ntitle: Summary\n---\nx\n",
        "a.md": "---\ntitle: A\n---\nOverview and summary.\n",
    }
    assert [s["target_path"] for s in mentions_of(files)["a.md"]["suggestions"]] == ["z.md"]


def test_a_shared_slug_links_by_path_and_drafts_are_no_targets():
    files = {
        "guides/intro.md": "---\ntitle: Guide intro\n---\nx\n",
        "intro.md": "---\ntitle: Intro\n---\nx\n",
        "wip.md": "---\ntitle: Work in progress\ndraft: true\n---\nx\n",
        "a.md": "---\ntitle: A\n---\nGuide intro, intro and work in progress.\n",
    }
    out = mentions_of(files)["a.md"]["suggestions"]
    assert [(s["target_path"], s["replacement"]) for s in out] == [
        ("guides/intro.md", "[[guides/intro|Guide intro]]"),
        ("intro.md", "[[/intro|intro]]"),
    ]


def test_an_own_alias_is_not_linked_even_when_another_article_has_that_title():
    assert run("Ring and Café.\n", front="---\ntitle: Self\naliases: [ring]\n---\n")["suggestions"][0]["mention"] == "Café"
    assert run("Ring and Café.\n", front="---\ntitle: Self\n---\n")["suggestions"][0]["mention"] == "Ring"


def test_decomposed_accents_match_a_composed_title():
    out = run("Un Cafe\u0301 noir.\n")
    assert [(s["mention"], s["target_path"]) for s in out["suggestions"]] == [("Cafe\u0301", "cafe.md")]


def test_the_first_word_filter_keeps_every_mention_it_must():
    # Paragraphs without a name's first word are skipped; these each hold one, in any case or after a symbol.
    body = "Nothing here.\n\nAll about THREE ring architecture.\n\nPlain words.\n\nSee (.net) and node.js.\n"
    found = [s["mention"] for s in run(body)["suggestions"]]
    assert found == ["THREE ring architecture", ".net", "node.js"]


def test_prose_pieces_look_only_into_paragraphs_on_wanted_lines():
    body = "alpha beta\n\ngamma delta\nepsilon\n\n- zeta\n"
    assert [p.line for p in prose_pieces(body)] == [0, 2, 3, 5]
    assert [p.line for p in prose_pieces(body, wanted={3})] == [2, 3]  # the whole paragraph, from any of its lines
    assert [p.line for p in prose_pieces(body, wanted={1, 4, 6})] == []


def test_a_file_without_frontmatter_counts_lines_from_one():
    out = mentions_of({**WIKI, "bare.md": "Ring first.\n"})["bare.md"]
    assert [(s["line"], s["col"]) for s in out["suggestions"]] == [(1, 1)]


def _wiki(files: dict, prose: bool = True) -> Wiki:
    """The wiki with metadata results, and links results (where the prose and its words are) with `prose`."""
    articles = articles_from(files)
    wiki = Wiki(options=dict(DEFAULT_OPTIONS), articles=articles)
    for spec in (metadata, links) if prose else (metadata,):
        wiki.results[spec.PASS.name] = {a.capture_id: spec.run(a, spec.select(a, wiki)) for a in articles}
    return wiki


def _selected(files: dict, prose: bool = True) -> dict[str, dict]:
    wiki = _wiki(files, prose)
    return {a.path: mentions.select(a, wiki) for a in wiki.articles}


class _Reading(dict):
    """Metadata results that note which are read (a build's are decoded when read), each known by a digest."""

    def __init__(self, outputs: dict) -> None:
        super().__init__(outputs)
        self.read: list[int] = []

    def __getitem__(self, capture_id):
        self.read.append(capture_id)
        return super().__getitem__(capture_id)

    def digest(self, capture_id) -> str:
        return hashlib.sha256(repr(super().__getitem__(capture_id)).encode()).hexdigest()


def test_a_new_worlds_index_reads_only_the_metadata_results_not_kept_as_they_are():
    files = {**WIKI, "shared.md": "---\ntitle: Shared\nslug: ring\n---\nx\n", "draft.md": "---\ntitle: D\ndraft: true\n---\n"}
    last = _wiki(files, prose=False)
    last.results["metadata"] = _Reading(last.results["metadata"])
    kept = pickle.loads(pickle.dumps(mentions._owns(last, {})))  # as a build keeps it: sharded
    renamed = {**files, "arch.md": "---\ntitle: Archways\n---\nx\n", "new.md": "---\ntitle: New\n---\nx\n"}
    del renamed["cafe.md"]
    now = _wiki(renamed, prose=False)
    now.results["metadata"] = _Reading(now.results["metadata"])
    owns = mentions._owns(now, kept)
    assert sorted(now.results["metadata"].read) == sorted(a.capture_id for a in now.articles if a.path in ("arch.md", "new.md"))
    now.memo(mentions.OWNS, lambda: owns)
    assert mentions._indexes(now) == mentions._indexes(_wiki(renamed, prose=False))  # what the index is made of anew


def _paths(selected: dict) -> list[str]:
    return [entry[0] for entry in selected["index"]["entries"]]


def test_select_keeps_the_names_of_the_language_the_prose_could_hold():
    files = {**WIKI, "a.md": FRONT + "The ring, the BIG three and `cafe`.\n", "b.es.md": "---\ntitle: B\n---\nUn anillo.\n"}
    selected = _selected(files)
    # Every word of a name must be in the prose: not "architecture", nor "cafe" (code is not prose).
    assert _paths(selected["a.md"]) == ["big-three.md", "ring.md"]
    assert _paths(selected["b.es.md"]) == ["anillo.es.md"]
    assert selected["ring.md"]["index"] is selected["cafe.md"]["index"]  # prose without a name: the empty index
    assert _paths(selected["ring.md"]) == []
    # Without the links pass's words (its job failed), the whole index of the language, shared.
    whole = _selected(files, prose=False)
    assert whole["a.md"]["index"] is whole["ring.md"]["index"]
    assert _paths(whole["b.es.md"]) == ["anillo.es.md", "b.es.md"]


def test_select_changes_exactly_with_names_the_prose_could_hold():
    base = {**WIKI, "a.md": FRONT + "Ring.\n"}
    before = _selected(base)["a.md"]
    # Bodies, other frontmatter, other languages and names the prose cannot hold do not matter ...
    same = {**base, "ring.md": "---\ntitle: Ring\ncategories: [x]\n---\nnew body\n", "anillo.es.md": "---\ntitle: Otro\n---\n"}
    assert _selected(same)["a.md"] == before
    assert _selected({**base, "cafe.md": "---\ntitle: Café\naliases: [coffee]\n---\nx\n"})["a.md"] == before
    assert _selected({**base, "new.md": "---\ntitle: Ring Road\n---\nx\n"})["a.md"] == before
    # ... a name it could hold does, as it was or as it is.
    assert _selected({**base, "ring.md": "---\ntitle: Rings\n---\nx\n"})["a.md"] != before
    assert _selected({**base, "cafe.md": "---\ntitle: Café\naliases: [ring]\n---\nx\n"})["a.md"] != before
    assert _selected({**base, "new.md": "---\ntitle: RING\n---\nx\n"})["a.md"] != before


def _narrowed_and_whole(files: dict, monkeypatch) -> tuple[dict, dict]:
    """Each article's mentions output, found with its narrowed index and with the whole index of its language."""
    wiki = _wiki(files)
    narrowed = {a.path: mentions.run(a, mentions.select(a, wiki)) for a in wiki.articles}
    monkeypatch.setattr(mentions, "_narrowed", lambda index, *rest: index)
    return narrowed, {a.path: mentions.run(a, mentions.select(a, wiki)) for a in wiki.articles}


TRICKY = ["ring", "Ring", "three", "THREE", "architecture", "big", "café", "Cafe\u0301", "CAFÉ", "node.js", "node", "js",
          ".net", ".NET", "net", "arch", "myself", "self", "page", "Self Page", "ﬁle", "file", "Straße", "strasse", "(", ")",
          ".", ",", " ", " ", " ", "\n", "\n\n", "`code`", "[[ring]]", "**", "_", "-"]  # fmt: skip


def test_narrowed_indexes_find_what_whole_ones_find(monkeypatch):
    """Random prose of names, their parts, cases, accents, ligatures and symbols: the same mentions either way."""
    draw = random.Random(11)
    names = {**WIKI, "file.md": "---\ntitle: File\naliases: [Straße]\n---\nx\n", "big2.md": "---\ntitle: big three\n---\nx\n"}
    bodies = {f"p{n}.md": FRONT + "".join(draw.choice(TRICKY) for _ in range(draw.randint(1, 40))) + "\n" for n in range(150)}
    narrowed, whole = _narrowed_and_whole({**names, **bodies}, monkeypatch)
    assert narrowed == whole
    assert sum(len(out["suggestions"]) for out in narrowed.values()) > 100


@pytest.mark.slow
def test_narrowed_indexes_find_what_whole_ones_find_in_the_real_wiki(pointsav, monkeypatch):
    files = {p.relative_to(pointsav).as_posix(): p.read_bytes() for p in sorted(pointsav.rglob("*.md"))}
    narrowed, whole = _narrowed_and_whole(files, monkeypatch)
    assert narrowed == whole
    assert sum(len(out["suggestions"]) for out in narrowed.values()) > 1000


def test_apply_suggestions_skips_a_suggestion_that_no_longer_fits():
    stale = {"line": 1, "col": 1, "end_col": 5, "mention": "Ring", "replacement": "[[ring|Ring]]"}
    assert mentions.apply_suggestions("Ring and more", [stale]) == "[[ring|Ring]] and more"
    assert mentions.apply_suggestions("Rang and more", [stale]) == "Rang and more"


@pytest.mark.slow
def test_the_real_wiki_gets_applicable_suggestions(pointsav):
    files = {p.relative_to(pointsav).as_posix(): p.read_bytes() for p in sorted(pointsav.rglob("*.md"))[:150]}
    out = mentions_of(files)
    suggestions = [(path, s) for path, o in out.items() for s in o["suggestions"]]
    assert suggestions
    for path, s in suggestions:
        line = files[path].decode("utf-8-sig").split("\n")[s["line"] - 1]
        assert line[s["col"] - 1 : s["end_col"] - 1] == s["mention"]
        assert s["target_path"] != path
