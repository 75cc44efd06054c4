"""`pipeline build` options, its console output, and the search step."""

from __future__ import annotations

import pytest

from pipeline.cli import main
from pipeline.runtime.console import SILENT, Bar, progress_for
from tests.site.helpers import SITE, build_site, read


def test_build_command_takes_out_and_base_url_and_prints_one_summary(make_wiki, tmp_path, capsys, monkeypatch):
    config = make_wiki(SITE)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "wiki.yaml").write_text("search: false\n", encoding="utf-8")
    out = tmp_path / "public"
    status = main(["build", "--content", str(config.content_dir), "--out", str(out), "--base-url", "/docs/",
                   "--state", str(tmp_path / "st")])  # fmt: skip
    captured = capsys.readouterr()
    assert status == 0
    assert 'href="/docs/beta/"' in read(out, "alpha/index.html")
    summary = captured.out.strip().splitlines()[-1]
    assert summary.startswith("pages ") and " written, 0 unchanged, 0 removed" in summary
    assert "jobs " in summary and " reused" in summary and summary.endswith("s")
    assert "warning(s)" in captured.err  # the diagnostics summary
    assert "\r" not in captured.out + captured.err  # not a terminal: no progress bar


def test_progress_is_a_bar_only_on_a_terminal():
    class Terminal:
        def isatty(self):
            return True

    class Pipe:
        def isatty(self):
            return False

    assert isinstance(progress_for(Terminal()), Bar)
    assert progress_for(Pipe()) is SILENT


def test_search_indexes_each_language_and_every_page_loads_the_local_ui(make_wiki):
    config = make_wiki(SITE)
    report = build_site(config, search=True)
    assert report.site.indexed and report.site.warnings == []
    import json

    languages = {lang: json.loads(read(config.out_dir, f"pagefind/{lang}/0/pagefind-entry.json"))["languages"]
                 for lang in ("en", "es")}  # fmt: skip
    assert {lang: set(found) for lang, found in languages.items()} == {"en": {"en"}, "es": {"es"}}  # a shard each
    page = read(config.out_dir, "es/alpha/index.html")
    assert '<script src="/pagefind/pagefind-ui.js" defer></script>' in page and 'id="search"' in page
    assert '<script src="/pagefind/shards.js" defer></script>' in page
    assert "https://" not in page.split("</head>")[0]  # no CDN
    again = build_site(config, search=True)
    assert not again.site.indexed  # nothing changed: the index is not rebuilt


def test_a_missing_pagefind_is_one_warning_and_the_next_build_indexes(make_wiki, monkeypatch):
    from pipeline.site import search

    monkeypatch.setattr(search, "_pagefind_binary", lambda: ("/nonexistent/pagefind",))
    config = make_wiki(SITE)
    report = build_site(config, search=True)
    assert len(report.site.warnings) == 1 and report.site.warnings[0].startswith("search index not built")
    assert (config.out_dir / "alpha" / "index.html").is_file()
    monkeypatch.undo()
    again = build_site(config, search=True)  # nothing changed since, but the index is still missing
    assert again.site.indexed and again.site.warnings == []
    assert build_site(config, search=True).process.skipped  # indexed now: nothing left to do


@pytest.mark.parametrize("option", ["--out", "--base-url"])
def test_check_does_not_take_output_options(option, capsys):
    with pytest.raises(SystemExit):
        main(["check", option, "x"])
