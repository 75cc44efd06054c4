"""Internal Markdown links are extracted and resolved by path, as MkDocs checks them."""

import pytest

from pipeline.inline import run_inline
from pipeline.passes.registry import load_passes

SPECS = [s for s in load_passes() if s.name in ("metadata", "headings", "links", "wikilinks")]


def resolve(files):
    return run_inline(files, specs=SPECS)["wikilinks"]


def test_relative_root_and_language_links():
    files = {
        "guide/setup.md": "---\ntitle: Setup\n---\n## Install\n",
        "guide/setup.es.md": "---\ntitle: Instalación\n---\n",
        "guide/_index.md": "---\ntitle: Guide\nslug: guide-home\n---\n",
        "guide/usage.md": (
            "---\ntitle: Usage\n---\n"
            "See [setup](setup.md#install), [es](setup.es.md), [up](../guide/), [root](/guide/),"
            " [home](/), [web](https://example.com/x.md), ![img](pic.png), [mail](mailto:a@b.c).\n"
            "\n`[code](nowhere.md)`\n\n[gone](missing.md)\n"
        ),
    }
    links = resolve(files)["guide/usage.md"]["links"]
    by_target = {link["target"]: link for link in links}
    assert set(by_target) == {"setup.md", "setup.es.md", "../guide/", "/guide/", "/", "missing.md", "pic.png"}
    assert by_target["pic.png"]["embed"] and by_target["pic.png"]["status"] == "broken"  # an image the wiki lacks
    assert by_target["setup.md"]["target_path"] == "guide/setup.md" and by_target["setup.md"]["fragment"] == "install"
    assert by_target["setup.es.md"]["target_path"] == "guide/setup.es.md"
    assert by_target["setup.es.md"]["url"] == "es/guide/setup/"
    assert by_target["../guide/"]["target_path"] == by_target["/guide/"]["target_path"] == "guide/_index.md"
    assert by_target["/guide/"]["url"] == "guide/"  # an _index file is its folder's page, whatever its slug
    assert by_target["/"]["status"] == "ok"
    assert by_target["missing.md"]["status"] == "broken" and by_target["missing.md"]["url"] == "missing.md"


def test_a_link_to_a_folder_names_its_index_else_its_readme_as_github_shows_it():
    files = {
        "README.md": "[guide](guide/) [api](api/) [wiki](wiki/) [none](empty/)\n[[guide/]]\n",
        "guide/README.md": "# Guide\n", "api/index.md": "# API\n", "api/README.md": "# API readme\n",
        "wiki/_index.md": "# Wiki\n", "empty/page.md": "# Page\n",
    }  # fmt: skip
    links = resolve(files)["README.md"]["links"]
    assert [(link["target"], link["status"], link["target_path"]) for link in links] == [
        ("guide/", "ok", "guide/README.md"), ("api/", "ok", "api/index.md"), ("wiki/", "ok", "wiki/_index.md"),
        ("empty/", "broken", None), ("guide/", "ok", "guide/README.md"),
    ]  # fmt: skip


@pytest.mark.parametrize("written", ["[gone](../nowhere/page.md)", "[gone [with] brackets](../nowhere/page.md)",
                                     "[gone](../nowhere/page%20two.md)", "[gone](<../nowhere/page two.md>)"])  # fmt: skip
def test_broken_markdown_link_is_diagnosed_at_the_bracket_that_opens_it(written):
    text = f"---\ntitle: A\n---\nline one\nand [[a]] {written} here\n"
    output = resolve({"a.md": text})["a.md"]
    (diagnostic,) = output["diagnostics"]
    assert diagnostic["code"] == "broken-link" and (diagnostic["line"], diagnostic["col"]) == (5, 11)
    assert text.split("\n")[4][diagnostic["col"] - 1 :].startswith(written)
    assert output["edit"] is None


def test_edit_positions_count_only_newlines():
    from pipeline.inline import articles_from
    from pipeline.passes.edits import make_edit

    (article,) = articles_from({"a.md": "one\x0ctwo [[x]]\nthree [[y]]\n"})
    edit = make_edit(article, [(2, 7, 12, "[[z]]")])
    assert "+three [[z]]" in edit["diff"] and "-three [[y]]" in edit["diff"]


def test_markdown_links_point_at_the_resolved_page():
    files = {
        "guide/setup.md": "---\ntitle: Setup\n---\n## Install\n",
        "guide/usage.md": "---\ntitle: Usage\n---\nSee [setup](setup.md#install), [gone](missing.md), [web](https://x.org/a.md).\n",
    }
    html = run_inline(files)["html"]["guide/usage.md"]["html"]
    assert 'href="/guide/setup/#install"' in html
    assert 'href="missing.md"' in html and 'href="https://x.org/a.md"' in html
