"""`pipeline build` on the command line: the build's helper is forked at the command's start with its scan of the
content folder under way (`scan_ahead`), and the capture takes that scan: the build starts no other."""

from __future__ import annotations

from pipeline import build as build_module
from pipeline import cli
from pipeline.jobs import helper_loading
from tests.conftest import folder_hashes, write_files

ARTICLES = {"a.md": "---\ntitle: A\n---\n\nBody of [[B]].\n", "b.md": "---\ntitle: B\n---\n\nBody.\n"}


def argv(tmp_path, workers: int, out: str = "site") -> list[str]:
    (tmp_path / "wiki.yaml").write_text(f"search: false\nworkers: {workers}\n")
    return ["build", "--config", str(tmp_path / "wiki.yaml"), "--content", str(tmp_path / "content"),
            "--state", str(tmp_path / "state"), "--out", str(tmp_path / out)]  # fmt: skip


def no_second_scan(*args):
    raise AssertionError("the build started a scan of its own")


def test_a_build_in_one_process_scans_once_with_the_store_it_found(tmp_path, monkeypatch, capsys):
    write_files(tmp_path / "content", ARTICLES)
    scans = []
    scan = helper_loading.scan_then_load
    monkeypatch.setattr(helper_loading, "scan_then_load", lambda config, db: scans.append(db) or scan(config, db))
    monkeypatch.setattr(build_module, "scan_then_load", no_second_scan)
    assert cli.main(argv(tmp_path, 1)) == 0
    assert scans == [None]  # no store yet: none is made before the build's checks
    (tmp_path / "content" / "b.md").write_text(ARTICLES["b.md"] + "More.\n", encoding="utf-8")
    assert cli.main(argv(tmp_path, 1)) == 0
    assert scans == [None, str(tmp_path / "state" / "state.db")]
    assert "files 2 captured (1 new, 0 removed)" in capsys.readouterr().out


def test_a_forked_helper_s_scan_from_the_command_s_start_is_the_capture_s(tmp_path, monkeypatch, capsys):
    write_files(tmp_path / "content", ARTICLES)
    before = folder_hashes(tmp_path / "content")
    monkeypatch.setattr(build_module, "scan_then_load", no_second_scan)  # in the helper, forked after this
    assert cli.main(argv(tmp_path, 2)) == 0
    assert folder_hashes(tmp_path / "content") == before  # the build wrote nothing there
    (tmp_path / "content" / "a.md").write_text(ARTICLES["a.md"] + "More.\n", encoding="utf-8")
    edited = folder_hashes(tmp_path / "content")
    assert cli.main(argv(tmp_path, 2)) == 0
    out = capsys.readouterr().out
    assert "files 2 captured (2 new, 0 removed)" in out and "files 2 captured (1 new, 0 removed)" in out
    assert "More." in (tmp_path / "site" / "a" / "index.html").read_text(encoding="utf-8")
    assert folder_hashes(tmp_path / "content") == edited  # nor did the next


def test_a_build_refused_before_its_lock_leaves_no_state_folder(tmp_path, capsys):
    write_files(tmp_path / "content", ARTICLES)
    assert cli.main(argv(tmp_path, 2, out="content")) == 1  # the output folder may not be the content folder
    assert "pipeline: error:" in capsys.readouterr().err
    assert not (tmp_path / "state").exists()  # the scan made ahead opened no store
