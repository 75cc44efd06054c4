"""Site outputs are emitters: the built-in table, wiki.yaml's `emitters:` list, entry points, and outputs that stay
current after an edit renders only a few pages."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest

from conftest import REPO, write_files
from pipeline.build import build
from pipeline.config import load_config
from pipeline.errors import ConfigError, UserError
from pipeline.site import emitters
from pipeline.site.emitters import EMITTERS, resolve, setting
from tests.helpers import install_package
from tests.site.helpers import SITE, read, rendered  # noqa: F401 (a fixture)

EXAMPLE = REPO / "examples" / "page_index.py"


def wiki(tmp_path, emitters_yaml: str = "", files: dict | None = None):
    """A tiny wiki in `tmp_path` whose wiki.yaml lists `emitters_yaml` (the example copied beside it)."""
    write_files(tmp_path / "content", files or SITE)
    (tmp_path / "examples").mkdir(exist_ok=True)
    shutil.copy(EXAMPLE, tmp_path / "examples" / "page_index.py")
    options = "content_dir: content\nout_dir: site\nstate_dir: state\nsearch: false\n"
    (tmp_path / "wiki.yaml").write_text(options + emitters_yaml, encoding="utf-8")
    return load_config(tmp_path / "wiki.yaml")


def page_index(config) -> dict[str, str]:
    return {page["url"]: page["title"] for page in json.loads(read(config.out_dir, "page-index.json"))["pages"]}


def test_the_built_in_table_is_every_output_and_its_setting_is_empty():
    assert [name for name, _, _ in resolve([]).entries] == [builtin.name for builtin in EMITTERS] == [
        "articles", "history", "special_pages", "translation_status", "tags", "redirects", "sitemap", "feeds", "robots",
        "search_index", "assets", "attachments", "not_found",
    ]  # fmt: skip
    assert setting([]) == "" and setting([{"sitemap": False}]) != ""


def test_the_page_index_example_stays_current_after_a_retitle(tmp_path, rendered):
    config = wiki(tmp_path, "emitters: [examples/page_index.py]\n")
    first = build(config, workers=1, site=True)
    assert page_index(config)["/beta/"] == "Beta" and "page-index.json" in first.site.written
    assert "/evil/" in page_index(config) and len(page_index(config)) == 4
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("title: Beta", "title: Bet"), encoding="utf-8")
    rendered.clear()
    second = build(config, workers=1, site=True)
    # A title change: every page's navigation tree shows it, so every page is rendered again.
    assert {"beta/", "alpha/", "evil/"} <= set(rendered)
    assert page_index(config)["/beta/"] == "Bet" and "page-index.json" in second.site.written
    assert (second.site.pages, second.site.files) == (first.site.pages, first.site.files)
    third = build(config, workers=1, site=True)  # nothing changed: skipped, the index stays listed and in place
    assert third.process.skipped and page_index(config)["/beta/"] == "Bet"


def test_a_changed_emitter_list_is_not_skipped_and_a_built_in_turned_off_takes_its_file_with_it(tmp_path):
    config = wiki(tmp_path)
    build(config, workers=1, site=True)
    assert (config.out_dir / "sitemap.xml").is_file() and not (config.out_dir / "page-index.json").exists()
    config = wiki(tmp_path, "emitters: [{sitemap: false}, {examples/page_index.py: {file: pages.json}}]\n")
    report = build(config, workers=1, site=True)
    assert not report.process.skipped and "sitemap.xml" in report.site.removed
    assert {page["url"] for page in json.loads(read(config.out_dir, "pages.json"))["pages"]} >= {"/alpha/", "/es/alpha/"}
    assert not (config.out_dir / "sitemap.xml").exists()


@pytest.mark.parametrize(("listed", "message"), [
    ("[{articles: false}]", "wiki.yaml: emitters: articles cannot be turned off"),
    ("[sitemp]", "wiki.yaml: emitters: unknown emitter 'sitemp' (did you mean sitemap?)"),
    ("[{examples/page_index.py: {nope: 1}}]", "emitters: examples/page_index.py: unknown option(s) nope (it takes: file)"),
    ("[examples/missing.py]", "missing.py not found"),
    ("[{sitemap: {nope: 1}}]", "emitters: sitemap: unknown option(s) nope (it takes: none)"),
    ("[pipeline.site.emitters.base]", "has no EMITTER"),
])  # fmt: skip
def test_a_bad_emitter_list_is_one_line_naming_wiki_yaml(tmp_path, listed, message):
    config = wiki(tmp_path, f"emitters: {listed}\n")
    with pytest.raises(ConfigError) as raised:
        build(config, workers=1, site=True)
    assert message.replace("examples/", str(tmp_path / "examples") + "/") in str(raised.value)
    assert "\n" not in str(raised.value) and not config.out_dir.exists()


# A wiki's own emitter without `emit_changed`: a page and a file per article, named by its title; and one that
# lists every page (`lists_pages`).
OWN = '''
from pipeline.site.emitters.base import Emitter
from pipeline.site.render import Planned
from pipeline.text import url_slug


def titles(site, out):
    for page in site.model.articles:
        out.page(Planned(f"titled/{url_slug(page.title)}/", page.lang, "404.html", page.title, {}, ("titled", page.path)))
        out.put(f"titles/{url_slug(page.title)}.txt", page.title.encode())


def listing(site, out):
    out.put("urls.txt", "\\n".join(sorted(page.url for page in out.pages)).encode())


TITLES = Emitter("titles", titles)
LISTING = Emitter("listing", listing, lists_pages=True)
'''


@pytest.mark.parametrize("emitter", ["titles", "listing"])
def test_an_emitter_without_emit_changed_puts_all_its_files_after_an_edit_and_what_it_no_longer_puts_goes(
    tmp_path, rendered, emitter
):
    (tmp_path / "own").mkdir()
    (tmp_path / "own" / "own_emitters.py").write_text(OWN + f"EMITTER = {emitter.upper()}\n", encoding="utf-8")
    config = wiki(tmp_path, "emitters: [own/own_emitters.py]\n")
    first = build(config, workers=1, site=True)
    listed = read(config.out_dir, "urls.txt").splitlines() if emitter == "listing" else []
    # A retitle shows in every page's navigation tree (every page is rendered again); a body edit is an edit build.
    change = ("title: Beta", "title: Bet") if emitter == "titles" else ("Body.", "Edited.")
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace(*change), encoding="utf-8")
    rendered.clear()
    second = build(config, workers=1, site=True)
    assert (second.site.pages, second.site.files) == (first.site.pages, first.site.files)
    if emitter == "titles":
        assert read(config.out_dir, "titles/bet.txt") == "Bet" and not (config.out_dir / "titles" / "beta.txt").exists()
        assert {"titled/beta/index.html", "titles/beta.txt"} <= set(second.site.removed)
        assert "<title>Bet" in read(config.out_dir, "titled/bet/index.html")
    else:  # every page is planned again for it to list, though only the changed ones are rendered
        assert "evil/" not in rendered  # the other articles' pages are the last build's
        assert read(config.out_dir, "urls.txt").splitlines() == listed and {"evil/", "special/wanted/"} <= set(listed)


def test_an_emitter_that_raises_is_one_line_naming_it(tmp_path):
    (tmp_path / "own").mkdir()
    code = "from pipeline.site.emitters.base import Emitter\nEMITTER = Emitter('broken', lambda site, out: 1 / 0)\n"
    (tmp_path / "own" / "broken.py").write_text(code, encoding="utf-8")
    config = wiki(tmp_path, "emitters: [own/broken.py]\n")
    with pytest.raises(UserError, match=r"^emitter .*broken\.py failed: ZeroDivisionError: division by zero$"):
        build(config, workers=1, site=True)


def test_an_emitter_installed_as_an_entry_point_is_enabled_by_name(tmp_path, monkeypatch):
    packages = tmp_path / "site-packages"
    install_package(packages, "wiki_page_index", EXAMPLE, "[pipeline.emitters]\npage_index = wiki_page_index:EMITTER\n")
    monkeypatch.syspath_prepend(str(packages))
    emitters._chosen.cache_clear()  # the lists resolved before this package was installed
    config = wiki(tmp_path, "emitters: [page_index]\n")
    build(config, workers=1, site=True)
    assert page_index(config)["/alpha/"] == "Alpha"
    with pytest.raises(ConfigError, match=r"did you mean page_index\?"):
        setting(["page_indx"])


@pytest.mark.slow
def test_a_build_with_nothing_to_do_loads_no_template_code_with_an_emitter_listed(tmp_path):
    wiki(tmp_path, "emitters: [examples/page_index.py]\n")
    probe = (  # each build a process of its own: this one's code digest was taken when the tests started
        "import sys; from pipeline.build import build; from pipeline.config import load_config; "
        f"report = build(load_config({str(tmp_path / 'wiki.yaml')!r}), workers=1, site=True); "
        "print(report.process.skipped, 'jinja2' in sys.modules)"
    )
    builds = [subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=tmp_path)
              for _ in range(2)]  # fmt: skip
    assert [done.stdout.split() for done in builds] == [["False", "True"], ["True", "False"]]
