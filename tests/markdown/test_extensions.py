"""The table of Markdown extensions: names and options from wiki.yaml, modules and entry points, exact rebuilds."""

import dataclasses
import json
import shutil

import pytest

from conftest import REPO
from pipeline.build import build
from pipeline.passes.options import wiki_options
from pipeline.config import Config, load_config
from pipeline.errors import ConfigError
from pipeline.markdown import make_parser
from pipeline.markdown import extensions
from pipeline.markdown.extensions import BUILTIN, MarkdownExtension, resolve, setting
from tests.helpers import install_package

EXAMPLE = REPO / "examples" / "markdown_keys.py"
KEYS = '<kbd class="keys"><kbd>Ctrl</kbd>+<kbd>Alt</kbd>+<kbd>Del</kbd></kbd>'
# metadata parses too: a page's title may be its first heading, and its tags are in its text.
PARSED = {(path, name) for path in ("keys.md", "plain.md")
          for name in ("metadata", "headings", "citations", "links", "html")}  # fmt: skip
TABLE = "| a | b |\n|---|---|\n| 1 | 2 |\n"


def names(items) -> list[str]:
    return [name for name, _, _ in resolve(items)]


def test_the_default_table_is_the_built_ins_on_by_default_and_its_setting_names_each_with_its_version():
    """The default table's setting is its text, not "" (as it was when the table came in): a built-in added on
    by default, or a version raised, changes the setting of every wiki, so the jobs that parse Markdown re-run."""
    default = [name for name, ext in BUILTIN.items() if ext.enabled_by_default]
    assert names([]) == default
    assert setting([]) == setting(["wikilinks", {"footnotes": None}, {"tables": True}])
    assert setting([]) == wiki_options(Config(), [])["markdown"]
    assert [[name, version] for name, version, _ in json.loads(setting([]))] == [[n, BUILTIN[n].version]
                                                                               for n in default]  # fmt: skip
    assert setting([]) != setting([{"tables": False}])


def test_a_built_in_added_on_by_default_or_a_version_raised_changes_the_default_setting(monkeypatch):
    before = setting([])
    added = MarkdownExtension("added", lambda md: None, enabled_by_default=True)
    try:
        monkeypatch.setitem(BUILTIN, "added", added)
        extensions._setting.cache_clear()  # the settings remembered were those of the table as it was
        assert setting([]) not in ("", before) and '["added",1,{}]' in setting([])
        monkeypatch.setitem(BUILTIN, "added", dataclasses.replace(added, version=2))
        extensions._setting.cache_clear()
        assert '["added",2,{}]' in setting([]) and setting([{"added": False}]) == before
    finally:
        monkeypatch.undo()
        extensions._setting.cache_clear()


def test_a_built_in_turned_off_leaves_the_table_and_the_parser():
    assert "tables" not in names([{"tables": False}])
    markdown = setting([{"tables": False}])
    assert markdown and "tables" not in markdown
    assert "<table>" in make_parser().render(TABLE)
    assert "<table>" not in make_parser(markdown=markdown).render(TABLE)


@pytest.mark.parametrize(
    ("items", "message"),
    [
        (["footnote"], "unknown extension 'footnote' (did you mean footnotes?)"),
        ([{"tables": {"align": True}}], "tables: unknown option(s) align (it takes: none)"),
        ([{"wikilinks": False}], "wikilinks cannot be turned off"),
        ([str(EXAMPLE.with_name("missing.py"))], "missing.py not found"),
        (["email.utils"], "email.utils has no EXTENSION"),
    ],
)
def test_bad_items_are_one_line_config_errors(items, message):
    with pytest.raises(ConfigError) as caught:
        setting(items)
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_wiki_yaml_checks_the_shape_of_the_list_and_resolves_paths(tmp_path):
    (tmp_path / "wiki.yaml").write_text("markdown:\n  - keys.py\n  - tables: false\n")
    assert load_config(tmp_path / "wiki.yaml").markdown == [str(tmp_path / "keys.py"), {"tables": False}]
    (tmp_path / "wiki.yaml").write_text("markdown:\n  - tables: 3\n")
    with pytest.raises(ConfigError, match="markdown: tables: expected options"):
        load_config(tmp_path / "wiki.yaml")
    (tmp_path / "wiki.yaml").write_text("markdown:\n  - {a: 1, b: 2}\n")
    with pytest.raises(ConfigError, match="markdown: item 1 must be a name"):
        load_config(tmp_path / "wiki.yaml")


def inline_site(tmp_path, markdown: str) -> Config:
    """A tiny wiki written in tmp_path, with `markdown` as its wiki.yaml list."""
    content = tmp_path / "content"
    content.mkdir()
    (content / "keys.md").write_text("---\ntitle: Keys\n---\n# Keys\n\nPress ++ctrl+alt+del++ to restart.\n")
    (content / "plain.md").write_text("---\ntitle: Plain\n---\nNo keys here, see [[Keys]].\n")
    return with_markdown(tmp_path, markdown)


def with_markdown(tmp_path, markdown: str) -> Config:
    """The wiki's config after writing wiki.yaml with `markdown` as its list."""
    (tmp_path / "wiki.yaml").write_text(f"content_dir: content\nstate_dir: state\nout_dir: site\nsearch: false\n{markdown}")
    return load_config(tmp_path / "wiki.yaml")


def reran_markdown_passes(report) -> bool:
    """The passes that parse Markdown ran again for every article; of the others, only mentions (which reads the
    links pass's output): pairing and wikilinks kept their jobs."""
    return set(report.process.created_passes) - {(path, "mentions") for path in ("keys.md", "plain.md")} == PARSED


def test_the_example_registered_by_path_renders_keys_and_a_change_of_the_list_reruns_the_markdown_jobs(tmp_path):
    shutil.copy(EXAMPLE, tmp_path / "markdown_keys.py")
    config = inline_site(tmp_path, "")
    build(config, workers=1, site=True)
    assert "<kbd" not in (tmp_path / "site" / "keys" / "index.html").read_text()
    config = with_markdown(tmp_path, "markdown:\n  - markdown_keys.py\n")
    report = build(config, workers=1, site=True)
    assert report.process.work.failed == 0
    assert KEYS in (tmp_path / "site" / "keys" / "index.html").read_text()
    assert reran_markdown_passes(report)
    config = with_markdown(tmp_path, "markdown:\n  - markdown_keys.py: {separator: ' + '}\n")
    report = build(config, workers=1, site=True)
    assert "</kbd> + <kbd>" in (tmp_path / "site" / "keys" / "index.html").read_text()
    assert reran_markdown_passes(report)
    assert build(config, workers=1, site=True).process.created_passes == []


def test_an_extension_installed_as_an_entry_point_is_enabled_by_name(tmp_path, monkeypatch):
    packages = tmp_path / "site-packages"
    install_package(packages, "wiki_keys", EXAMPLE, "[pipeline.markdown]\nkeys = wiki_keys:EXTENSION\n")
    monkeypatch.syspath_prepend(str(packages))
    config = inline_site(tmp_path, "markdown: [keys]\n")
    assert build(config, workers=1, site=True).process.work.failed == 0
    assert KEYS in (tmp_path / "site" / "keys" / "index.html").read_text()
    with pytest.raises(ConfigError, match=r"did you mean keys\?"):
        setting(["kyes"])
