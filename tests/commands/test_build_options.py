"""`pipeline build --out/--force/--no-wait` on the command line: a refused output folder is one line and
exit 1, nothing written; `--force` writes into a folder pipeline did not write; `serve` takes them too."""

from __future__ import annotations

import pytest

from pipeline import cli
from tests.conftest import folder_hashes, write_files

ARTICLE = {"a.md": "---\ntitle: A\n---\n\nBody.\n"}


def argv(tmp_path, out, *options):
    (tmp_path / "wiki.yaml").write_text("search: false\nworkers: 1\n")
    return ["build", "--config", str(tmp_path / "wiki.yaml"), "--content", str(tmp_path / "content"),
            "--state", str(tmp_path / "state"), "--out", str(out), *options]  # fmt: skip


def errors(capsys) -> list[str]:
    return [line for line in capsys.readouterr().err.splitlines() if line.startswith("pipeline: error:")]


def test_out_as_the_content_folder_is_one_line_and_writes_nothing(tmp_path, capsys):
    write_files(tmp_path / "content", ARTICLE)
    before = folder_hashes(tmp_path / "content")
    assert cli.main(argv(tmp_path, tmp_path / "content")) == 1
    assert errors(capsys) == [f"pipeline: error: {tmp_path / 'content'}: the output folder is the content folder "
                              f"{tmp_path / 'content'}; choose another --out"]  # fmt: skip
    assert folder_hashes(tmp_path / "content") == before


def test_out_as_the_root_folder_is_refused(tmp_path, capsys):
    write_files(tmp_path / "content", ARTICLE)
    assert cli.main(argv(tmp_path, "/", "--force")) == 1
    refused = "pipeline: error: /: refusing to write the site into the root folder; give --out a folder of its own"
    assert errors(capsys) == [refused]


def test_force_writes_into_a_folder_pipeline_did_not_write(tmp_path, capsys):
    write_files(tmp_path / "content", ARTICLE)
    write_files(tmp_path / "public", {"CNAME": "wiki.example.org\n"})
    assert cli.main(argv(tmp_path, tmp_path / "public")) == 1
    assert "--force" in errors(capsys)[0]
    assert cli.main(argv(tmp_path, tmp_path / "public", "--force")) == 0
    assert (tmp_path / "public" / "a" / "index.html").is_file() and (tmp_path / "public" / "CNAME").is_file()
    assert cli.main(argv(tmp_path, tmp_path / "public")) == 0  # pipeline's now


def test_build_and_serve_take_force_and_no_wait():
    for command in ("build", "serve"):
        args = cli.build_parser([command]).parse_args([command, "--force", "--no-wait"])
        assert args.force is True and args.wait is False
        args = cli.build_parser([command]).parse_args([command])
        assert args.force is False and args.wait is True


@pytest.mark.parametrize("state, out, message", [
    ("a-file", "site", "a-file: the state folder is not a folder"),
    ("a-file/state", "site", "a-file/state: the state folder cannot be made: {tmp}/a-file is not a folder"),
    ("state", "a-file/site", "a-file/site: the output folder cannot be made: {tmp}/a-file is not a folder"),
])  # fmt: skip
def test_a_state_or_output_folder_that_cannot_be_one_is_one_line(tmp_path, monkeypatch, capsys, state, out, message):
    monkeypatch.chdir(tmp_path)
    write_files(tmp_path / "content", ARTICLE)
    (tmp_path / "a-file").write_text("a file where a folder would go\n", encoding="utf-8")
    argv = ["build", "--content", "content", "--state", state, "--out", out]
    assert cli.main(argv) == 1
    assert errors(capsys) == [f"pipeline: error: {message.format(tmp=tmp_path)}"]
    assert cli.main(["capture", "--content", "content", "--state", state]) == (1 if "state folder" in message else 0)
    assert (tmp_path / "a-file").read_text(encoding="utf-8") == "a file where a folder would go\n"
