"""A read set that changed in a few articles' results: the passes that say which articles it reaches
(`AFFECTED`) select again for those alone, and every plan is still the full plan.

Each step edits a small wiki whose articles link to each other by title, slug, alias, path and
file, mention each other's names in prose and pair across languages; builds (the plan passes on what
it can across the change); then plans a copy of the store from scratch, which must find every job
already there and give the same results.
"""

import dataclasses
import random
import shutil

import pytest

from pipeline.build import build
from pipeline.passes import mentions, pairing, wikilinks
from pipeline.storage.results import StoredField
from pipeline.storage.store import open_store
from tests.helpers import record_selects, results_by_path
from tests.site.helpers import without_shortcuts

NAMES = ["Alpha", "Beta Gamma", "Delta", "Gamma", "Old Name", "Epsilon Zeta", "Beta"]
SLUGS = ["alpha", "beta", "p1", "p2", "shared"]
PAIRS = ["p1.md", "p2.es.md", "../g/p3.md", "../f/p9.md", "x1.es.md", "/g/p10.md"]  # some never exist, some later


def _article(number: int, draw: random.Random) -> str:
    """Frontmatter with a title (maybe aliases, a pair), and a body linking and mentioning others."""
    title = f"{draw.choice(NAMES)} {number}" if draw.random() < 0.5 else draw.choice(NAMES)
    front = f"title: {title}\n"
    if draw.random() < 0.3:
        front += f"aliases: [{draw.choice(NAMES)}]\n"
    if draw.random() < 0.3:
        front += f"paired_with: {draw.choice(PAIRS)}\ntranslation_key: k{draw.randrange(4)}\n"
    return f"---\n{front}---\n## Top\n\n{_links(draw)}\n"


def _links(draw: random.Random) -> str:
    """Links to pages by title, alias, slug and path (to pages that may come later too), and prose mentions."""
    page = draw.randrange(12)
    links = [f"[[{draw.choice(NAMES)}]]", f"[[{draw.choice(SLUGS)}#top]]", f"[[p{page}]]", f"[[g/p{page}]]",
             f"[[../g/p{page}]]", f"[x](p{page}.md)", f"[y](../f/x{page}.es.md)", "[[moved]]"]  # fmt: skip
    prose = f"As {draw.choice(NAMES)} says, and {draw.choice(NAMES).lower()} too."
    return f"{' '.join(draw.sample(links, 4))}. {prose}"


def _edit(files: dict, draw: random.Random) -> dict:
    """One change of a kind that changes some pass's read set (or only a body)."""
    path = draw.choice(sorted(p for p in files if p.endswith(".md")))
    text, front = files[path], lambda line: files[path].replace("---\n", f"---\n{line}\n", 1)
    kind = draw.choice(["title", "alias", "add", "remove", "draft", "slug", "pair", "key", "body", "translate"])
    if kind == "title":
        return {path: text.replace("title:", f"title: {draw.choice(NAMES)}\nold_title:", 1)}
    if kind == "alias":
        return {path: front(f"aliases: [{draw.choice(NAMES)}]") if "aliases" not in text
                else text.replace("aliases: [", f"aliases: [{draw.choice(NAMES)}, ", 1)}  # fmt: skip
    if kind == "add":
        return {f"{draw.choice('fg')}/p{draw.randrange(8, 12)}.md": _article(len(files), draw)}
    if kind == "translate":  # a translation under another name, maybe in another folder: it joins the source's group
        source = draw.choice(["p1", "p3", "p9"])
        front = f"title: {draw.choice(NAMES)} es\npaired_with: ../g/{source}.md\ntranslation_key: k{draw.randrange(4)}\n"
        return {f"f/x{draw.randrange(12)}.es.md": f"---\n{front}---\nVer {_links(draw)}\n"}
    changes = {"remove": None, "draft": front("draft: true"), "slug": front(f"slug: {draw.choice(SLUGS)}"),
               "pair": front(f"paired_with: {draw.choice(PAIRS)}"), "key": front(f"translation_key: k{draw.randrange(4)}"),
               "body": text + f"\n{_links(draw)}\n"}  # fmt: skip
    return {path: changes[kind]}


def _apply(config, files: dict, changes: dict) -> None:
    for path, text in changes.items():
        target = config.content_dir / path
        if text is None:
            files.pop(path, None)
            target.unlink(missing_ok=True)
        else:
            files[path] = text
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)


def _assert_full_plan(config, reused, tmp_path) -> None:
    """Plan a copy of the store from scratch: the same jobs (none to create), the same results."""
    shutil.rmtree(tmp_path / "check", ignore_errors=True)
    full = build(without_shortcuts(config, tmp_path / "check"), workers=1, reuse=False)
    assert full.process.created_passes == []
    assert _plain(results_by_path(full)) == _plain(results_by_path(reused))


def _plain(results: dict) -> dict:
    """The results with each field left in the store as its job and name (the copy's store is another file)."""
    return {key: {name: (value.job_id, value.field) if isinstance(value, StoredField) else value
                  for name, value in output.items()} for key, output in results.items()}  # fmt: skip


@pytest.mark.slow
@pytest.mark.parametrize("seed, pairing", [(0, "paired_with"), (1, "paired_with"), (2, "suffix"), (3, "key")])
def test_every_plan_passed_on_across_a_changed_read_set_is_the_full_plan(make_wiki, tmp_path, seed, pairing):
    draw = random.Random(seed)
    files = {f"{folder}/p{n}.md": _article(n, draw) for folder in "fg" for n in range(8)}
    files |= {"f/p1.es.md": f"---\ntitle: Uno\n---\nVer {_links(draw)}\n", "redirects.yaml": "moved: /g/p9/\n"}
    config = make_wiki(files, search=False, pairing=pairing)
    build(config, workers=1)
    for _ in range(12):
        _apply(config, files, _edit(files, draw))
        reused = build(config, workers=1)
        _assert_full_plan(config, reused, tmp_path)


def test_a_title_change_selects_again_only_where_links_or_names_read_it(make_wiki, monkeypatch):
    files = {f"p{i}.md": f"---\ntitle: Page {i}\n---\nSee [[p{(i + 1) % 10}]] and Page {(i + 2) % 10}.\n"
             for i in range(10)}  # fmt: skip
    files |= {"q.md": "---\ntitle: Q\n---\nSee [[Old Title]].\n", "r.md": "---\ntitle: R\n---\nThe New Title.\n"}
    config = make_wiki(files, search=False)
    build(config, workers=1)
    calls = record_selects(monkeypatch, wikilinks, mentions, pairing, name=lambda m, a: f"{m.NAME}:{a.path}")
    (config.content_dir / "p5.md").write_text("---\ntitle: New Title\n---\nSee [[p6]] and Page 7.\n")
    build(config, workers=1)
    # p4 links to p5; q's red link [[Old Title]] read no key of p5. r names the new title in prose, p3 the old.
    assert sorted(calls) == ["mentions:p3.md", "mentions:p5.md", "mentions:r.md", "pairing:p5.md",
                             "wikilinks:p4.md", "wikilinks:p5.md"]  # fmt: skip
    calls.clear()
    (config.content_dir / "p6.md").write_text("---\ntitle: Old Title\n---\nSee [[p7]] and Page 8.\n")
    build(config, workers=1)
    assert "wikilinks:q.md" in calls  # its red link finds p6 now


def test_a_category_change_selects_again_for_that_article_alone(make_wiki, monkeypatch):
    files = {f"p{i}.md": f"---\ntitle: Page {i}\ncategories: [a]\n---\nSee [[p{(i + 1) % 10}]], Page 3.\n"
             for i in range(10)}  # fmt: skip
    config = make_wiki(files, search=False)
    build(config, workers=1)
    calls = record_selects(monkeypatch, wikilinks, mentions, pairing, name=lambda m, a: f"{m.NAME}:{a.path}")
    (config.content_dir / "p3.md").write_text(files["p3.md"].replace("[a]", "[b]"))
    build(config, workers=1)
    assert sorted(calls) == ["mentions:p3.md", "pairing:p3.md", "wikilinks:p3.md"]  # no index changed


def test_links_that_find_a_page_only_later_by_path_file_or_redirect(make_wiki, tmp_path, monkeypatch):
    files = {"f/a.md": "---\ntitle: A\n---\n[[../g/new]], [x](new.es.md), [[moved]] and [[g/]].\n",
             "g/b.md": "---\ntitle: B\n---\nText.\n", "redirects.yaml": "moved: /g/later/\n"}  # fmt: skip
    config = make_wiki(files, search=False)
    build(config, workers=1)
    calls = record_selects(monkeypatch, wikilinks)
    for number, path in enumerate(("g/new.md", "f/new.es.md", "g/later.md", "g/_index.md")):  # each answers a link
        (config.content_dir / path).write_text(f"---\ntitle: Page {number}\n---\nText.\n")
        calls.clear()
        reused = build(config, workers=1)
        assert sorted(calls) == ["f/a.md", path]
        _assert_full_plan(config, reused, tmp_path)


def test_a_removal_that_no_select_reads_still_lends_the_next_change_across(make_wiki, monkeypatch):
    files = {f"p{i}.md": f"---\ntitle: Page {i}\n---\nSee [[p{(i + 1) % 10}]] and Page {(i + 2) % 10}.\n"
             for i in range(10)}  # fmt: skip
    config = make_wiki(files | {"lone.md": "---\ntitle: Lone\n---\nNobody names it.\n"}, search=False)
    build(config, workers=1)
    (config.content_dir / "lone.md").unlink()
    calls = record_selects(monkeypatch, wikilinks, mentions, name=lambda m, a: f"{m.NAME}:{a.path}")
    build(config, workers=1)
    assert calls == []  # no select read lone's names, nor built the indexes they build themselves
    (config.content_dir / "p5.md").write_text("---\ntitle: Page Five\n---\nSee [[p6]] and Page 7.\n")
    build(config, workers=1)
    assert sorted(calls) == ["mentions:p3.md", "mentions:p5.md", "wikilinks:p4.md", "wikilinks:p5.md"]


def test_options_changed_with_a_title_select_everything_again(make_wiki, tmp_path):
    files = {f"p{i}.md": f"---\ntitle: Page {i}\n---\nSee [[p{(i + 1) % 6}]] and Page {(i + 2) % 6}.\n" for i in range(6)}
    config = make_wiki(files, search=False)
    build(config, workers=1)
    (config.content_dir / "p3.md").write_text("---\ntitle: Page Three\n---\nSee [[p4]] and Page 5.\n")
    config = dataclasses.replace(config, autolink="apply")  # every mentions job reads the mode
    _assert_full_plan(config, build(config, workers=1), tmp_path)


def test_a_read_set_recorded_before_its_parts_were_selects_everything_once(make_wiki, tmp_path, monkeypatch):
    files = {f"p{i}.md": f"---\ntitle: Page {i}\n---\nSee [[p{(i + 1) % 6}]].\n" for i in range(6)}
    config = make_wiki(files, search=False)
    build(config, workers=1)
    conn = open_store(config.state_db)
    with conn:
        conn.execute("UPDATE plan_read_sets SET parts = NULL")  # as a store planned before schema v13 left it
    conn.close()
    calls = record_selects(monkeypatch, wikilinks)
    for title in ("Page Three", "Page Tres"):
        calls.clear()
        (config.content_dir / "p3.md").write_text(f"---\ntitle: {title}\n---\nSee [[p4]].\n")
        reused = build(config, workers=1)
        selected = sorted(calls)
        _assert_full_plan(config, reused, tmp_path)
        assert len(selected) == (6 if title == "Page Three" else 2)  # then only p3 and p2, which links to it


def test_an_article_in_a_new_language_selects_every_pairing_again(make_wiki, tmp_path):
    """Every article's missing translations name the wiki's languages: the first article of a new one reaches all."""
    files = {"g.md": "---\ntitle: G\n---\nG.\n", "h.md": "---\ntitle: H\n---\nH.\n", "h.es.md": "---\ntitle: H\n---\nH.\n"}
    config = make_wiki(files, search=False, pairing="suffix")
    build(config, workers=1)
    _apply(config, files, {"i.fr.md": "---\ntitle: I\n---\nI.\n"})
    reused = build(config, workers=1)
    _assert_full_plan(config, reused, tmp_path)
    messages = {d.path: d.message for d in reused.process.diagnostics if d.code == "missing-translation"}
    assert messages["g.md"] == "no translation in es, fr" and messages["h.md"] == "no translation in fr"
