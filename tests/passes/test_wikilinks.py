"""wikilinks pass: resolution steps, ambiguity, language, redirects, anchors, edits, the real wiki."""

from __future__ import annotations

import hashlib
import subprocess
import time

import pytest
import yaml

from pipeline.inline import run_inline
from pipeline.passes import headings, links, metadata, wikilinks
from pipeline.passes.registry import spec_of

SPECS = [spec_of(m) for m in (metadata, headings, links, wikilinks)]


def page(title: str, body: str = "", **front) -> str:
    extra = "".join(f"{key}: {value}\n" for key, value in front.items())
    return f"---\ntitle: {title}\n{extra}---\n{body}"


def resolve(files: dict, path: str = "a.md", data: dict | None = None) -> dict:
    return run_inline(files, specs=SPECS, data=data)["wikilinks"][path]


def summary(out: dict) -> list[tuple]:
    return [(k["target"], k["status"], k["step"], k["target_path"], k["url"]) for k in out["links"]]


def test_each_resolution_step_in_order():
    files = {
        "a.md": page("A", "[[b]] [[B_Page]] [[old-name]] [[moved]] [[The C Page]] [[guides/d]] [[guides/d.md]]\n"),
        "b.md": page("B", slug="b"),
        "b-page.md": page("B page"),
        "c.md": page("The C Page", aliases="[old-name]"),
        "guides/d.md": page("D"),
        "guides/e.md": page("E"),
    }
    out = resolve(files, data={"redirects": {"redirects": [{"from": "/moved", "to": "/guides/e"}]}})
    assert summary(out) == [
        ("b", "ok", "exact", "b.md", "b/"),
        ("B_Page", "ok", "normalized", "b-page.md", "b-page/"),
        ("old-name", "ok", "alias", "c.md", "c/"),
        ("moved", "ok", "redirect", "guides/e.md", "guides/e/"),
        ("The C Page", "ok", "title", "c.md", "c/"),
        ("guides/d", "ok", "path", "guides/d.md", "guides/d/"),
        ("guides/d.md", "ok", "path", "guides/d.md", "guides/d/"),
    ]
    assert out["diagnostics"] == []


def test_plain_redirect_mapping_and_folder_index():
    files = {"a.md": page("A", "[[gone]] [[guides/]]\n"), "guides/_index.md": page("Guides"), "x.md": page("X")}
    out = resolve(files, data={"redirects": {"/gone": "/x"}})
    assert [(k["status"], k["target_path"]) for k in out["links"]] == [("ok", "x.md"), ("ok", "guides/_index.md")]


def test_two_candidates_at_one_step_are_ambiguous():
    files = {"a.md": page("A", "[[setup]]\n"), "x/setup.md": page("S1"), "y/setup.md": page("S2")}
    out = resolve(files)
    assert out["links"][0]["status"] == "ambiguous"
    assert [(d["code"], d["line"], d["col"]) for d in out["diagnostics"]] == [("ambiguous-link", 4, 1)]
    assert "x/setup.md" in out["diagnostics"][0]["message"] and "y/setup.md" in out["diagnostics"][0]["message"]


def test_language_preference_and_fallback():
    files = {
        "a.es.md": page("A", "[[b]] y [[c]]\n"),
        "b.md": page("B"),
        "b.es.md": page("B es"),
        "c.md": page("C"),
    }
    out = resolve(files, "a.es.md")
    assert [(k["status"], k["target_path"], k["target_lang"], k["url"]) for k in out["links"]] == [
        ("ok", "b.es.md", "es", "es/b/"),
        ("fallback", "c.md", "en", "c/"),
    ]


def test_paired_with_joins_differently_named_files():
    files = {"a.es.md": page("A", "[[c]]\n"), "c.md": page("C"), "c-es.es.md": page("C es", paired_with="c.md")}
    assert resolve(files, "a.es.md")["links"][0]["target_path"] == "c-es.es.md"


def test_broken_link_points_at_the_wanted_list():
    out = resolve({"a.es.md": page("A", "text\n[[Missing Page|falta]]\n")}, "a.es.md")
    (link,) = out["links"]
    assert (link["status"], link["url"], link["step"]) == ("broken", "es/special/wanted/#wanted-missing-page", None)
    assert [(d["code"], d["line"], d["col"]) for d in out["diagnostics"]] == [("broken-link", 5, 1)]


def test_heading_fragments_are_checked_against_the_target():
    files = {"a.md": page("A", "[[b#Setup Steps]] [[b#setup-steps]] [[b#nope]]\n"), "b.md": page("B", "## Setup steps\n")}
    out = resolve(files)
    assert [(k["anchor"], k["url"]) for k in out["links"]] == [
        ("ok", "b/#setup-steps"), ("ok", "b/#setup-steps"), ("missing", "b/#nope"),
    ]  # fmt: skip
    assert [(d["code"], d["col"]) for d in out["diagnostics"]] == [("broken-anchor", 37)]


def test_same_page_and_self_links():
    files = {"a.md": page("A", "# Top\n[[#Top]] [[#gone]] [[a]]\n")}
    out = resolve(files)
    assert [(k["status"], k["url"], k["anchor"]) for k in out["links"]] == [
        ("self", "#top", "ok"), ("self", "#gone", "missing"), ("self", "a/", None),
    ]  # fmt: skip
    assert [d["code"] for d in out["diagnostics"]] == ["broken-anchor"]


def test_block_ids_and_heading_paths_are_anchors():
    links_ = "[[b#^intro]] [[b#^gone]] [[b#Mobile#Install]] [[b#Desktop#Install]] [[b#Desktop#Mobile]] [[#^own]]"
    files = {
        "a.md": page("A", f"{links_}\n\nLast words. ^own\n"),
        "b.md": page("B", "Intro text. ^intro\n\n## Desktop\n### Install\n## Mobile\n### Install\n"),
    }
    out = resolve(files)
    assert [(k["anchor"], k["url"]) for k in out["links"]] == [
        ("ok", "b/#^intro"), ("missing", "b/#^gone"), ("ok", "b/#install-1"), ("ok", "b/#install"),
        ("missing", "b/#Desktop#Mobile"), ("ok", "#^own"),
    ]  # fmt: skip
    assert [d["message"] for d in out["diagnostics"]] == [
        "b.md has no block '#^gone'", "b.md has no heading '#Desktop#Mobile'",  # Mobile is not under Desktop
    ]


def test_exact_links_propose_no_edit():
    assert resolve({"a.md": page("A", "[[b]]\n"), "b.md": page("B")})["edit"] is None


def test_loose_links_get_an_edit_that_applies(tmp_path):
    text = page("A", "See [[B Page]] and [[old|the old one]] and\n[[B_Page#Part]] end")
    files = {"a.md": text, "b-page.md": page("B page", "## Part\n"), "c.md": page("C", aliases="[old]")}
    edit = resolve(files)["edit"]
    assert edit["applied"] is False
    (tmp_path / "a.md").write_text(text, encoding="utf-8")
    (tmp_path / "e.diff").write_text(edit["diff"], encoding="utf-8")
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "--check", "e.diff"], cwd=tmp_path, check=True)
    subprocess.run(["git", "apply", "e.diff"], cwd=tmp_path, check=True)
    edited = (tmp_path / "a.md").read_text(encoding="utf-8")
    assert hashlib.sha256(edited.encode()).hexdigest() == edit["edited_sha256"]
    assert "See [[b-page|B Page]] and [[c|the old one]] and\n[[b-page#Part|B_Page#Part]] end" in edited


def test_select_slice_changes_only_with_what_the_article_links_to():
    from pipeline.inline import articles_from
    from pipeline.passes.base import Wiki

    def slices(files):
        articles = articles_from(files)
        wiki = Wiki(options={"default_language": "en", "languages": None}, articles=articles)
        for spec in SPECS[:3]:
            wiki.results[spec.name] = {a.capture_id: spec.run(a, spec.select(a, wiki) if spec.select else {})
                                       for a in articles}  # fmt: skip
        return {a.path: wikilinks.select(a, wiki) for a in articles}

    base = {"a.md": page("A", "[[b]]\n"), "c.md": page("C", "[[d#x]]\n"), "b.md": page("B"), "d.md": page("D", "# X\n")}
    before = slices(base)
    after = slices({**base, "b.md": page("B", "# New heading\n"), "d.md": page("D", "# X\n# Y\n")})
    assert after["a.md"] == before["a.md"]  # b's headings are not read: no link to b has a fragment
    assert after["c.md"] == before["c.md"]  # of d's heading ids only #x is read, and it is still there
    renamed = slices({**base, "d.md": page("D", "# Z\n")})
    assert renamed["c.md"] != before["c.md"]  # [[d#x]] now points at no heading


@pytest.mark.slow
def test_real_wiki(pointsav):
    files = {
        p.relative_to(pointsav).as_posix(): p.read_bytes()
        for p in pointsav.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(pointsav).parts)
    }
    redirects = yaml.safe_load((pointsav / "redirects.yaml").read_text(encoding="utf-8"))
    started = time.perf_counter()
    out = run_inline(files, specs=SPECS, data={"redirects": redirects})
    seconds = time.perf_counter() - started
    found = [k for result in out["wikilinks"].values() for k in result["links"]]
    broken = [(path, k["line"], k["raw"]) for path, r in out["wikilinks"].items() for k in r["links"] if k["status"] == "broken"]
    print(f"\n{len(files)} files, {len(found)} links, {len(broken)} broken, {seconds:.2f}s: {broken[:5]}")
    assert len(found) > 4000
    assert not [k for k in found if "KILL_SWITCH" in k["raw"]]
    assert not [k for k in found if k["target"] in ("pd", "mounts", "protection_domains")]  # TOML in fences
    assert {k["status"] for k in found} <= set(wikilinks.STATUSES)


def test_the_index_reads_the_headings_of_link_targets_only():
    from pipeline.inline import articles_from
    from pipeline.passes.base import Wiki

    files = {"a.md": page("A", "[[b#x]] [[c]]\n"), "b.md": page("B", "# X\n"), "c.md": page("C", "# Y\n")}
    articles = articles_from(files)
    wiki = Wiki(options={"default_language": "en", "languages": None}, articles=articles)
    for spec in SPECS[:3]:
        wiki.results[spec.name] = {a.capture_id: spec.run(a, spec.select(a, wiki) if spec.select else {})
                                   for a in articles}  # fmt: skip
    read = []
    by_id, paths = wiki.results["headings"], {a.capture_id: a.path for a in articles}
    wiki.results["headings"] = RecordingMapping(by_id, lambda capture_id: read.append(paths[capture_id]))
    inputs = wikilinks.select(articles[0], wiki)
    assert read == ["b.md"]  # not a.md (no [[#...]] link), not c.md (no fragment)
    assert inputs["targets"]["b"]["candidates"][0]["anchors"] == {"x": "x"}  # what its fragment points at, only


class RecordingMapping(dict):
    def __init__(self, data, seen):
        super().__init__(data)
        self.seen = seen

    def get(self, key, default=None):
        self.seen(key)
        return super().get(key, default)


def test_a_kept_index_holds_tuples_and_finds_what_the_built_one_found():
    import pickle

    from pipeline.passes.link_index_build import build_index

    files = {"a.md": page("Alpha", aliases="[First]"), "docs/b.md": page("Beta"), "docs/b.es.md": page("Beta"),
             "c.md": page("beta")}  # fmt: skip
    records = [{**meta, "path": path} for path, meta in run_inline(files)["metadata"].items()]
    built = build_index(records, [{"source": "old-alpha", "target": "/a"}], "en", lambda path: [])
    kept = pickle.loads(pickle.dumps(built))
    assert {type(groups) for table in kept.tables.values() for groups in table.values()} == {tuple}
    for target, folder in (("beta", ""), ("Beta", "docs"), ("first", ""), ("docs/b", ""), ("old-alpha", ""), ("x", "")):
        assert kept.find(target, folder) == built.find(target, folder)
    assert kept.find("beta", "") == ("title", ["c", "docs/b"])  # an ambiguity stays one, in order
