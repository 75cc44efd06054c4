"""A small run (N=50) of the benchmark code, so it cannot rot. Timing goals live in benchmarks/, not here."""

import os
import re
import subprocess
import sys

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "benchmarks"))

import baseline  # noqa: E402
import generate  # noqa: E402
import phases  # noqa: E402
import preview  # noqa: E402
import queue_throughput  # noqa: E402
import run  # noqa: E402

pytestmark = pytest.mark.slow  # a whole wiki built: outside the fast tier


def test_generator_makes_the_wiki_it_describes(tmp_path):
    shape = generate.Shape(articles=50, spanish=0.3, links=8, broken=0.5, words=300)
    files = generate.generate(tmp_path / "wiki", shape)
    english = sorted((tmp_path / "wiki").rglob("topic-*[0-9].md"))
    spanish = sorted((tmp_path / "wiki").rglob("*.es.md"))
    assert len(english) == 50 and files == 50 + len(spanish) and 5 <= len(spanish) <= 25
    text = english[0].read_text()
    assert text.count("[[") >= 8 and "| key | value |" in text and "```python" in text and "[^1]" in text
    assert "missing-page-" in "".join(p.read_text() for p in english)  # the broken-link rate shows
    assert generate.article_text(3, shape) == generate.article_text(3, shape)  # deterministic


def test_hugo_and_mkdocs_get_every_article_english_and_spanish(tmp_path):
    wiki = tmp_path / "wiki"
    generate.generate(wiki, generate.Shape(articles=20, spanish=0.5, words=100))
    sources = sorted(str(p.relative_to(wiki)) for p in wiki.rglob("*.md"))
    assert any(name.endswith(".es.md") for name in sources)
    generate.hugo_tree(wiki, tmp_path / "hugo")
    generate.mkdocs_tree(wiki, tmp_path / "mkdocs")
    for content in (tmp_path / "hugo" / "content", tmp_path / "mkdocs" / "docs"):
        copied = sorted(str(p.relative_to(content)) for p in content.rglob("*.md") if p.name != "index.md")
        assert copied == sources
    # Hugo skips `name.es.md` unless `es` is a language it is told of.
    assert "[languages.es]" in (tmp_path / "hugo" / "hugo.toml").read_text()


def test_runner_times_every_scenario(tmp_path, capsys):
    (tool,) = run.run_size(50, tmp_path, hugo=False, mkdocs=False)
    results = tool.results
    assert list(results) == list(run.SCENARIOS)
    assert results["cold"].passes_run > 0 and results["cold"].pages > 50
    assert results["no-change"].passes_run == 0 and results["no-change"].pages == 0
    assert 0 < results["edit-body"].passes_run < results["cold"].passes_run
    assert results["edit-link"].passes_run == results["edit-body"].passes_run  # the edited article's own
    assert results["edit-link"].pages > results["edit-body"].pages  # and the linked page's "What links here"
    assert results["edit-title"].passes_run > results["edit-body"].passes_run  # links to it, prose naming it
    assert results["add-article"].pages >= 1
    # The emptied output folder put back from the state folder: nothing changed since, nothing to write.
    assert results["ci"].passes_run == 0 and results["ci"].pages == 0 and (tool.out / "index.html").is_file()
    run.report([tool])
    assert "no-change" in capsys.readouterr().out


def test_a_repeated_run_makes_each_rebuild_again_each_tool_first_in_turn(tmp_path, monkeypatch, capsys):
    order = []
    timed = run.timed

    def recording(command, cwd, env=None):
        timing, output = timed(command, cwd, env)
        order.append(("baseline" if "-baseline" in " ".join(command) else "pipeline", timing.passes_run))
        return timing, output

    monkeypatch.setattr(run, "timed", recording)
    tools = run.run_size(20, tmp_path, hugo=False, mkdocs=False, baseline=REPO, repeat=2)
    order = order[2:]  # the warm-ups
    assert [name for name, _ in order[:2]] == ["pipeline", "baseline"]  # cold: once each
    assert [name for name, _ in order[2:6]] == ["pipeline", "baseline", "baseline", "pipeline"]  # no-change twice
    pipeline = tools[0]
    assert [len(pipeline.runs[scenario]) for scenario in run.SCENARIOS] == [1, 2, 2, 2, 2, 2, 2]
    for scenario in ("edit-body", "edit-link", "edit-title", "add-article"):  # each repeat another change
        assert all(timing.passes_run > 0 for timing in pipeline.runs[scenario]), scenario
    walls = sorted(timing.wall for timing in pipeline.runs["edit-body"])
    assert pipeline.results["edit-body"].wall == walls[0]  # the median: of two, the faster
    capsys.readouterr()
    run.report(tools)
    lines = capsys.readouterr().out.splitlines()
    cold, edit = (next(line for line in lines if line.startswith(f"pipeline   {s}")) for s in ("cold", "edit-body"))
    assert re.search(r" \d+\.\d\d-\d+\.\d\d ", edit) and not re.search(r"\d-\d", cold)  # a rebuild's range
    ratio = next(line for line in lines if line.startswith("pipeline / baseline edit-body:"))
    assert re.search(r"\(each repeat: [\d.e+-]+, [\d.e+-]+; median [\d.e+-]+x\)$", ratio)  # pairs, run back to back
    assert "each repeat" not in next(line for line in lines if line.startswith("pipeline / baseline cold:"))


def test_a_cold_build_made_again_starts_from_nothing_each_time(tmp_path, capsys):
    aside: list = []
    (tool,) = run.run_size(20, tmp_path, hugo=False, mkdocs=False, aside=aside, cold=2)
    first, second = tool.runs["cold"]
    assert first.passes_run == second.passes_run > 0 and first.pages == second.pages > 0  # all again, not reused
    assert first.passes_reused == second.passes_reused == 0
    # The first build's output and state folders, set aside for the caller to delete (and the `ci` scenario's).
    assert {path.name.split("-old-")[0] for path in aside} == {".site", ".state"}
    assert len([path for path in aside if path.name.startswith(".state")]) == 1
    run.report([tool])
    cold = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("pipeline   cold"))
    assert re.search(r" \d+\.\d\d-\d+\.\d\d ", cold)  # the two runs' range


def test_an_earlier_runs_tree_is_set_aside_not_deleted_before_timing(tmp_path):
    (tmp_path / "n50" / "site").mkdir(parents=True)
    (tmp_path / "n50" / "site" / "old.html").write_text("from the last run")
    aside = run.set_aside(tmp_path / "n50")
    assert not (tmp_path / "n50").exists() and (aside / "site" / "old.html").read_text() == "from the last run"
    assert aside.parent == tmp_path and run.set_aside(tmp_path / "n50") is None  # nothing left to set aside


def test_baseline_and_queue_throughput(tmp_path):
    generate.generate(tmp_path / "wiki", generate.Shape(articles=20, words=200))
    files, seconds = baseline.render_all(tmp_path / "wiki")
    assert files >= 20 and seconds > 0
    (tmp_path / "queue").mkdir()
    done, results, seconds = queue_throughput.measure(200, 64, tmp_path / "queue")
    assert done == results == 200 and seconds > 0
    (tmp_path / "queue-3").mkdir()
    done, results, seconds = queue_throughput.measure(100, 64, tmp_path / "queue-3", passes=3)
    assert (done, results) == (100, 300) and seconds > 0  # a job per capture, a result per pass


def test_phases_times_each_stage_of_a_build_and_the_cores_it_kept_busy(tmp_path, capsys):
    generate.generate(tmp_path / "wiki", generate.Shape(articles=20, words=200))
    timed, wall, cpu = phases.measure(tmp_path / "wiki", tmp_path / "state", tmp_path / "site", workers=2)
    names = list(timed.times)
    assert names[0] == "capture" and "render" in names and cpu > 0
    assert [name for name in names if name.startswith(("plan ", "work "))][:2] == [
        "plan metadata+citations+headings+links", "work metadata+citations+headings+links"]  # fmt: skip
    assert sum(spent_wall for spent_wall, _ in timed.times.values()) <= wall
    assert (tmp_path / "site" / "index.html").exists()
    phases.report(timed, wall, cpu)
    assert "whole build" in capsys.readouterr().out


def test_runner_times_a_baseline_checkout_side_by_side(tmp_path, capsys):
    tools = run.run_size(20, tmp_path, hugo=False, mkdocs=False, baseline=REPO)
    assert [tool.name for tool in tools] == ["pipeline", "baseline"]
    assert tools[1].results["cold"].passes_run == tools[0].results["cold"].passes_run  # the same code, the same work
    assert (tmp_path / "n20" / "site-baseline" / "index.html").is_file()
    run.report(tools)
    assert "pipeline / baseline cold:" in capsys.readouterr().out


def test_preview_times_the_reload_and_the_search_index(tmp_path):
    first, last = preview.time_edits(tmp_path, 50, 2)
    assert 0 < first.reload <= first.built and last.reload <= last.built <= last.indexed
    assert (tmp_path / "site" / "pagefind" / "pagefind-ui.js").is_file()
    page = tmp_path / "site" / generate.path_of(7).removesuffix(".md") / "index.html"  # the edited article
    assert "Edit number 0." in page.read_text(encoding="utf-8")


@pytest.mark.parametrize("flags, cached", [([], True), (["--no-build-cache"], False)])
def test_the_preview_benchmark_reads_its_options(tmp_path, monkeypatch, capsys, flags, cached):
    asked = []
    done = preview.Timing(0.5, 1.0)
    monkeypatch.setattr(preview, "time_edits", lambda *args: asked.append(args) or [done])
    assert preview.main(["--articles", "7", "--edits", "2", "--workdir", str(tmp_path), *flags]) == 0
    assert asked == [(tmp_path, 7, 2, cached, False)] and "reload after 0.50 s" in capsys.readouterr().out


def test_a_run_names_the_code_it_times_and_says_when_it_changed(tmp_path, capsys, monkeypatch):
    codes = iter(["/pkg aaaa", "/pkg bbbb"])  # the second look finds other code: edited during the run
    monkeypatch.setattr(run, "code_of", lambda env, cwd: next(codes))
    run.run_size(50, tmp_path, hugo=False, mkdocs=False)
    out = capsys.readouterr().out
    assert "pipeline: /pkg aaaa" in out and "WARNING: pipeline's code changed during the run" in out


def test_the_code_named_is_the_one_the_tool_imports_in_its_own_folder(tmp_path):
    for name in ("here", "there"):
        (tmp_path / name / "pipeline").mkdir(parents=True)
        (tmp_path / name / "pipeline" / "__init__.py").write_text(f"# {name}\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path / "there")}
    assert run.code_of(env, tmp_path).startswith(f"{tmp_path / 'there' / 'pipeline'} ")
    # `python -c` imports from its current folder first: run from a checkout, it would name that checkout.
    assert run.code_of(env, tmp_path / "here").startswith(f"{tmp_path / 'here' / 'pipeline'} ")


def test_a_baseline_checkout_imports_its_own_theme(tmp_path):
    """An editable install of this repository answers for `pipeline.theme` when another checkout is only on
    PYTHONPATH; the overlay `run.importable` makes the checkout's own templates the theme."""
    checkout = tmp_path / "older"
    (checkout / "pipeline").mkdir(parents=True)
    (checkout / "pipeline" / "__init__.py").write_text("")
    (checkout / "templates").mkdir()
    (checkout / "templates" / "__init__.py").write_text("OLDER = True\n")
    where = run.importable(checkout, tmp_path / "overlay")
    code = "import pipeline.theme as theme; print(getattr(theme, 'OLDER', False))"
    env = {**os.environ, "PYTHONPATH": str(where)}
    assert subprocess.run([sys.executable, "-c", code], env=env, cwd=tmp_path, capture_output=True, text=True,
                          check=True).stdout == "True\n"  # fmt: skip
    assert run.code_of(env, tmp_path).split()[0] == str(tmp_path / "overlay" / "pipeline")
