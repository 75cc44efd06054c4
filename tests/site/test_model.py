"""The wiki model, from plain results: what links where."""

from __future__ import annotations

from pipeline.inline import DEFAULT_OPTIONS
from pipeline.inline import articles_from, run_inline
from pipeline.passes.base import Wiki
from pipeline.site.model import PageBody, build_model
from pipeline.site.page_digests import digest


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


def test_backlinks_found_one_by_one_are_those_of_the_index_of_them_all():
    files = {f"p{n}.md": f"---\ntitle: {'Same' if n % 3 == 0 else f'Page {9 - n}'}\n---\n"
             + " ".join(f"[[Page {9 - m}]] [[p{m}]]" for m in range(n % 4, 9, 2)) for n in range(9)}  # fmt: skip
    articles = articles_from(files)

    def lists(index_first: bool) -> dict[str, list]:
        results = {name: {a.capture_id: outputs[a.path] for a in articles} for name, outputs in run_inline(files).items()}
        model = build_model(Wiki(DEFAULT_OPTIONS, articles, results), [], {name: 1 for name in results})
        if index_first:
            model.backlinks.index()
        found = {page.url: [(link.title, link.url) for link in page.backlinks] for page in model.articles}
        # The first SCANS pages asked are looked up one by one, the rest in the index then made.
        assert (model.backlinks.indexed is None) == (not index_first and len(found) <= model.backlinks.SCANS)
        return found

    scanned, indexed = lists(index_first=False), lists(index_first=True)
    assert scanned == indexed
    assert sum(map(len, scanned.values())) > 20  # and none links to itself:
    assert all(url not in [link_url for _, link_url in links] for url, links in scanned.items())


def test_a_page_names_the_results_it_shows_and_not_those_its_article_lacks():
    files = {"a.md": "---\ntitle: A\n---\nText.\n", "b.md": "---\ntitle: B\n---\n[[A]]\n"}
    articles = articles_from(files)
    results = {name: {a.capture_id: outputs[a.path] for a in articles} for name, outputs in run_inline(files).items()}
    lacking = next(a.capture_id for a in articles if a.path == "b.md")
    del results["html"][lacking], results["citations"][lacking]  # as when its jobs failed
    model = build_model(Wiki(DEFAULT_OPTIONS, articles, results), [], {name: 2 for name in results})
    passes = {page.path: [name for name, _ in page.passes] for page in model.articles}
    assert passes["a.md"] == ["metadata", "headings", "pairing", "citations", "wikilinks", "html"]
    assert passes["b.md"] == ["metadata", "headings", "pairing", "wikilinks"]
    assert all(version == 2 for page in model.articles for _, version in page.passes)


def test_a_page_body_is_digested_as_its_identity_also_when_the_digest_falls_back_to_pickling():
    def unread():
        raise AssertionError("a digest must not read the body")

    def of(identity, read, number):
        return digest({"body": PageBody(identity, read), "n": number})

    for number in (1, 2**70):  # an integer JSON cannot say makes the digest pickle its material
        assert of([1, 2], unread, number) == of([1, 2], lambda: {"html": "<p>x</p>"}, number)
        assert of([1, 2], unread, number) != of([1, 3], unread, number)
