"""The site's view of wikilinks results: targets kept by job in the store, backlinks in title order."""

from __future__ import annotations

import pytest

from pipeline.build import DEFAULT_OPTIONS, build
from pipeline.inline import articles_from, run_inline
from pipeline.passes.base import Wiki
from pipeline.site.links import link_targets
from pipeline.site.model import LinkTargets, build_model


def test_link_targets_are_kept_by_job_and_are_what_the_results_say(make_wiki, monkeypatch):
    files = {"a.md": "---\ntitle: A\n---\n[[b]], [[b]], [[nowhere]], [[a]].\n", "b.md": "---\ntitle: B\n---\n[[a]]\n"}
    report = build(make_wiki(files), workers=1)
    outputs = report.process.wiki.results["wikilinks"]
    ids = {article.path: article.capture_id for article in report.process.wiki.articles}
    first = link_targets(outputs)
    assert first[ids["a.md"]] == LinkTargets(("b.md", "b.md"), ("nowhere",))  # a link to itself is no backlink
    assert first[ids["b.md"]] == LinkTargets(("a.md",), ())
    monkeypatch.setattr(LinkTargets, "of", classmethod(lambda cls, output: pytest.fail("decoded again")))
    assert link_targets(outputs) == first  # read back by job: nothing decoded


def test_backlinks_come_in_title_order_and_equal_titles_in_wiki_order():
    files = {"c.md": "---\ntitle: beta\n---\n[[t]]\n", "a.md": "---\ntitle: Beta\n---\n[[t]] [[gone]]\n",
             "b.md": "---\ntitle: Alpha\n---\n[[t]] [[t]] [[Gone]]\n", "t.md": "---\ntitle: T\n---\nText.\n"}  # fmt: skip
    by_path = run_inline(files)
    articles = articles_from(files)
    results = {name: {a.capture_id: outputs[a.path] for a in articles} for name, outputs in by_path.items()}
    model = build_model(Wiki(DEFAULT_OPTIONS, articles, results), [], {name: 1 for name in results})
    page = model.by_path()["t.md"]
    assert [(link.title, link.url) for link in page.backlinks] == [("Alpha", "b/"), ("Beta", "a/"), ("beta", "c/")]
    assert [(source.title, target) for source, target in model.broken] == [("Beta", "gone"), ("Alpha", "Gone")]
