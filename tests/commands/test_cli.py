"""The command line: help, usage errors, one-line errors, and every command leaves content untouched."""

import json

import pytest

from conftest import folder_hashes
from pipeline.cli import build_parser, main

FILES = {
    "a.md": "---\ntitle: Alpha\n---\nAlpha body.\n",
    "b.es.md": "---\ntitle: Beta\nlang: es\n---\nCuerpo.\n",
    "broken.md": "---\ntitle: [unclosed\n---\nbody\n",
    "bare.md": "no frontmatter here\n",
}


def _subcommands(parser, prefix=()):
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        for name, sub in action.choices.items():
            yield prefix + (name,)
            yield from _subcommands(sub, prefix + (name,))


@pytest.mark.parametrize("words", list(_subcommands(build_parser())) + [()])
def test_help_everywhere(words, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main([*words, "--help"])
    assert exit_info.value.code == 0
    assert "usage: pipeline" in capsys.readouterr().out


def test_a_command_loads_only_its_own_module():
    """`pipeline build` must not pay for importing `serve` (http.server) or the spool admin commands."""
    import subprocess
    import sys

    probe = "import sys; from pipeline.cli import build_parser; build_parser(['build']); print(sorted(sys.modules))"
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert "'pipeline.commands.build'" in loaded
    assert "'pipeline.commands.serve'" not in loaded and "'http.server'" not in loaded
    assert "'jinja2'" not in loaded  # templates load only when a site is rendered
    assert "'pipeline.build'" not in loaded  # loaded once the look for the last site's files is forked (`look_ahead`)


def test_usage_errors_exit_2(capsys):
    for argv in (["nope"], ["jobs"], ["capture", "--bogus"], ["jobs", "show", "x"]):
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2


def test_expected_errors_are_one_line(tmp_path, capsys):
    assert main(["status", "--state", str(tmp_path / "none")]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("pipeline: error:") and "Traceback" not in err
    assert main(["capture", "--content", str(tmp_path / "missing"), "--state", str(tmp_path / "s")]) == 1
    assert "content folder not found" in capsys.readouterr().err


@pytest.fixture
def wiki(make_wiki, tmp_path):
    config = make_wiki(FILES)
    return ["--content", str(config.content_dir), "--state", str(config.state_dir)], config


def test_capture_work_status_jobs(wiki, capsys):
    args, config = wiki
    before = folder_hashes(config.content_dir)
    assert main(["capture", *args]) == 0
    out = capsys.readouterr().out
    assert "captured 4 files: 4 new" in out and "broken.md:2:" in out
    assert main(["status", *args, "--format", "json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["tables"]["captures"] == 4 and status["jobs"]["pending"] > 0
    assert main(["work", *args, "--workers", "1"]) == 0
    assert main(["status", *args, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["jobs"]["pending"] == 0
    assert main(["jobs", "list", *args, "--format", "json"]) == 0
    listing = json.loads(capsys.readouterr().out)
    assert listing["done"] and not listing["failed-terminal"]
    job_id = listing["done"][0]["id"]
    assert main(["jobs", "show", str(job_id), *args]) == 0
    shown = capsys.readouterr().out
    assert "attempt 1: done" in shown and "pass metadata v" in shown and "): done" in shown
    assert main(["jobs", "retry", "--failed", *args]) == 0
    assert "0 job(s) back to pending" in capsys.readouterr().out
    assert main(["jobs", "recover", "--stale-after", "0", *args]) == 0
    assert "recovered 0" in capsys.readouterr().out
    assert main(["jobs", "show", "99999", *args]) == 1
    capsys.readouterr()
    assert main(["jobs", "retry", str(job_id), "99999", *args]) == 1  # one named job does not exist
    out, err = capsys.readouterr()
    assert out == "0 job(s) back to pending\n"
    assert err.splitlines() == [f"pipeline: job {job_id} is done, not failed: left as it is",
                                "pipeline: error: no job 99999"]  # fmt: skip
    assert main(["jobs", "retry", str(job_id), *args]) == 0  # a done job named: said, not an error
    assert folder_hashes(config.content_dir) == before


def test_check_formats_and_strict(wiki, capsys, monkeypatch):
    args, config = wiki
    before = folder_hashes(config.content_dir)
    monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
    assert main(["check", *args]) == 0
    text = capsys.readouterr().out.splitlines()
    assert any(line.endswith("broken.md:2:1: error: yaml-error: YAML does not parse: did not find expected ',' or ']'")
               for line in text)  # fmt: skip
    assert any(":1:1: warning: no-frontmatter:" in line and "bare.md" in line for line in text)
    assert main(["check", *args, "--strict"]) == 1
    capsys.readouterr()
    assert main(["check", *args, "--format", "json"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {tuple(sorted(r)) for r in rows} == {("code", "col", "line", "message", "path", "severity")}
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert main(["check", *args]) == 0
    github = capsys.readouterr().out.splitlines()
    assert any(line.startswith("::error file=") and "broken.md,line=2,col=1::yaml-error" in line for line in github)
    assert folder_hashes(config.content_dir) == before


def test_clean_wiki_passes_strict(make_wiki, capsys):
    config = make_wiki({"a.md": "---\ntitle: Alpha\n---\nAlpha body.\n"})
    assert main(["build", "--content", str(config.content_dir), "--state", str(config.state_dir), "--strict",
                 "--out", str(config.out_dir)]) == 0  # fmt: skip


def test_the_console_command_exits_with_mains_status_and_all_of_its_output(wiki):
    """`python -m pipeline` (and the `pipeline` script) end with os._exit: nothing printed may be lost."""
    import os
    import subprocess
    import sys

    args, config = wiki
    command = [sys.executable, "-m", "pipeline", "build", *args, "--out", str(config.out_dir)]
    env = {name: value for name, value in os.environ.items() if name != "PYTHONUNBUFFERED"}  # output in buffers
    ok = subprocess.run(command, capture_output=True, text=True, timeout=120, env=env)
    # Its connections closed: the store checkpointed, its write-ahead log gone, as on a normal exit.
    assert sorted(p.name for p in config.state_dir.glob("state.db*")) == ["state.db"]
    strict = subprocess.run([*command, "--strict"], capture_output=True, text=True, timeout=120, env=env)
    assert (ok.returncode, strict.returncode) == (0, 1)
    assert "broken.md:2:1: error: yaml-error" in ok.stdout
    assert ok.stdout.splitlines()[-1].startswith("pages ")  # the last line, printed after the build
    assert strict.stdout.splitlines()[-1].startswith("pages ")


def test_the_console_command_runs_without_the_cyclic_collector_and_long_lived_commands_turn_it_on(
    tmp_path, monkeypatch
):
    import gc
    import weakref
    from contextlib import contextmanager
    from types import SimpleNamespace

    from pipeline import cli
    from pipeline.commands import serve, spool
    from pipeline.runtime import lifespan

    seen = []

    @contextmanager
    def drainer(options):
        yield SimpleNamespace(run=lambda once, stop: seen.append(gc.isenabled()) or SimpleNamespace(summary=str))

    monkeypatch.setattr(cli, "main", lambda: seen.append(gc.isenabled()) or 0)
    monkeypatch.setattr(cli.os, "_exit", lambda code: seen.append(code))
    monkeypatch.setattr(serve, "serve", lambda *args, **options: seen.append(gc.isenabled()))
    monkeypatch.setattr(spool, "Drainer", drainer)
    try:
        cli.entry()
        assert seen == [False, 0]  # main ran with the collector off, then the process exited
        left = weakref.ref(_left_behind())
        assert left() is not None  # what a build was done with is held for the exit to drop
        assert main(["serve", "--content", str(tmp_path), "--state", str(tmp_path / "state")]) == 0
        assert left() is None  # a long-lived command frees it, as what is left from then on
        later = weakref.ref(_left_behind())
        assert later() is None
        gc.disable()
        assert main(["spool", "drain", "--once", "--state", str(tmp_path / "state")]) == 0
        assert seen[2:] == [True, True]  # each long-lived command turned it back on
    finally:
        lifespan.long_lived()


def _left_behind():
    """A value a step of a build is done with, left (`lifespan.keep_until_exit`); returned as the step would drop it."""
    from pipeline.runtime import lifespan

    class Model:
        pass

    model = Model()
    lifespan.keep_until_exit(model)
    return model


def _parsers(parser, words=()):
    """(words, parser, one-line help in the parent's list) of every command and subcommand."""
    for action in parser._subparsers._group_actions if parser._subparsers else ():
        helps = {choice.dest: choice.help for choice in action._choices_actions}
        for name, sub in action.choices.items():
            yield words + (name,), sub, helps.get(name)
            yield from _parsers(sub, words + (name,))


def test_every_command_says_what_it_does_and_every_argument_has_help():
    import argparse

    found = list(_parsers(build_parser()))
    assert len(found) > 20 and {words[0] for words, _, _ in found} >= {"build", "jobs", "spool", "corpus"}
    for words, parser, line in found:
        assert line and parser.description, f"pipeline {' '.join(words)}: no one-line help or description"
        for action in parser._actions:
            if not isinstance(action, (argparse._HelpAction, argparse._SubParsersAction)):
                assert action.help, f"pipeline {' '.join(words)} {action.option_strings or action.dest}: no help"


def test_jobs_show_and_retry_name_their_ids_alike():
    by_words = {words: parser for words, parser, _ in _parsers(build_parser())}
    for words in (("jobs", "show"), ("jobs", "retry")):
        (positional,) = [a for a in by_words[words]._actions if not a.option_strings and a.dest != "help"]
        assert positional.metavar == "ID" and positional.type is int


def test_metavars_are_those_of_the_readme_commands_table():
    import re

    from conftest import REPO

    readme = (REPO / "README.md").read_text(encoding="utf-8")
    table = readme.split("\n## Commands\n", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| `pipeline ([^`]+)`", table, re.MULTILINE)
    options = {}
    for words, parser, _ in _parsers(build_parser()):
        for action in parser._actions:
            for option in action.option_strings:
                options[(words[0], option)] = action.metavar or (None if action.nargs == 0 else action.dest.upper())
    checked = 0
    for row in rows:
        command = row.split()[0]
        for option, metavar in re.findall(r"(--[a-z-]+) ([A-Z]+)\b", row):
            assert options.get((command, option)) == metavar, f"README `pipeline {row}`: {option} {metavar}"
            checked += 1
    assert checked >= 8


def test_a_state_database_damaged_past_its_opening_is_one_line_not_a_traceback(wiki, monkeypatch, capsys):
    import sqlite3

    from pipeline import build

    args, config = wiki
    assert main(["build", *args, "--out", str(config.out_dir)]) == 0
    capsys.readouterr()

    def damaged(*_args, **_options):
        raise sqlite3.OperationalError("Could not decode to UTF-8 column 'sha256'")

    monkeypatch.setattr(build, "load_last", damaged)
    assert main(["build", *args, "--out", str(config.out_dir)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("pipeline: error: the state database failed: Could not decode") and len(err) == 1
    monkeypatch.setattr(build, "load_last", lambda *_args: 1 / 0)  # any other error is not the store's: raised
    with pytest.raises(ZeroDivisionError):
        main(["build", *args, "--out", str(config.out_dir)])


@pytest.mark.parametrize("value", ["-3", "two"])
def test_workers_on_the_command_line_are_0_or_more(value, capsys):
    for command in (["build"], ["check"], ["work"], ["suggest"]):
        with pytest.raises(SystemExit) as exit_info:
            main([*command, "--workers", value])
        assert exit_info.value.code == 2
        assert "argument --workers: expected 0 (one per CPU) or more worker processes" in capsys.readouterr().err
