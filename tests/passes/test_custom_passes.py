"""Custom passes: the reading-time example (examples/reading_time.py), registered through wiki.yaml or an entry point."""

import shutil
import types

import pytest

from conftest import REPO
from pipeline.build import build
from pipeline.config import load_config
from pipeline.passes.registry import PassLoadError, load_passes, spec_of

EXAMPLE = REPO / "examples" / "reading_time.py"
ARTICLE = "---\ntitle: Long\n---\n" + "word " * 450


def test_example_registered_in_wiki_yaml_runs_as_a_versioned_job(tmp_path, results_of):
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "long.md").write_text(ARTICLE)
    (tmp_path / "content" / "short.md").write_text("---\ntitle: Short\n---\nthree small words\n")
    shutil.copy(EXAMPLE, tmp_path / "reading_time.py")
    (tmp_path / "wiki.yaml").write_text("content_dir: content\nstate_dir: state\npasses: [reading_time.py]\n")
    config = load_config(tmp_path / "wiki.yaml")
    report = build(config, workers=1)
    assert report.process.work.failed == 0
    results = results_of(config, "reading_time")
    assert results["long.md"]["minutes"] == 2 and results["long.md"]["words"] == 450
    assert results["short.md"] == {"words": 3, "minutes": 1, "diagnostics": []}
    (tmp_path / "content" / "short.md").write_text("---\ntitle: Short\n---\nfour small words now\n")
    again = build(config, workers=1)
    rerun = [job for job in again.process.created_jobs if job[1] == "reading_time"]
    assert rerun == [("short.md", "reading_time")]


def test_example_registered_as_an_entry_point(tmp_path, monkeypatch):
    package = tmp_path / "site-packages"
    (package / "reading_time_pass-1.0.dist-info").mkdir(parents=True)
    (package / "reading_time_pass-1.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: reading-time-pass\nVersion: 1.0\n"
    )
    (package / "reading_time_pass-1.0.dist-info" / "entry_points.txt").write_text(
        "[pipeline.passes]\nreading_time = reading_time_pass\n"
    )
    shutil.copy(EXAMPLE, package / "reading_time_pass.py")
    monkeypatch.syspath_prepend(str(package))
    names = [spec.name for spec in load_passes()]
    assert "reading_time" in names and names[0] == "metadata"


def _module(**attributes):
    module = types.ModuleType("custom_pass")
    module.NAME, module.VERSION, module.CONTRACT = "custom", 1, {"type": "object", "required": ["diagnostics"]}
    module.run = lambda article, inputs: {"diagnostics": []}
    module.select = lambda article, wiki: {}
    for name, value in attributes.items():
        setattr(module, name, value)
    return module


def test_reads_default_to_everything_and_are_checked_against_needs():
    assert spec_of(_module()).reads is None  # undeclared: any change to the content replans it
    spec = spec_of(_module(NEEDS=("metadata",), READS=("options", "metadata"), READS_OWN=("metadata",)))
    assert (spec.reads, spec.reads_own) == (("options", "metadata"), ("metadata",))
    assert spec_of(_module(READS=("data", len))).reads == ("data", len)  # a function of the wiki, for a narrower part
    assert spec_of(_module(READS_OWN=(max,))).reads_own == (max,)  # a function of the article and the wiki
    for bad in ({"READS": ("headings",)}, {"READS": "options"}, {"NEEDS": ("metadata",), "READS_OWN": ("data",)},
                {"READS_OWN": ("sources",)}):  # fmt: skip
        with pytest.raises(PassLoadError, match="READS"):
            spec_of(_module(**bad))


def test_kept_memos_are_named_and_need_reads():
    assert spec_of(_module(READS=("options",), KEEP=("example.index",))).keeps == ("example.index",)
    assert spec_of(_module()).keeps == ()
    for bad, message in (({"KEEP": ("example.index",)}, "KEEP needs READS"), ({"READS": (), "KEEP": "x"}, "tuple")):
        with pytest.raises(PassLoadError, match=message):
            spec_of(_module(**bad))


def test_memos_kept_by_capture_are_named():
    assert spec_of(_module(KEEP_BY_CAPTURE=("example.own",))).keeps_by_capture == ("example.own",)
    assert spec_of(_module()).keeps_by_capture == ()
    for bad in ("example.own", ("",), (1,)):
        with pytest.raises(PassLoadError, match="KEEP_BY_CAPTURE must be a tuple of memo keys"):
            spec_of(_module(KEEP_BY_CAPTURE=bad))


def test_affected_needs_kept_memos_and_touches_needs_affected():
    def affected(old, wiki, touched):
        return None

    kept = {"READS": ("options",), "KEEP": ("example.index",)}
    assert spec_of(_module(**kept, AFFECTED=affected, TOUCHES=lambda a, w: ())).affected is affected
    for bad, message in (({"AFFECTED": affected}, "AFFECTED needs KEEP"), ({**kept, "TOUCHES": len}, "TOUCHES needs"),
                         ({**kept, "AFFECTED": "affected"}, "must be functions")):  # fmt: skip
        with pytest.raises(PassLoadError, match=message):
            spec_of(_module(**bad))
