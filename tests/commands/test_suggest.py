"""`pipeline suggest`: a diff of the mention suggestions that `git apply` takes, and no write to the content."""

from __future__ import annotations

import hashlib
import shutil
import subprocess
from pathlib import Path

import pytest

from pipeline.cli import main

FILES = {
    "ring.md": "---\ntitle: Ring\n---\nA ring.\n",
    "guides/setup.md": "---\ntitle: Setup\n---\nFirst the Ring, then the ring again.\n\n`Ring` in code.\n",
    "guides/other.md": "---\ntitle: Other\n---\nSee Setup\nand the Ring.",  # no final newline
    "anillo.es.md": "---\ntitle: Anillo\n---\nEl Ring no es español.\n",
}
GIT = shutil.which("git")


def folder_hashes(root: Path) -> dict[str, str]:
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def suggest(config, capsys, *paths: str) -> tuple[int, str, str]:
    code = main(["suggest", *paths, "--content", str(config.content_dir), "--state", str(config.state_dir), "--workers", "1"])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.skipif(GIT is None, reason="needs git")
def test_the_diff_applies_with_git_and_nothing_is_written(make_wiki, capsys, tmp_path):
    config = make_wiki(FILES)
    before = folder_hashes(config.content_dir)
    code, diff, err = suggest(config, capsys)
    assert code == 0 and "3 suggestion(s) in 2 file(s)" in err
    assert folder_hashes(config.content_dir) == before
    copy = tmp_path / "copy"
    shutil.copytree(config.content_dir, copy)
    subprocess.run([GIT, "init", "-q"], cwd=copy, check=True)
    (copy / "out.diff").write_text(diff, encoding="utf-8")
    subprocess.run([GIT, "apply", "--check", "out.diff"], cwd=copy, check=True)
    subprocess.run([GIT, "apply", "out.diff"], cwd=copy, check=True)
    assert (copy / "guides/setup.md").read_text() == (
        "---\ntitle: Setup\n---\nFirst the [[ring|Ring]], then the ring again.\n\n`Ring` in code.\n"
    )
    assert (copy / "guides/other.md").read_text() == "---\ntitle: Other\n---\nSee [[setup|Setup]]\nand the [[ring|Ring]]."
    assert (copy / "anillo.es.md").read_text() == FILES["anillo.es.md"]


def test_paths_narrow_the_diff(make_wiki, capsys, monkeypatch):
    config = make_wiki(FILES)
    code, diff, _ = suggest(config, capsys, "guides/setup.md")
    assert code == 0 and diff.startswith("--- a/guides/setup.md\n") and "guides/other.md" not in diff
    monkeypatch.chdir(config.content_dir.parent)
    code, diff, _ = suggest(config, capsys, "content/guides")
    assert code == 0 and "a/guides/setup.md" in diff and "a/guides/other.md" in diff


def test_nothing_to_suggest_prints_no_diff(make_wiki, capsys):
    config = make_wiki({"ring.md": FILES["ring.md"], "anillo.es.md": FILES["anillo.es.md"]})
    code, diff, err = suggest(config, capsys)
    assert (code, diff) == (0, "") and "0 suggestion(s)" in err


def test_a_path_outside_the_content_is_an_error(make_wiki, capsys, tmp_path):
    config = make_wiki(FILES)
    code, diff, err = suggest(config, capsys, str(tmp_path / "elsewhere.md"))
    assert code == 1 and diff == "" and "not a file or folder of the content folder" in err
