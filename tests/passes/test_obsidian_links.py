"""`links: obsidian`, language folders and attachments: each rule of content/obsidian-and-github.md, with its example."""

import pytest

from pipeline.inline import run_inline
from pipeline.passes.registry import load_passes

SPECS = [s for s in load_passes(entry_points=False) if s.name in ("metadata", "headings", "links", "wikilinks")]
OBSIDIAN = {"links": "obsidian"}
FOLDERS = {"links": "obsidian", "language_folders": True, "languages": ["en", "es"]}


def resolved(files: dict, options: dict, attachments: dict | None = None, path: str | None = None) -> dict:
    """Target -> (status, target path, step) of the links of `path` (the first file)."""
    out = run_inline(files, specs=SPECS, options=options, attachments=attachments)["wikilinks"]
    links = out[path or next(iter(files))]["links"]
    return {link["target"]: (link["status"], link["target_path"], link["step"]) for link in links}


@pytest.mark.parametrize("written, found, step", [
    ("[[Guides/Setup]]", "Guides/Setup.md", "path"),  # the exact path from the vault's root
    ("[[guides/setup.md]]", "Guides/Setup.md", "path"),  # case-insensitive, `.md` optional
    ("[[Deep]]", "Guides/Nested/Deep.md", "name"),  # the file name, wherever it is
    ("[[Older/Old]]", "Archive/Older/Old.md", "name"),  # a path's end
    ("[[Setup]]", "Guides/Setup.md", "path"),  # from the linking note's folder, before another folder's
    ("[[Intro]]", "Intro.md", "path"),  # from the vault's root
    ("[[Old]]", "Archive/Old.md", "name"),  # of two files of one name, the shortest path
])  # fmt: skip
def test_obsidian_matches_paths_then_names(written, found, step):
    files = {
        "Guides/Index.md": f"{written}\n", "Guides/Setup.md": "x\n", "Other/Setup.md": "x\n",
        "Guides/Nested/Deep.md": "x\n", "Intro.md": "x\n", "Archive/Old/Intro.md": "x\n", "Archive/Old.md": "x\n",
        "Archive/Older/Old.md": "x\n",
    }  # fmt: skip
    target = written[2:-2]
    assert resolved(files, OBSIDIAN)[target] == ("ok", found, step)


def test_obsidian_does_not_match_aliases_or_titles_and_reports_no_ambiguity():
    files = {
        "a.md": "[[Nickname]] [[The Title]] [[Same]]\n",
        "b.md": "---\ntitle: The Title\naliases: [Nickname]\n---\n",
        "x/Same.md": "x\n", "y/Same.md": "y\n",
    }  # fmt: skip
    out = run_inline(files, specs=SPECS, options=OBSIDIAN)["wikilinks"]["a.md"]
    assert [link["status"] for link in out["links"]] == ["broken", "broken", "ok"]
    assert {d["code"] for d in out["diagnostics"]} == {"broken-link"}
    assert out["edit"] is None or not out["edit"].get("diff")  # no rewrite to slugs in the writers' editor


def test_language_folders_are_vaults_searched_first_then_the_whole_content():
    files = {
        "es/Inicio.md": "[[Guía]] [[Sync/Seguridad]] [[Only English]]\n",
        "es/Guía.md": "x\n", "en/Guía.md": "x\n", "es/Sync/Seguridad.md": "x\n", "en/Only English.md": "x\n",
    }  # fmt: skip
    found = resolved(files, FOLDERS, path="es/Inicio.md")
    assert found["Guía"] == ("ok", "es/Guía.md", "path")  # its own folder's, not en/
    assert found["Sync/Seguridad"] == ("ok", "es/Sync/Seguridad.md", "path")  # from the language folder's root
    assert found["Only English"] == ("fallback", "en/Only English.md", "name")
    meta = run_inline(files, specs=SPECS, options=FOLDERS)["metadata"]["es/Sync/Seguridad.md"]
    assert (meta["lang"], meta["url"]) == ("es", "es/sync/seguridad/")  # the folder is the language, not repeated


def test_a_note_missing_in_a_language_falls_back_to_the_default_languages_not_the_first_folders():
    # es/ lacks A: of en/A and de/A (paths of one length: `de` sorts first), the default language's is taken.
    files = {"es/B.md": "See [[A#Overview]] and [[A]].\n", "en/A.md": "## Overview\n", "de/A.md": "## Überblick\n"}
    options = {**FOLDERS, "languages": ["en", "es", "de"], "default_language": "en"}
    out = run_inline(files, specs=SPECS, options=options)["wikilinks"]["es/B.md"]
    assert [(link["status"], link["target_path"]) for link in out["links"]] == [("fallback", "en/A.md")] * 2
    assert not out["diagnostics"]  # the heading is found: no broken anchor
    assert resolved(files, {**options, "default_language": "de"}, path="es/B.md")["A"][:2] == ("fallback", "de/A.md")


def test_wiki_links_prefer_the_linking_articles_language_folder_over_an_ambiguity():
    files = {"es/a.md": "[[Guide]]\n", "es/Guide.md": "x\n", "en/Guide.md": "x\n"}
    options = {"language_folders": True, "languages": ["en", "es"]}
    assert resolved(files, options, path="es/a.md")["Guide"][:2] == ("ok", "es/Guide.md")
    assert resolved(files, {}, path="es/a.md")["Guide"][0] == "ambiguous"  # without language folders


@pytest.mark.parametrize("options", [{}, OBSIDIAN])
def test_attachments_resolve_by_path_and_name_and_a_missing_one_is_its_own_diagnostic(options):
    files = {"notes/a.md": "![[photo.png|300]] [[docs/guide.pdf]] ![x](../img/photo.png) ![[gone.png]]\n"}
    attachments = {"img/photo.png": "1" * 64, "docs/guide.pdf": "2" * 64}
    out = run_inline(files, specs=SPECS, options=options, attachments=attachments)["wikilinks"]["notes/a.md"]
    by_target = {link["target"]: link for link in out["links"]}
    assert by_target["photo.png"]["target_path"] == by_target["../img/photo.png"]["target_path"] == "img/photo.png"
    assert by_target["docs/guide.pdf"]["url"] == "docs/guide.pdf" and by_target["photo.png"]["attachment"]
    assert [(d["code"], d["col"]) for d in out["diagnostics"]] == [("missing-attachment", 62)]


def test_attachments_outside_the_language_folders_belong_to_every_language():
    files = {"en/a.md": "[[guide.pdf]] ![[photo.png]] [[plano.pdf]]\n", "es/b.md": "x\n"}
    attachments = {"attachments/guide.pdf": "1" * 64, "attachments/photo.png": "2" * 64, "es/plano.pdf": "3" * 64}
    found = resolved(files, FOLDERS, attachments, path="en/a.md")
    assert found["guide.pdf"][:2] == ("ok", "attachments/guide.pdf")  # a shared folder: no other language's file
    assert found["photo.png"][:2] == ("ok", "attachments/photo.png")
    assert found["plano.pdf"][:2] == ("fallback", "es/plano.pdf")  # a file of the Spanish vault


def test_markdown_links_percent_encoded_or_in_angle_brackets_name_the_same_note():
    files = {"a.md": "[a](Other%20Note.md) [b](<Other Note.md>)\n", "Other Note.md": "x\n"}
    out = run_inline(files, specs=SPECS)["wikilinks"]["a.md"]
    assert [(link["status"], link["target_path"], link["col"]) for link in out["links"]] == [
        ("ok", "Other Note.md", 1), ("ok", "Other Note.md", 22)
    ]  # fmt: skip


def test_a_link_to_a_page_or_script_among_the_files_is_never_a_link_out():
    files = {"a.md": "![[page.html]] [run](tool.js)\n"}
    out = run_inline(files, specs=SPECS, attachments={"page.html": "1" * 64, "tool.js": "2" * 64})["wikilinks"]["a.md"]
    assert [link["status"] for link in out["links"]] == ["broken", "broken"]
    assert [d["message"] for d in out["diagnostics"]] == [
        "'page.html' is never published: a browser would run it", "'tool.js' is never published: a browser would run it"
    ]  # fmt: skip
