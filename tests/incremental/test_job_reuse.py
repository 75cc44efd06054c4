"""The last plan passes on its jobs: after any edit, exactly the jobs a full plan would choose.

Each step edits the wiki and builds (the memo passes on what it can); then the
memo is dropped and the same wiki planned from scratch must find every job
already there (nothing new to create) and give the same results.
"""

import re

import pytest

from pipeline.build import build
from pipeline.incremental.build_cache import BuildCache
from pipeline.incremental import code_digest, job_reuse
from pipeline.jobs import plan
from pipeline.passes import citations, html, links, mentions, metadata, pairing, wikilinks
from pipeline.storage.store import open_store
from tests.helpers import forget_plans, record_selects, results_by_path

FILES = {
    "a.md": "---\ntitle: Alpha\npaired_with: a.es.md\ncites: [k1]\n---\nAlpha links [[b]], [[c#intro]] and [[d]]. Beta.\n",
    "a.es.md": "---\ntitle: Alfa\npaired_with: a.md\n---\nAlfa enlaza [[b]].\n",
    "b.md": "---\ntitle: Beta\n---\nBeta text, see ![[c]].\n",
    "c.md": "---\ntitle: Gamma\n---\n## Intro\n\nGamma text.\n\n## Other\n",
    "citations.yaml": "- id: k1\n  text: A book\n",
    "redirects.yaml": "old-b: b\n",
}

STEPS = [
    {"a.md": FILES["a.md"].replace("Beta.", "Beta and more.\n\nA new paragraph.")},  # body
    {"c.md": FILES["c.md"].replace("Gamma text.", "Gamma text, as embedded in b.")},  # an embedded body
    {"b.md": "---\ntitle: Bravo\n---\nBeta text, see ![[c]].\n"},  # a title others link to and mention
    {"c.md": "---\ntitle: Gamma\n---\n## Introduction\n\nGamma text, embedded in b.\n"},  # a linked heading
    {"d.md": "---\ntitle: Delta\n---\nNew. Alpha and Gamma.\n"},  # an article a link was waiting for
    {"citations.yaml": "- id: k1\n  text: Another book\n"},  # a data file
    {"redirects.yaml": "old-b: c\n"},
    {"a.es.md": None},  # a removal
    {"c.md": None},  # an embedded article's removal
]


@pytest.mark.parametrize("step", range(len(STEPS)))
def test_a_lent_plan_is_the_full_plan(make_wiki, step):
    _assert_lent_plans_are_full_plans(make_wiki(FILES, search=False), STEPS[: step + 1])


def test_a_lent_plan_is_the_full_plan_when_siblings_pair_by_suffix(make_wiki):
    files = {"g.md": "---\ntitle: Guide\n---\nText.\n", "g.es.md": "---\ntitle: Guía\n---\nTexto.\n",
             "h.md": "---\ntitle: Help\n---\nSee [[g]].\n"}  # fmt: skip
    steps = [{"h.md": "---\ntitle: Help\n---\nSee [[g]], please.\n"}, {"g.md": "---\ntitle: Guide\n---\nNew text.\n"}]
    _assert_lent_plans_are_full_plans(make_wiki(files, search=False, pairing="suffix"), steps)


def test_plans_lent_from_a_kept_cache_are_full_plans_too(make_wiki):
    build_cache = BuildCache()  # as `serve` keeps it: the memos of one build serve the next
    _assert_lent_plans_are_full_plans(make_wiki(FILES, search=False), STEPS, lambda step: build_cache)


def test_a_kept_cache_is_not_used_in_a_read_set_another_process_planned_in_since(make_wiki):
    # The other process keeps nothing: it changes read sets (c's heading, which a links to; b's title), then the
    # kept one edits a body in them, where a's links must be resolved in the new read set, not passed on from the old.
    build_cache = BuildCache()
    steps = [STEPS[3], {"b.md": FILES["b.md"].replace("Beta text", "Beta's text")}, STEPS[2], STEPS[1]]
    _assert_lent_plans_are_full_plans(make_wiki(FILES, search=False), steps, lambda step: build_cache if step % 2 else None)


def test_a_kept_cache_reads_no_memo_from_the_store_again(make_wiki, monkeypatch):
    import pipeline.build as build_module

    config, build_cache, statements = make_wiki(FILES, search=False), BuildCache(), []
    opened = build_module.open_store
    monkeypatch.setattr(build_module, "open_store", lambda path: _traced(opened(path), statements))
    build(config, workers=1, build_cache=build_cache)
    for text, kept in (("Beta and more.", build_cache), ("Beta, again.", None)):
        (config.content_dir / "a.md").write_text(FILES["a.md"].replace("Beta.", text))
        statements.clear()
        build(config, workers=1, build_cache=kept)
        read = [sql for sql in statements if sql.startswith("SELECT") and "FROM plan_memo" in sql]
        assert (read == []) == (kept is not None), read  # without the cache, the same build reads them


def test_a_memo_holds_the_results_of_the_jobs_it_passes_on(make_wiki, monkeypatch):
    import pipeline.build as build_module

    monkeypatch.setattr(job_reuse, "PACK_FOUND", 0)  # a tiny wiki's memo learns few digests: pack them anyway
    config, statements = make_wiki(FILES, search=False), []
    opened = build_module.open_store
    monkeypatch.setattr(build_module, "open_store", lambda path: _traced(opened(path), statements))
    reports = [build(config, workers=1)]
    for text in ("Beta and more.", "Beta, again.", "Beta, once more."):
        (config.content_dir / "a.md").write_text(FILES["a.md"].replace("Beta.", text))
        statements.clear()
        reports.append(build(config, workers=1))
        lookups = [sql.partition("WHERE job_id IN")[2] for sql in statements if "FROM result_digests WHERE" in sql]
        asked = sum(ids.count(",") + 1 for ids in lookups)
        # Looked up alone: the results of the jobs this build made, and of those the last one made (its memo
        # was saved before they ran); a memo holds the results of all older ones. A cold memo is all new jobs.
        made = len(reports[-1].process.created_passes) + len(reports[-2].process.created_passes)
        assert asked == made
    assert reports[-1].process.reused > asked  # the jobs the memo passed on came with their results


def test_a_memo_made_in_a_new_read_set_holds_the_results_of_the_jobs_that_existed(make_wiki):
    import json

    config = make_wiki(FILES, search=False)
    build(config, workers=1)
    (config.content_dir / "b.md").write_text(STEPS[2]["b.md"])  # a new title: wikilinks plans in a new read set
    report = build(config, workers=1)
    conn = open_store(config.state_db)
    parts = conn.execute("SELECT entries FROM plan_memo WHERE pass_name = 'wikilinks'").fetchall()
    conn.close()
    assert len(parts) == 1
    captures, _, jobs, shas, _ = json.loads(parts[0][0])
    made = [path for path, name in report.process.created_passes if name == "wikilinks"]
    # Only the jobs this plan made had no result when it was saved; the others' came with them.
    assert 0 < len(made) < len(captures) and shas.count(None) == len(made)


def test_a_memo_holds_one_digest_of_what_each_article_reads_for_itself_however_many_parts(make_wiki):
    import json

    config = make_wiki(FILES, search=False)
    build(config, workers=1)
    conn = open_store(config.state_db)
    (part,) = conn.execute("SELECT entries FROM plan_memo WHERE pass_name = 'html'").fetchone()
    conn.close()
    own_digests = json.loads(part)[1]  # html reads seven parts for itself: joined, they were 454 characters an article
    assert len(html.PASS.incremental.reads_own) == 7 and len(own_digests) == 4
    assert all(re.fullmatch("[0-9a-f]{64}", own) for own in own_digests) and len(set(own_digests)) == 4


def test_a_memo_is_packed_into_one_part_again(make_wiki, monkeypatch):
    import json

    monkeypatch.setattr(job_reuse, "MAX_PARTS", 2)
    config = make_wiki(FILES, search=False)
    build(config, workers=1)
    counts = []
    for number in range(5):
        (config.content_dir / "a.md").write_text(FILES["a.md"].replace("Beta.", f"Beta {number}."))
        report = build(config, workers=1)
        conn = open_store(config.state_db)
        parts = conn.execute("SELECT entries FROM plan_memo WHERE pass_name = 'metadata'").fetchall()
        conn.close()
        counts.append(len(parts))
    # The cold plan's part and one more per edit; a read of three packs them into one, before its plan adds one.
    assert counts == [2, 3, 2, 3, 2]
    # Packed, a memo keeps the entries of the current captures only, not of a.md's earlier ones.
    held = sorted(capture for (entries,) in parts for capture in json.loads(entries)[0])
    assert held == sorted(article.capture_id for article in report.process.wiki.articles)


def test_a_lent_plan_is_the_full_plan_when_every_read_packs_the_memo(make_wiki, monkeypatch):
    monkeypatch.setattr(job_reuse, "MAX_PARTS", 0)
    monkeypatch.setattr(job_reuse, "BLOB_CHUNK", 7)  # each part written in many pieces
    _assert_lent_plans_are_full_plans(make_wiki(FILES, search=False), STEPS)


def _traced(conn, statements: list):
    conn.set_trace_callback(statements.append)
    return conn


def _assert_lent_plans_are_full_plans(config, steps, build_cache_for=lambda step: None):
    build(config, workers=1, build_cache=build_cache_for(-1))
    for step, changes in enumerate(steps):
        for path, text in changes.items():
            if text is None:
                (config.content_dir / path).unlink()
            else:
                (config.content_dir / path).write_text(text)
        reused = build(config, workers=1, build_cache=build_cache_for(step))
    forget_plans(config.state_db)
    full = build(config, workers=1, reuse=False)
    assert full.process.created_passes == []
    assert results_by_path(full) == results_by_path(reused)


def test_a_body_edit_selects_again_only_for_the_edited_article(make_wiki, monkeypatch):
    config = make_wiki({f"p{i}.md": f"---\ntitle: Page {i}\n---\nSee [[p{(i + 1) % 20}]].\n" for i in range(20)})
    build(config, workers=1)
    calls = record_selects(monkeypatch, wikilinks)
    (config.content_dir / "p3.md").write_text("---\ntitle: Page 3\n---\nSee [[p4]], and more text.\n")
    build(config, workers=1)
    assert calls == ["p3.md"]
    (config.content_dir / "p5.md").write_text("---\ntitle: Page Five\n---\nSee [[p6]].\n")
    calls.clear()
    build(config, workers=1)
    assert sorted(calls) == ["p4.md", "p5.md"]  # the renamed page, and the page whose link read its keys


def test_a_heading_change_selects_wikilinks_again_only_for_links_into_that_page(make_wiki, monkeypatch):
    files = {f"p{i}.md": f"---\ntitle: Page {i}\n---\n## Top\n\nSee [[p{(i + 1) % 10}]].\n" for i in range(10)}
    config = make_wiki(files | {"q.md": "---\ntitle: Q\n---\nSee [[p3#top]], [[Page 4#top]] and [[p5]].\n"})
    build(config, workers=1)
    calls = record_selects(monkeypatch, wikilinks)
    (config.content_dir / "p3.md").write_text(files["p3.md"].replace("## Top", "## Summit"))
    report = build(config, workers=1)
    assert sorted(calls) == ["p3.md", "q.md"]  # q links to one of p3's headings; the others' slices hold none
    assert ("q.md", "wikilinks") in report.process.created_passes  # [[p3#top]] is a broken anchor now
    calls.clear()
    (config.content_dir / "p5.md").write_text(files["p5.md"] + "\n## More\n")
    build(config, workers=1)
    assert calls == ["p5.md"]  # q links to p5, but to no heading of it


def test_an_added_article_replans_passes_that_read_no_other_article_for_it_alone(make_wiki, monkeypatch):
    config = make_wiki({f"p{i}.md": f"---\ntitle: Page {i}\ncites: [k1]\n---\nSee [[p{i + 1}]].\n" for i in range(10)}
                       | {"citations.yaml": "- id: k1\n  text: A book\n"})  # fmt: skip
    build(config, workers=1)
    # options and data only, and wikilinks, which reads other articles
    calls = record_selects(monkeypatch, citations, links, metadata, wikilinks, name=lambda module, _: module.PASS.name)
    (config.content_dir / "p10.md").write_text("---\ntitle: Page 10\n---\nThe last page.\n")
    build(config, workers=1)
    # One select each, for the new article (links' calls citations'); wikilinks' also for p9, whose red
    # link [[p10]] read a key of the new page: the other articles' answers read none.
    assert sorted(calls) == ["citations"] * 2 + ["links", "metadata"] + ["wikilinks"] * 2


def test_a_new_title_selects_html_again_only_where_links_or_embeds_changed(make_wiki, monkeypatch):
    files = {f"p{i}.md": f"---\ntitle: Page {i}\n---\nSee [[Page {i + 1}]].\n" for i in range(10)}
    config = make_wiki(files | {"e.md": "---\ntitle: Embeds\n---\n![[p8]]\n", "f.md": "---\ntitle: F\n---\n![[e]]\n"})
    build(config, workers=1)
    calls = record_selects(monkeypatch, html)
    (config.content_dir / "p5.md").write_text("---\ntitle: Page Five\n---\nSee [[Page 6]].\n")
    build(config, workers=1)
    assert sorted(calls) == ["p4.md", "p5.md"]  # [[Page 5]] is a red link now
    (config.content_dir / "p8.md").write_text("---\ntitle: Page 8\n---\nSee [[Page 9]], now.\n")
    calls.clear()
    build(config, workers=1)
    assert sorted(calls) == ["e.md", "f.md", "p8.md"]  # e embeds p8, and f embeds e


def test_a_source_edit_selects_pairing_again_only_for_it_and_its_translations(make_wiki, monkeypatch):
    files = {f"p{i}.md": f"---\ntitle: Page {i}\npaired_with: p{i}.es.md\n---\nText {i}.\n" for i in range(10)}
    files |= {f"p{i}.es.md": f"---\ntitle: Página {i}\npaired_with: p{i}.md\n---\nTexto {i}.\n" for i in range(10)}
    config = make_wiki(files)
    build(config, workers=1)
    calls = record_selects(monkeypatch, pairing)
    (config.content_dir / "p3.md").write_text("---\ntitle: Page 3\npaired_with: p3.es.md\n---\nNew text.\n")
    report = build(config, workers=1)
    assert sorted(calls) == ["p3.es.md", "p3.md"]  # the translation's outdated check reads the source's hash
    assert report.process.wiki.results["pairing"][_capture_of(report, "p3.es.md")]["outdated"] is not None


def _capture_of(report, path):
    return next(a.capture_id for a in report.process.wiki.articles if a.path == path)


def test_an_edit_loads_the_indexes_kept_in_the_same_read_set_instead_of_building_them(make_wiki, monkeypatch):
    config = make_wiki({f"p{i}.md": f"---\ntitle: Page {i}\n---\nSee [[p{(i + 1) % 5}#part]]. Page 2.\n\n## Part\n" for i in range(5)})
    build(config, workers=1)
    built = []
    makers = ((wikilinks, "_build"), (wikilinks, "_patched"), (mentions, "_indexes"), (pairing, "build_index"))
    for module, name in makers:
        monkeypatch.setattr(module, name, lambda *args, make=getattr(module, name), name=name: built.append(name) or make(*args))
    (config.content_dir / "p3.md").write_text("---\ntitle: Page 3\n---\nSee [[p4#part]], Page 2 again.\n\n## Part\n")
    report = build(config, workers=1)
    assert built == []
    links = report.process.wiki.results["wikilinks"][_capture_of(report, "p3.md")]["links"]
    assert [(link["target_path"], link["anchor"]) for link in links] == [("p4.md", "ok")]  # headings read anew
    (config.content_dir / "p4.md").write_text("---\ntitle: Page Four\n---\nSee [[p0]].\n")  # a title: another read set
    build(config, workers=1)
    assert sorted(built) == ["_indexes", "_patched", "build_index"]  # the link index: the last read set's, patched
    built.clear()
    monkeypatch.setattr(code_digest, "_CODE", {module: "other code" for module in code_digest._CODE})
    (config.content_dir / "p1.md").write_text("---\ntitle: Page 1\n---\nSee [[p2]].\n")
    build(config, workers=1)
    assert sorted(built) == ["_build", "_indexes", "build_index"]  # kept by other code: not trusted


def test_a_kept_cache_learns_nothing_from_a_plan_that_was_rolled_back(make_wiki, monkeypatch):
    from pipeline.jobs import plan

    config, build_cache = make_wiki(FILES, search=False), BuildCache()
    build(config, workers=1, build_cache=build_cache)
    (config.content_dir / "a.md").write_text(FILES["a.md"].replace("Beta.", "Beta, edited."))
    save = plan._Reused.save

    def failing(self, *args):  # the memo is written, then the transaction fails (a full disk, Ctrl-C)
        save(self, *args)
        raise OSError("no space left on device")

    with monkeypatch.context() as patch:
        patch.setattr(plan._Reused, "save", failing)
        with pytest.raises(OSError):
            build(config, workers=1, build_cache=build_cache)
    (config.content_dir / "b.md").write_text(FILES["b.md"].replace("Beta text", "Beta's text"))
    reused = build(config, workers=1, build_cache=build_cache)  # new jobs take the ids the rolled-back ones had
    forget_plans(config.state_db)
    full = build(config, workers=1, reuse=False)
    assert full.process.created_passes == [] and results_by_path(full) == results_by_path(reused)


def test_what_articles_read_for_themselves_is_found_for_all_of_them_at_once(make_wiki, monkeypatch):
    """reads_own functions written `by_column` are asked once per plan, for every article, and give
    what asking each article alone gives."""
    config = make_wiki(FILES, search=False)
    asked = []
    for part in (pairing.pairing_evidence, wikilinks.linked_headings, html.embedded_parts):
        column = part.column

        def counted(articles, wiki, column=column, name=part.__name__):
            values = column(articles, wiki)
            asked.append((name, len(articles)))
            assert values == [column([article], wiki)[0] for article in articles]
            return values

        monkeypatch.setattr(part, "column", counted)
    build(config, workers=1)
    articles = len([name for name in FILES if name.endswith(".md")])
    assert sorted(asked) == [("embedded_parts", articles), ("linked_headings", articles), ("pairing_evidence", articles)]


def test_a_function_by_column_is_still_one_of_an_article_and_the_wiki():
    from pipeline.inline import articles_from
    from pipeline.passes.base import Wiki, by_column

    @by_column
    def lengths(articles, wiki):
        return [len(article.body) for article in articles]

    articles = articles_from({"a.md": "A", "b.md": "Bee"})
    wiki = Wiki(options={}, articles=articles)
    assert [lengths(article, wiki) for article in articles] == lengths.column(articles, wiki) == [1, 3]
    assert lengths.__name__ == lengths.column.__name__ == "lengths"


# Twenty pages, each linking to the next one's heading and embedding the one after.
LINKED_AND_EMBEDDING = {f"p{i}.md": f"---\ntitle: Page {i}\n---\n## Top\n\nSee [[p{(i + 1) % 20}#top]].\n\n"
                        f"![[p{(i + 2) % 20}]]\n" for i in range(20)}  # fmt: skip


@pytest.mark.parametrize("forked", [False, True])
def test_an_edit_finds_again_only_the_edited_articles_fragment_targets_and_embeds(make_wiki, monkeypatch, forked):
    config = make_wiki(LINKED_AND_EMBEDDING)
    with monkeypatch.context() as planned_forked:  # the cold plan's slices and own digests made in two processes:
        planned_forked.setattr(plan, "MIN_JOBS_PER_PROCESS", 1 if forked else plan.MIN_JOBS_PER_PROCESS)
        build(config, workers=2 if forked else 1)  # what the forked one found is kept as well
    monkeypatch.setattr(plan, "KEEP_AGAIN", 1)  # what an edit made again is kept for the next build at once
    resolved, walked = [], []
    place, embedded = wikilinks._place, html._embedded
    monkeypatch.setattr(wikilinks, "_place", lambda article, wiki: resolved.append(article.path) or place(article, wiki))
    monkeypatch.setattr(html, "_embedded", lambda article, *args: walked.append(article.path) or embedded(article, *args))
    (config.content_dir / "p3.md").write_text("---\ntitle: Page 3\n---\n## Top\n\nSee [[p4#top]] and [[p5#top]].\n")
    build(config, workers=1)
    assert set(resolved) == {"p3.md"}  # its select, and its fragment targets: the others' are kept
    # p1 embeds p3, whose links changed; p19 and p17 embed p1 and p19, so p3 below (three deep at most).
    assert sorted(walked) == ["p1.md", "p17.md", "p19.md"]
    (config.content_dir / "p9.md").write_text("---\ntitle: Page 9\n---\nNo heading, no embed.\n")
    resolved.clear(), walked.clear()
    build(config, workers=1)
    # p8 links to p9's heading: p9's headings changed, not where p8's link goes. Its links changed (a broken
    # anchor now), as p9's did: p8 is walked again, and what embeds either up to three deep (p7 and p5 above p9;
    # p6, p4 and p2 above p8). p9 and p3 embed nothing now.
    assert set(resolved) == {"p8.md", "p9.md"}
    assert sorted(walked) == ["p2.md", "p4.md", "p5.md", "p6.md", "p7.md", "p8.md"]


def test_an_edit_finds_the_articles_with_fragment_links_or_embeds_without_reading_their_results(make_wiki, monkeypatch):
    """A cold plan reads the results of the articles it finds with them, as it resolves every one; an edit's plan,
    whose kept fragment targets and embeds answer for all but the edited article, reads none of them for that."""
    from pipeline.storage.results import StoredOutputs

    config = make_wiki(LINKED_AND_EMBEDDING)
    asked, mentioning = [], StoredOutputs.mentioning

    def searched(self, text, read=True):
        asked.append((text, read))
        return mentioning(self, text, read)

    monkeypatch.setattr(StoredOutputs, "mentioning", searched)
    build(config, workers=1)
    assert sorted(asked) == [('"embed":true', True), ('"fragment":"', True)]
    asked.clear()
    (config.content_dir / "p3.md").write_text("---\ntitle: Page 3\n---\n## Top\n\nSee [[p4#top]].\n\n![[p6]]\n")
    edited = build(config, workers=1)
    assert sorted(asked) == [('"embed":true', False), ('"fragment":"', False)]
    forget_plans(config.state_db)
    assert results_by_path(build(config, workers=1, reuse=False)) == results_by_path(edited)
