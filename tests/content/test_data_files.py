"""redirects.yaml, categories.yaml and citations.yaml validated once: each rule, its problem with the entry's line,
and the records."""

import dataclasses

import pytest

from pipeline.content import data_files
from pipeline.content.data_files import Category, Citation, Redirect
from pipeline.runtime import safe_yaml


def _redirects(text: str):
    return data_files.redirects(*safe_yaml.load_document(text))


def _categories(text: str):
    return data_files.categories(*safe_yaml.load_document(text))


def _citations(text: str):
    return data_files.citations(*safe_yaml.load_document(text))


@pytest.mark.parametrize("text", [
    "redirects:\n  - from: /old\n    to: /new\n  - from: a/b\n    to: https://example.org/\n",
    "- from: /old\n  to: /new\n- from: a/b\n  to: https://example.org/\n",
    "/old: /new\na/b: https://example.org/\n",
    "redirects:\n  /old: /new\n  a/b: https://example.org/\n",
])  # fmt: skip
def test_each_form_of_redirects_gives_the_same_records_with_their_lines(text):
    records, problems = _redirects(text)
    assert problems == []
    assert [(r.source, r.target) for r in records] == [("/old", "/new"), ("a/b", "https://example.org/")]
    lines = [r.line for r in records]
    assert lines[0] < lines[1] and text.splitlines()[lines[1] - 1].lstrip("- ").startswith(("from: a/b", "a/b"))


@pytest.mark.parametrize("text, line, message", [
    ("redirects:\n  - /old\n", 2, "a redirect entry is not a mapping with `from` and `to`"),
    ("redirects:\n  - to: /new\n", 2, "a redirect's `from` is not a path: None"),
    ("redirects:\n  - from: 5\n    to: /new\n", 2, "a redirect's `from` is not a path: 5"),
    ("redirects:\n  - from: ' / '\n    to: /new\n", 2, "a redirect's `from` is not a path: ' / '"),
    ("redirects:\n  - from: /old\n", 2, "the redirect from '/old' has no `to` path or URL"),
    ("redirects:\n  - from: /old\n    to: '  '\n", 2, "the redirect from '/old' has no `to` path or URL"),
    ("/old: [a]\n", 1, "the redirect from '/old' has no `to` path or URL"),
    ("redirects:\n  - from: /Old Name\n    to: /a\n  - from: old-name/\n    to: /b\n", 4,
     "a redirect from 'old-name/' is already given at line 3"),
    ("redirects: just text\n", 1, "is not a list of redirects (`- from: ...` and `to: ...`) or a mapping from -> to"),
    ("42\n", 1, "is not a list of redirects (`- from: ...` and `to: ...`) or a mapping from -> to"),
])  # fmt: skip
def test_a_bad_redirect_is_a_problem_at_its_line_and_left_out(text, line, message):
    records, problems = _redirects("# redirects\n" + text)
    assert problems == [("redirects.yaml", line + 1, message)]
    assert [(r.source, r.target) for r in records] == ([("/Old Name", "/a")] if "already" in message else [])


def test_the_good_redirects_around_a_bad_one_are_kept():
    records, problems = _redirects("- from: /a\n  to: /x\n- from: /b\n- from: /c\n  to: /y\n")
    assert records == [Redirect("/a", "/x", 1), Redirect("/c", "/y", 4)]
    assert problems == [("redirects.yaml", 3, "the redirect from '/b' has no `to` path or URL")]


def test_a_redirect_target_is_kept_as_written_whatever_its_scheme():
    """Which targets leave the site is the redirect pages' to decide (`site/pages.py`): only http and https."""
    records, problems = _redirects("- from: /trap\n  to: 'javascript:alert(1)'\n")
    assert (records, problems) == ([Redirect("/trap", "javascript:alert(1)", 1)], [])


def test_categories_give_records_with_their_fields_and_lines():
    text = (
        "wiki: docs\ncategories:\n  - id: ' guides '\n    name: Guides\n    scope: How to.\n    order: 2\n"
        "    audience: everyone\n  - id: extras\n"
    )  # fmt: skip
    records, problems = _categories(text)
    assert problems == []
    assert records == [Category("guides", "Guides", "How to.", 2, 3), Category("extras", "extras", None, None, 8)]
    assert _categories("- id: a\n") == ([Category("a", "a", None, None, 1)], [])
    assert _categories("wiki: docs\n") == ([], [])  # no `categories`: none declared


@pytest.mark.parametrize("text, line, message, kept", [
    ("categories:\n  - guides\n", 2, "a category entry has no `id`", []),
    ("categories:\n  - name: Guides\n", 2, "a category entry has no `id`", []),
    ("categories:\n  - id: '  '\n", 2, "a category entry has no `id`", []),
    ("categories:\n  - id: a\n  - id: a\n    name: Again\n", 3, "the category 'a' is already given at line 2",
     [Category("a", "a", None, None, 2)]),
    ("categories:\n  - id: a\n    name: [x]\n", 2, "the category 'a' has a `name` that is not text",
     [Category("a", "a", None, None, 2)]),
    ("categories:\n  - id: a\n    order: first\n", 2, "the category 'a' has a `order` that is not a number",
     [Category("a", "a", None, None, 2)]),
    ("categories:\n  - id: a\n    order: true\n", 2, "the category 'a' has a `order` that is not a number",
     [Category("a", "a", None, None, 2)]),
    ("categories:\n  - id: a\n    scope: 3\n", 2, "the category 'a' has a `scope` that is not text",
     [Category("a", "a", None, None, 2)]),
    ("categories: guides\n", 1, "`categories` is not a list of `- id: ...` entries", []),
])  # fmt: skip
def test_a_bad_category_is_a_problem_at_its_line(text, line, message, kept):
    records, problems = _categories(text)
    assert (records, problems) == (kept, [("categories.yaml", line, message)])


def test_what_the_wiki_holds_is_the_records_without_their_lines():
    """A comment or blank line added to a data file changes nothing passes or pages read."""
    first, _ = data_files.validated("redirects", *safe_yaml.load_document("- from: /a\n  to: /x\n"))
    moved, _ = data_files.validated("redirects", *safe_yaml.load_document("# moved\n\n- from: /a\n  to: /x\n"))
    assert first == moved == [{"source": "/a", "target": "/x"}]
    categories, _ = data_files.validated("categories", *safe_yaml.load_document("- id: a\n  order: 1\n"))
    assert categories == [{"id": "a", "name": "a", "scope": None, "order": 1}]
    citations, _ = data_files.validated("citations", *safe_yaml.load_document("x: {title: X}\n"))
    assert citations == [{"id": "x", "text": "X", "url": None}]
    assert data_files.validated("redirects", None) == (None, [])  # an empty file
    assert data_files.validated("citations", None) == (None, [])  # no registry: `cites:` is not checked


@pytest.mark.parametrize("text", [
    "- id: rfc\n  text: ' RFC 6234 '\n  url: https://x.example/rfc\n- id: 7\n  title: Seven\n- id: bare\n",
    "citations:\n  - id: rfc\n    text: RFC 6234\n    url: https://x.example/rfc\n  - id: 7\n    title: Seven\n"
    "  - id: bare\n",
    "rfc:\n  text: RFC 6234\n  url: https://x.example/rfc\n7: {title: Seven}\nbare: {}\n",
])  # fmt: skip
def test_each_form_of_citations_gives_the_same_records(text):
    records, problems = _citations(text)
    assert problems == []
    fields = [(r.id, r.text, r.url) for r in records]
    assert fields == [("rfc", "RFC 6234", "https://x.example/rfc"), ("7", "Seven", None), ("bare", "bare", None)]
    assert text.splitlines()[records[0].line - 1].lstrip(" -").startswith(("id: rfc", "rfc:"))


def test_a_citation_may_be_just_its_text_and_its_own_id_wins_over_its_key():
    records, problems = _citations("rfc: RFC 6234, US Secure Hash Algorithms\nkey: {id: other, text: O}\n")
    assert (records, problems) == ([Citation("rfc", "RFC 6234, US Secure Hash Algorithms", None, 1),
                                    Citation("other", "O", None, 2)], [])  # fmt: skip


@pytest.mark.parametrize("text, line, message, kept", [
    ("- text: No id\n", 1, "a citation entry has no `id`", []),
    ("- Just a text\n", 1, "a citation entry has no `id`", []),
    ("- id: true\n  text: T\n", 1, "a citation entry has no `id`", []),
    ("- id: '  '\n", 1, "a citation entry has no `id`", []),
    ("- id: a\n- id: b\n- id: a\n  text: Again\n", 3, "the citation 'a' is already given at line 2",
     [Citation("a", "a", None, 1), Citation("b", "b", None, 2)]),
    ("a: A\nb:\n", 2, "the citation 'b' is not a mapping (`text`, `url`) or a text", [Citation("a", "A", None, 1)]),
    ("a: [x, y]\nb: B\n", 1, "the citation 'a' is not a mapping (`text`, `url`) or a text",
     [Citation("b", "B", None, 2)]),
    ("- id: a\n  text: [x]\n  title: T\n", 1, "the citation 'a' has a `text` that is not text",
     [Citation("a", "T", None, 1)]),
    ("- id: a\n  url: 5\n", 1, "the citation 'a' has a `url` that is not text", [Citation("a", "a", None, 1)]),
    ("just text\n", 1, "is not a list of citations (`- id: ...`) or a mapping from id to entry", []),
    ("42\n", 1, "is not a list of citations (`- id: ...`) or a mapping from id to entry", []),
])  # fmt: skip
def test_a_bad_citation_is_a_problem_at_its_line_and_the_rest_kept(text, line, message, kept):
    records, problems = _citations("# citations\n" + text)
    assert problems == [("citations.yaml", line + 1, message)]
    assert records == [dataclasses.replace(record, line=record.line + 1) for record in kept]
