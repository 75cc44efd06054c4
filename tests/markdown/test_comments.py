"""Comments (`%%...%%`, `<!-- ... -->`): fixtures, no token for what they hold, hostile input, and a whole build."""

from __future__ import annotations

import pytest

from tests.helpers import results_by_path
from pipeline.build import build
from pipeline.config import load_config
from pipeline.inline import run_inline
from pipeline.markdown import make_parser
from pipeline.markdown.limits import MAX_LINKS
from pipeline.markdown.wikilinks import LINK_TYPES

HIDDEN = ("%%\n# Hidden heading\n[[Missing]] secret\n%%\n\n"
          "Before <!-- [[Missing]] # not a heading --> after %%[[Missing]]%%.\n")


def texts(tokens) -> str:
    """Every text a parse's tokens hold (an inline token's content is its source: its children are what it holds)."""
    blocks = [t.content for t in tokens if t.type != "inline"]
    return " ".join(blocks + [c.content for t in tokens for c in t.children or ()])


@pytest.mark.parametrize("raw_html", [False, True])
def test_a_comment_makes_no_token_whatever_raw_html_says(raw_html):
    tokens = make_parser(raw_html=raw_html).parse(HIDDEN + "<div>\n<!-- in raw html -->\n</div>\n", {})
    assert "heading_open" not in [t.type for t in tokens]
    assert not [c for t in tokens for c in t.children or () if c.type in LINK_TYPES]
    assert "secret" not in texts(tokens) and "Missing" not in texts(tokens) and "<!--" not in texts(tokens)
    html = make_parser(raw_html=raw_html).render(HIDDEN, {})
    assert html == "<p>Before  after .</p>\n"


def test_comment_markers_in_fences_and_code_blocks_stay_text():
    html = make_parser().render("```\n%% a %%\n<!-- b -->\n```\n\n    %% indented %%\n", {})
    assert "%% a %%" in html and "&lt;!-- b --&gt;" in html and "%% indented %%" in html


def test_a_comment_in_a_heading_leaves_its_text_and_id():
    heading = make_parser().parse("# Title %%draft%% <!-- x -->\n", {})[0]
    assert (heading.meta["text"], heading.meta["id"]) == ("Title", "title")


def test_links_after_a_comment_keep_their_lines_and_columns():
    text = "%%\n[[Hidden]]\n%%\nA %%c%% [[One]] <!-- d --> [[Two]]\n<!--\n\n-->\n%% x %% tail [[Three]]\n"
    links = [(c.meta["target"], c.meta["line"], c.meta["col"])
             for t in make_parser().parse(text, {}) for c in t.children or () if c.type in LINK_TYPES]  # fmt: skip
    assert links == [("One", 4, 9), ("Two", 4, 28), ("Three", 8, 14)]
    lines = text.split("\n")
    assert [lines[line - 1][col - 1 :].split("]]")[0] for _, line, col in links] == ["[[One", "[[Two", "[[Three"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    ["%%" * 100_000, "%%\n" * 100_000, "%% x " * 100_000, "a %%\n" * 100_000, "<!--\n" * 100_000,
     "x <!-- " * 100_000, "> %%\n" * 50_000, "- %% a\n  b\n" * 30_000, "%%a\n\n" * 50_000],
    ids=["run", "lines", "inline", "openers", "html-lines", "html-inline", "quoted", "listed", "paragraphs"],
)
def test_hostile_runs_of_comment_markers_parse_and_show_no_marker(text):
    html = make_parser().render(text, {})
    assert "%%" not in html and "&lt;!--" not in html


PAGE = "---\nlang: en\n---\n%%\n# Draft title\n## Hidden section\n%%\n" + HIDDEN + "\n## Shown section\n\n[[Gone]]\n"
GONE_LINE = PAGE.split("\n").index("[[Gone]]") + 1


def test_past_the_link_limit_comments_between_links_kept_as_text_are_still_dropped():
    html = make_parser().render("[[a]] " * (MAX_LINKS + 1) + "%%secret%% [[b]] <!-- x --> ==hi== [[c]] 5% = 1", {})
    assert "secret" not in html and "%%" not in html and "&lt;!--" not in html
    assert html.endswith("[[b]]  <mark>hi</mark> [[c]] 5% = 1</p>\n")  # past the limit links are text


def test_the_passes_check_no_link_and_take_no_heading_or_title_from_a_comment():
    out = run_inline({"page.md": PAGE})
    assert [(d["code"], d["line"]) for d in out["wikilinks"]["page.md"]["diagnostics"]] == [("broken-link", GONE_LINE)]
    assert [link["target"] for link in out["links"]["page.md"]["links"]] == ["Gone"]
    assert [h["text"] for h in out["headings"]["page.md"]["headings"]] == ["Shown section"]
    assert [entry["text"] for entry in out["html"]["page.md"]["toc"]] == ["Shown section"]
    assert out["metadata"]["page.md"]["title"] == "page"  # the file name: no heading outside the comments is a title
    assert "Missing" not in out["html"]["page.md"]["html"]


@pytest.mark.parametrize("opener", ["%%", "<!--"])
@pytest.mark.parametrize("embed", ["", " ![[Other]]"], ids=["rendered-by-links", "rendered-by-html"])
def test_a_comment_left_open_hides_the_rest_of_the_body_not_its_references(opener, embed):
    page = f"---\ntitle: T\nreferences: [{{id: a, text: A source}}]\n---\nSaid[^a].{embed}\n\n{opener} open\n[[Gone]]\n"
    out = run_inline({"page.md": page, "Other.md": f"---\ntitle: Other\n---\nEmbedded.\n\n{opener} open\n"})
    assert out["wikilinks"]["page.md"]["diagnostics"] == []
    assert out["citations"]["page.md"]["references"][0]["cited"] is True
    assert "A source" in out["html"]["page.md"]["references_html"] and "Gone" not in out["html"]["page.md"]["html"]


def site(tmp_path, files: dict[str, str]):
    """Build a tiny wiki of `files` in tmp_path (its site in tmp_path/site); the diagnostics of each path."""
    content = tmp_path / "content"
    content.mkdir()
    for name, text in files.items():
        (content / name).write_text(text)
    (tmp_path / "wiki.yaml").write_text("content_dir: content\nstate_dir: state\nout_dir: site\nsearch: false\n")
    report = build(load_config(tmp_path / "wiki.yaml"), workers=1, site=True)
    assert report.process.work.failed == 0
    diagnostics: dict[str, list] = {}
    for (path, _), output in results_by_path(report).items():
        diagnostics.setdefault(path, []).extend(output.get("diagnostics", []))
    return diagnostics


def test_a_build_checks_no_link_and_shows_nothing_of_a_comment(tmp_path):
    diagnostics = site(tmp_path, {"page.md": PAGE})
    assert [d["line"] for d in diagnostics["page.md"] if d["code"] == "broken-link"] == [GONE_LINE]
    html = (tmp_path / "site" / "page" / "index.html").read_text()
    assert "Missing" not in html and "secret" not in html and "%%" not in html and "&lt;!--" not in html
    assert "Shown section" in html and "Hidden section" not in html and "Draft title" not in html
