"""The build stamp: a build whose inputs did not change is skipped; any change makes it run."""

import dataclasses
import json
import shutil

import pytest

from pipeline.build import build
from pipeline.content.capture import capture_content
from pipeline.incremental import build_stamp
from pipeline.incremental.kept_pages import KEPT_PAGES
from pipeline.storage.store import open_store

FILES = {
    "a.md": "---\ntitle: Alpha\n---\nSee [[b]].\n",
    "b.md": "---\ntitle: Beta\n---\nBeta.\n",
    "c.md": "---\ntitle: Gamma\n---\nBroken [[nowhere]].\n",
}


def test_unchanged_build_is_skipped_with_the_same_report(make_wiki):
    config = make_wiki(FILES, search=False)
    first = build(config, workers=1, site=True)
    second = build(config, workers=1, site=True)
    assert not first.process.skipped and second.process.skipped
    assert second.process.diagnostics == first.process.diagnostics and second.process.diagnostics
    assert second.site.written == [] and second.site.pages == first.site.pages
    assert second.process.reused == len(first.process.created_passes)


def test_any_input_change_runs_the_build(make_wiki, tmp_path):
    config = make_wiki(FILES, search=False)
    build(config, workers=1, site=True)
    (config.content_dir / "b.md").write_text("---\ntitle: Beta\n---\nBeta, edited.\n")
    assert not build(config, workers=1, site=True).process.skipped
    page = (config.out_dir / "a" / "index.html").read_bytes()
    (config.out_dir / "a" / "index.html").unlink()  # a missing output file the state keeps: put back, nothing to build
    assert build(config, workers=1, site=True).process.skipped
    assert (config.out_dir / "a" / "index.html").read_bytes() == page
    (config.out_dir / "a" / "index.html").unlink()  # one it does not keep
    shutil.rmtree(config.state_dir / KEPT_PAGES)
    rebuilt = build(config, workers=1, site=True)
    assert not rebuilt.process.skipped and "a/index.html" in rebuilt.site.written
    assert build(config, workers=1, site=True).process.skipped


@pytest.mark.parametrize("option, value", [("site_name", "Other"), ("nav", [{"A": "a.md"}]), ("base_url", "/docs/")])
def test_a_change_of_any_option_of_the_site_runs_the_build(make_wiki, option, value):
    config = make_wiki(FILES, search=False)
    build(config, workers=1, site=True)
    assert build(config, workers=1, site=True).process.skipped
    changed = dataclasses.replace(config, **{option: value})
    assert not build(changed, workers=1, site=True).process.skipped
    assert build(dataclasses.replace(changed, workers=2, strict=True), workers=1, site=True).process.skipped


def test_a_theme_change_runs_the_build(make_wiki, tmp_path):
    theme = tmp_path / "theme"
    theme.mkdir()
    config = make_wiki(FILES, search=False, templates_dir=theme)
    build(config, workers=1, site=True)
    (theme / "404.html").write_text("{% extends 'base.html' %}{% block content %}Lost.{% endblock %}")
    again = build(config, workers=1, site=True)
    assert not again.process.skipped and "404.html" in again.site.written


def test_a_build_after_the_package_s_code_changed_runs(make_wiki, monkeypatch):
    from pipeline.incremental import code_digest

    config = make_wiki(FILES, search=False)
    build(config, workers=1, site=True)
    assert build(config, workers=1, site=True).process.skipped
    monkeypatch.setitem(code_digest._CODE, "", "another version's source")
    assert not build(config, workers=1, site=True).process.skipped
    assert build(config, workers=1, site=True).process.skipped


def test_check_and_build_keep_their_own_stamps(make_wiki):
    config = make_wiki(FILES, search=False)
    build(config, workers=1, site=True)
    assert not build(config, workers=1).process.skipped  # `check` never ran
    assert build(config, workers=1).process.skipped
    assert build(config, workers=1, site=True).process.skipped


def test_a_failed_job_is_never_skipped(make_wiki, tmp_path):
    (tmp_path / "boom.py").write_text(
        "NAME = 'boom'\nVERSION = 1\nCONTRACT = {'type': 'object', 'required': ['diagnostics']}\n"
        "def run(article, inputs):\n    raise ValueError('no')\n"
    )
    config = make_wiki(FILES, search=False, passes=[str(tmp_path / "boom.py")])
    assert build(config, workers=1).process.failures
    again = build(config, workers=1)
    assert not again.process.skipped and any(d.code == "job-failed" for d in again.process.diagnostics)


def test_a_data_file_change_runs_the_build(make_wiki):
    config = make_wiki(FILES, search=False)
    build(config, workers=1, site=True)
    (config.content_dir / "redirects.yaml").write_text("old-alpha: a\n")
    again = build(config, workers=1, site=True)
    assert not again.process.skipped and "old-alpha/index.html" in again.site.written
    (config.content_dir / "redirects.yaml").write_text("old-alpha: [unclosed\n")
    broken = build(config, workers=1, site=True)
    assert not broken.process.skipped and broken.process.problems[0][0] == "redirects.yaml"


def test_a_new_commit_runs_the_build(make_wiki, monkeypatch):
    """git times are facts: a commit changes them without changing a single capture."""
    config = make_wiki(FILES, search=False)
    from pipeline.content.git_history import GitPlace

    monkeypatch.setattr("pipeline.content.capture.git_place", lambda folder: GitPlace(str(folder), "", False, "1" * 40))
    build(config, workers=1, site=True)
    assert build(config, workers=1, site=True).process.skipped
    monkeypatch.setattr("pipeline.content.capture.git_place", lambda folder: GitPlace(str(folder), "", False, "2" * 40))
    assert not build(config, workers=1, site=True).process.skipped


def test_a_longer_capture_log_runs_the_build(make_wiki):
    """Same captures as the last build, but `pipeline capture` saw an edit in between: history pages change."""
    config = make_wiki(FILES, search=False)
    original = (config.content_dir / "b.md").read_text()
    build(config, workers=1, site=True)
    (config.content_dir / "b.md").write_text("---\ntitle: Beta\n---\nBeta, edited.\n")
    conn = open_store(config.state_db)
    capture_content(conn, config)
    conn.close()
    (config.content_dir / "b.md").write_text(original)
    restored = build(config, workers=1, site=True)
    assert not restored.process.skipped and "b/history/index.html" in restored.site.written


def test_a_build_that_runs_never_reads_the_last_ones_diagnostics(make_wiki, monkeypatch):
    config = make_wiki(FILES, search=False)
    build(config, workers=1, site=True)
    (config.content_dir / "b.md").write_text("---\ntitle: Beta\n---\nBeta, edited.\n")
    read = []
    real = build_stamp.Path.read_bytes
    monkeypatch.setattr(build_stamp.Path, "read_bytes", lambda self: read.append(self.name) or real(self))
    build(config, workers=1, site=True)
    assert "last-build.json" in read and "last-build-diagnostics.json" not in read


def test_a_skipped_build_reads_the_info_diagnostics_only_to_list_them(make_wiki, monkeypatch):
    config = make_wiki(FILES, search=False)
    build(config, workers=1, site=True)
    read = []
    real = build_stamp.Path.read_bytes
    monkeypatch.setattr(build_stamp.Path, "read_bytes", lambda self: read.append(self.name) or real(self))
    assert build(config, workers=1, site=True, info=False).process.skipped
    assert "last-build-diagnostics.json" in read and "last-build-info.json" not in read
    assert build(config, workers=1, site=True).process.skipped and "last-build-info.json" in read


def test_diagnostics_kept_for_another_stamp_are_never_reported(make_wiki):
    config = make_wiki(FILES, search=False)
    first = build(config, workers=1, site=True)
    kept = config.state_dir / "last-build-diagnostics.json"
    record = json.loads(kept.read_text())
    kept.write_text(json.dumps({**record, "stamp": "another build's"}))  # as if written by a build stopped since
    again = build(config, workers=1, site=True)
    assert not again.process.skipped and again.process.diagnostics == first.process.diagnostics
    assert build(config, workers=1, site=True).process.skipped  # and the record is whole again
    info = config.state_dir / "last-build-info.json"
    info.write_text(json.dumps({**json.loads(info.read_text()), "stamp": "another build's"}))  # the info ones alone
    again = build(config, workers=1, site=True)
    assert not again.process.skipped and again.process.diagnostics == first.process.diagnostics


def test_the_kept_diagnostics_load_back_as_they_were(tmp_path):
    from pipeline.config import Config
    from pipeline.diagnostics import Diagnostic

    config = Config(state_dir=tmp_path)
    diagnostics = [Diagnostic("a.md", 3, 7, "warning", "broken-link", "no page matches [[x]]"),
                   Diagnostic("a.md", 5, 1, "info", "unlinked-mention", "Beta could link to [[b]]"),
                   Diagnostic("b.md", 1, 1, "error", "yaml-error", "YAML does not parse"),
                   Diagnostic("c.md", 2, 1, "info", "unlinked-mention", "Alpha could link to [[a]]")]  # fmt: skip
    build_stamp.save_diagnostics(build_stamp.diagnostics_path(config, "build"), "s1", diagnostics)
    build_stamp.save_last(config, "build", "s1", 4, {"pages": 2})
    assert build_stamp.load_last(config, "build", "s1") == build_stamp.LastBuild("s1", 4, diagnostics, {"pages": 2})
    shown = [d for d in diagnostics if d.severity != "info"]
    assert build_stamp.load_last(config, "build", "s1", info=False) == build_stamp.LastBuild("s1", 4, shown, {"pages": 2}, 2)
    assert build_stamp.load_last(config, "build", "s2") is None and build_stamp.load_last(config, "check", "s1") is None
    path = build_stamp.diagnostics_path(config, "build")
    path.write_text(json.dumps({"stamp": "s1", "rows": [["a.md", 3, 7, "warning", "broken-link"]]}))  # a field short
    assert build_stamp.load_last(config, "build", "s1") is None  # another version's rows: the build runs
