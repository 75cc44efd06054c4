"""Commands against a hostile or missing content folder: skipped files are warnings, odd names are captured
escaped, and a command that fails for want of a content folder makes nothing."""

import json
import os
import sqlite3
import subprocess
import sys

import pytest

from conftest import folder_hashes
from pipeline.cli import main

GOOD = "---\ntitle: Alpha\n---\nAlpha body.\n"
SECRET = "SECRET-OUTSIDE-7f3a"


def test_a_build_skips_links_out_fifos_and_devices_and_never_waits_on_one(tmp_path):
    content, outside = tmp_path / "content", tmp_path / "outside"
    content.mkdir()
    outside.mkdir()
    (content / "a.md").write_text(GOOD)
    (outside / "passwd").write_text(f"root:x:0:0:{SECRET}\n")
    (content / "passwd.md").symlink_to(outside / "passwd")
    (content / "environ.md").symlink_to("/proc/self/environ")
    (content / "zero.md").symlink_to("/dev/zero")  # read, it never ends
    os.mkfifo(content / "fifo.md")  # opened for reading, it waits for a writer
    os.mkfifo(content / "redirects.yaml")
    before = folder_hashes(content)
    state, out = tmp_path / "state", tmp_path / "site"
    command = [sys.executable, "-m", "pipeline", "build", "--content", str(content), "--state", str(state),
               "--out", str(out), "--workers", "1"]  # fmt: skip
    # A hang is the failure this guards against: the timeout ends it (TimeoutExpired fails the test).
    done = subprocess.run(command, capture_output=True, text=True, timeout=120, env={**os.environ, "MARK": SECRET})
    assert done.returncode == 0, done.stderr
    warned = {line.split(":")[0] for line in done.stdout.splitlines() if ": warning: skipped-file: " in line}
    skipped = ("passwd.md", "environ.md", "zero.md", "fifo.md", "redirects.yaml")
    assert warned == {f"{content}/{name}" for name in skipped}
    assert "files 1 captured" in done.stdout and (out / "a" / "index.html").is_file()
    assert not (out / "passwd").exists() and not (out / "environ").exists()
    written = [path for path in [*out.rglob("*"), *state.rglob("*")] if path.is_file()]
    assert written and all(SECRET.encode() not in path.read_bytes() for path in written)
    assert folder_hashes(content) == before


def test_a_file_name_that_is_not_utf8_is_built_and_checked_under_its_escaped_name(make_wiki, capsys):
    config = make_wiki({"a.md": GOOD})
    (config.content_dir / os.fsdecode(b"caf\xe9.md")).write_text("---\ntitle: Cafe\n---\nSee [[Alpha]].\n")
    args = ["--content", str(config.content_dir), "--state", str(config.state_dir), "--workers", "1"]
    assert main(["build", *args, "--out", str(config.out_dir), "--format", "json"]) == 0
    out = capsys.readouterr().out
    [warning] = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    assert warning["path"] == f"{config.content_dir}/caf%E9.md" and warning["code"] == "not-utf8-name"
    assert "Cafe" in (config.out_dir / "caf-e9" / "index.html").read_text()
    conn = sqlite3.connect(config.state_db)
    assert sorted(row[0] for row in conn.execute("SELECT path FROM captures")) == ["a.md", "caf%E9.md"]
    conn.close()
    assert main(["check", *args, "--strict"]) == 1  # a warning
    assert "caf%E9.md:1:1: warning: not-utf8-name:" in capsys.readouterr().out
    assert main(["capture", *args[:4]]) == 0
    assert "caf%E9.md: not-utf8-name: " in capsys.readouterr().out


CONTENT_COMMANDS = [["build"], ["check"], ["capture"], ["suggest"], ["serve", "--port", "0", "--no-watch"]]
STORE_COMMANDS = [["status"], ["jobs", "list"], ["jobs", "recover"], ["work"]]
SPOOL_COMMANDS = [["spool", "drain", "--once"], ["spool", "status"], ["corpus", "stats"]]


@pytest.mark.parametrize("words", CONTENT_COMMANDS + STORE_COMMANDS + SPOOL_COMMANDS, ids=" ".join)
def test_a_content_folder_named_that_is_not_there_fails_and_makes_nothing(words, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert main([*words, "--content", "missing"]) == 1
    assert capsys.readouterr().err == "pipeline: error: missing: content folder not found\n"
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("words", CONTENT_COMMANDS + STORE_COMMANDS, ids=" ".join)
def test_a_command_without_its_default_content_folder_or_store_fails_and_makes_nothing(
    words, tmp_path, monkeypatch, capsys
):
    monkeypatch.chdir(tmp_path)
    assert main(words) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and ("content folder not found" in err or "no state database here yet" in err)
    assert os.listdir(tmp_path) == []
