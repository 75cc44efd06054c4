"""Custom passes: the reading-time example (examples/reading_time.py), registered through wiki.yaml or an entry point."""

import re
import shutil
import types

import pytest

from conftest import REPO
from pipeline.build import build
from pipeline.config import load_config
from pipeline.passes.contract import Incremental, Pass
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
    rerun = [job for job in again.process.created_passes if job[1] == "reading_time"]
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


def test_the_example_owns_typed_options_and_changing_one_reruns_only_it(tmp_path, results_of):
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "long.md").write_text(ARTICLE)
    (tmp_path / "content" / "short.md").write_text("---\ntitle: Short\n---\nthree small words\n")
    shutil.copy(EXAMPLE, tmp_path / "reading_time.py")
    wiki_yaml = tmp_path / "wiki.yaml"
    wiki_yaml.write_text("content_dir: content\nstate_dir: state\npasses: [reading_time.py: {words_per_minute: 100}]\n")
    config = load_config(wiki_yaml)
    first = build(config, workers=1)
    assert results_of(config, "reading_time")["long.md"]["minutes"] == 4  # 450 words at 100 a minute
    assert build(config, workers=1).process.created_passes == []
    wiki_yaml.write_text("content_dir: content\nstate_dir: state\npasses: [reading_time.py: {words_per_minute: 450}]\n")
    again = build(load_config(wiki_yaml), workers=1)
    assert sorted(again.process.created_passes) == [("long.md", "reading_time"), ("short.md", "reading_time")]
    assert results_of(config, "reading_time")["long.md"]["minutes"] == 1
    assert len(first.process.created_passes) > len(again.process.created_passes)


@pytest.mark.parametrize("options, message", [
    ("{words_per_minit: 100}", "words_per_minit (did you mean words_per_minute?)"),
    ("{words_per_minute: fast}", "words_per_minute: expected int, got str"),
])  # fmt: skip
def test_a_pass_option_is_checked_like_the_rest_of_wiki_yaml(tmp_path, options, message):
    shutil.copy(EXAMPLE, tmp_path / "reading_time.py")
    (tmp_path / "wiki.yaml").write_text(f"passes: [reading_time.py: {options}]\n")
    with pytest.raises(PassLoadError, match=re.escape(message)):
        load_passes(load_config(tmp_path / "wiki.yaml").passes, entry_points=False)


def test_options_only_for_a_pass_that_owns_some_and_names_that_exist():
    with pytest.raises(PassLoadError, match="mentions takes no options"):
        load_passes([{"mentions": {"mode": "apply"}}], entry_points=False)
    with pytest.raises(PassLoadError, match="cannot be imported"):
        load_passes(["no_such_pass"], entry_points=False)


def _module(**attributes):
    """A module in the simple form of the first contract (NAME, VERSION, CONTRACT, run, select)."""
    module = types.ModuleType("custom_pass")
    module.NAME, module.VERSION, module.CONTRACT = "custom", 1, {"type": "object", "required": ["diagnostics"]}
    module.run = lambda article, inputs: {"diagnostics": []}
    module.select = lambda article, wiki: {}
    for name, value in attributes.items():
        setattr(module, name, value)
    return module


def _declared(**incremental):
    return spec_of(Pass(name="custom", version=1, contract={"type": "object", "required": ["diagnostics"]},
                        run=lambda article, inputs: {"diagnostics": []}, select=lambda article, wiki: {},
                        needs=("metadata",), incremental=Incremental(**incremental)))  # fmt: skip


def test_a_module_in_the_first_form_loads_with_no_incremental_declaration():
    spec = spec_of(_module(NEEDS=("metadata",)))
    assert (spec.name, spec.needs, spec.incremental, spec.plan.reads) == ("custom", ("metadata",), None, None)
    with pytest.raises(PassLoadError, match=r"declare READS, KEEP in PASS = Pass\(.*incremental=Incremental"):
        spec_of(_module(READS=("options",), KEEP=("x",)))
    with pytest.raises(PassLoadError, match="has no PASS"):
        spec_of(types.ModuleType("empty"))


def test_reads_are_checked_against_needs():
    assert _declared(reads=("options", "metadata"), reads_own=("metadata",)).plan.reads_own == ("metadata",)
    assert _declared(reads=("data", len)).plan.reads == ("data", len)  # a function of the wiki, for a narrower part
    assert _declared(reads=(), reads_own=(max,)).plan.reads_own == (max,)  # a function of the article and the wiki
    for bad in ({"reads": ("headings",)}, {"reads": "options"}, {"reads": (), "reads_own": ("data",)},
                {"reads": (), "reads_own": ("sources",)}, {"reads_own": ("metadata",)}):  # fmt: skip
        with pytest.raises(PassLoadError, match="reads"):
            _declared(**bad)


def test_kept_memos_are_named_and_need_reads():
    assert _declared(reads=("options",), keep=("example.index",)).plan.keep == ("example.index",)
    assert _declared(keep_by_capture=("example.own",)).plan.keep_by_capture == ("example.own",)
    for bad, message in (({"keep": ("example.index",)}, "needs reads"), ({"reads": (), "keep": "x"}, "tuple"),
                         ({"keep_by_capture": ("",)}, "memo keys"), ({"keep_by_capture": (1,)}, "memo keys")):  # fmt: skip
        with pytest.raises(PassLoadError, match=message):
            _declared(**bad)


def test_affected_needs_kept_memos_and_touches_needs_affected():
    def affected(old, wiki, touched):
        return None

    kept = {"reads": ("options",), "keep": ("example.index",)}
    assert _declared(**kept, affected=affected, touches=lambda a, w: ()).plan.affected is affected
    for bad, message in (({"affected": affected}, "affected needs keep"), ({**kept, "touches": len}, "touches needs"),
                         ({**kept, "affected": "affected"}, "must be functions")):  # fmt: skip
        with pytest.raises(PassLoadError, match=message):
            _declared(**bad)
