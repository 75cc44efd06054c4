"""The issue-41 test vault (tests/vaults/obsidian-multilang), built end to end as its writers' editor reads it.

Three language folders, nested folders, names in many scripts, attachments of every kind, every Obsidian
syntax: exactly the diagnostics `.EXPECTED.md` lists, and spot checks of the pages and files published.
"""

from __future__ import annotations

import re
import shutil
import unicodedata
from html import unescape
from pathlib import Path

import pytest

from conftest import REPO, folder_hashes
from pipeline.build import build
from pipeline.config import load_config

VAULT = REPO / "tests" / "vaults"
EXPECTED = (VAULT / "obsidian-multilang" / ".EXPECTED.md").read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("vault")
    shutil.copytree(VAULT, root / "vaults")
    before = folder_hashes(root / "vaults")
    config = load_config(root / "vaults" / "obsidian-multilang.wiki.yaml", state=root / "state", out=root / "site")
    report = build(config, workers=1, site=True)
    assert folder_hashes(root / "vaults") == before  # the content folder is never written
    return config, report


def _expected() -> list[str]:
    block = re.search(r"## Expected diagnostics \(exact\).*?```text\n(.*?)```", EXPECTED, re.S).group(1)
    return sorted(line for line in block.splitlines() if line)


def test_exactly_the_expected_diagnostics(built):
    config, report = built
    found = sorted(
        f"{unicodedata.normalize('NFC', d.path)}:{d.line}:{d.col}: {d.severity}: {d.code}"
        for d in report.process.diagnostics if d.severity != "info"
    )  # fmt: skip
    assert found == _expected()
    assert report.process.work.failed == 0


def _page(config, url: str) -> str:
    html = (config.out_dir / url.strip("/") / "index.html").read_text(encoding="utf-8")
    return re.search(r"<main.*?</main>", html, re.S).group(0)


def test_language_folders_are_not_repeated_in_urls_and_links_stay_in_their_language(built):
    config, _ = built
    spanish = _page(config, "es/sync/obsidian-headless")  # es/Sync/Obsidian Headless.md
    assert 'lang="es"' in (config.out_dir / "es/sync/obsidian-headless/index.html").read_text(encoding="utf-8")
    assert not (config.out_dir / "es" / "es").exists()
    german = _page(config, "de/startseite")
    assert 'href="/de/sync/sicherheit-und-datenschutz/"' in german  # [[Sync/Sicherheit und Datenschutz]] in de/
    assert 'href="/linking/aliases/"' in german  # not in de/: the whole vault, a fallback
    assert "Obsidian Headless" in spanish


def test_attachments_are_published_and_shown_as_the_element_a_reader_expects(built):
    config, _ = built
    for path in ("en/attachments/demo.mp4", "assets/Excerpt from a demo (1968).ogg", "de/attachments/anleitung.pdf"):
        assert (config.out_dir / path).read_bytes() == (config.content_dir / path).read_bytes()
    page = _page(config, "linking/embed-files")
    assert '<img src="/en/attachments/workspace.png" alt="workspace.png" width="300" loading="lazy">' in page
    assert '<audio controls preload="metadata" src="/assets/Excerpt%20from%20a%20demo%20%281968%29.ogg"' in page
    assert '<video controls preload="metadata" src="/en/attachments/demo.mp4"' in page
    assert '<object class="pdf" data="/en/attachments/user-guide.pdf#page=2" type="application/pdf">' in page
    assert not re.search(r"<p>(?:(?!</p>).)*<div", page, re.S)  # no block inside a paragraph


def test_no_markup_of_the_editor_is_left_on_any_page(built):
    config, _ = built
    for page in config.out_dir.rglob("index.html"):
        main = re.search(r"<main.*?</main>", page.read_text(encoding="utf-8"), re.S)
        body = re.sub(r"<(pre|code)\b.*?</\1>", "", main.group(0) if main else "", flags=re.S)
        text = unescape(re.sub(r"<[^>]+>", " ", body))
        # (a link to a block reads `Note > ^id`, as in Obsidian: that `^id` is the link's text, not a block id left over)
        assert not re.search(r"%%|<!--|\[![A-Za-z]+\][-+]?|(?<![\w#\[])(?<!> )\^[A-Za-z0-9-]+(?!\])", text), page


def test_an_unchanged_attachment_is_not_copied_again_and_a_changed_one_is(built, tmp_path):
    config, _ = built
    content = tmp_path / "content"
    shutil.copytree(config.content_dir, content)
    mine = load_config(content=content, state=tmp_path / "state", out=tmp_path / "site")
    build(mine, workers=1, site=True)
    (content / "en" / "Home.md").write_text("# Home\n\nEdited.\n", encoding="utf-8")
    assert not [rel for rel in build(mine, workers=1, site=True).site.written if rel.endswith((".png", ".mp4"))]
    (content / "en" / "attachments" / "workspace.png").write_bytes(b"\x89PNG changed")
    written = build(mine, workers=1, site=True).site.written
    assert [rel for rel in written if not rel.endswith(".html") and not rel.startswith("pagefind")] == [
        "en/attachments/workspace.png"
    ]
    assert (tmp_path / "site" / "en" / "attachments" / "workspace.png").read_bytes() == b"\x89PNG changed"


def test_a_page_script_or_the_themes_file_in_the_content_is_not_published(tmp_path):
    content = tmp_path / "content"
    (content / "assets").mkdir(parents=True)
    (content / "index.md").write_text("---\ntitle: Home\n---\n![[logo.png]]\n", encoding="utf-8")
    (content / "logo.png").write_bytes(b"png")
    (content / "evil.html").write_text("<script>alert(1)</script>", encoding="utf-8")
    (content / "assets" / "search.js").write_text("alert(1)", encoding="utf-8")
    config = load_config(content=content, state=tmp_path / "state", out=tmp_path / "site")
    report = build(config, workers=1, site=True)
    assert (tmp_path / "site" / "logo.png").read_bytes() == b"png"
    assert not (tmp_path / "site" / "evil.html").exists()
    assert b"alert" not in (tmp_path / "site" / "assets" / "search.js").read_bytes()
    assert sorted(line.split(":")[0] for line in report.site.warnings if "not published" in line) == [
        "assets/search.js", "evil.html"
    ]  # fmt: skip
    robots = (tmp_path / "site" / "robots.txt").read_bytes()
    (content / "robots.txt").write_text("Disallow: /\n", encoding="utf-8")  # after an edit, the robots output keeps its file
    (content / "index.md").write_text("---\ntitle: Home\n---\nEdited.\n", encoding="utf-8")
    again = build(config, workers=1, site=True)
    assert (tmp_path / "site" / "robots.txt").read_bytes() == robots
    assert any(line.startswith("robots.txt: not published") for line in again.site.warnings)


def test_the_vault_config_loads_its_options():
    config = load_config(VAULT / "obsidian-multilang.wiki.yaml")
    assert (config.links, config.language_folders, config.pairing_key) == ("obsidian", True, "permalink")
    assert Path(config.content_dir).name == "obsidian-multilang"
