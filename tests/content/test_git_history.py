"""The content folder's git history: one `git log` over the folder, renames followed, kept by HEAD and extended."""

from __future__ import annotations

import os
import subprocess

import pytest

from pipeline.content import git_history
from pipeline.content.git_history import Diffs, read_history


def git(repo, *args: str, author: str = "Ann", date: str = "2024-01-01T10:00:00+02:00") -> str:
    """Run git in `repo` as `author` at `date` (both the author's and the committer's), without the user's config."""
    env = {**os.environ, "GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": f"{author.lower()}@example.org",
           "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_NAME": author, "GIT_COMMITTER_EMAIL": f"{author.lower()}@example.org",
           "GIT_COMMITTER_DATE": date, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1"}  # fmt: skip
    return subprocess.run(["git", "-C", str(repo), *args], check=True, env=env, capture_output=True, text=True).stdout


def commit(repo, files: dict, message: str, **who) -> str:
    """Write (or, for None, delete) `files` below `repo` and commit them all; return the commit's sha."""
    for rel, text in files.items():
        target = repo / rel
        if text is None:
            target.unlink()
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text) if isinstance(text, bytes) else target.write_text(text)
    git(repo, "add", "-A", **who)
    git(repo, "commit", "-q", "-m", message, **who)
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture
def repo(tmp_path):
    """A repository whose `wiki/` folder is the content folder: an article created, edited by another author,
    renamed (to a name git would quote), and a second article; files that are not articles, and one outside."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    commit(root, {"wiki/a.md": "one\ntwo\n", "wiki/pic.png": b"\x89PNG\0", "outside.md": "x\n"}, "Start")
    commit(root, {"wiki/a.md": "one\n2\nthree\n"}, "Grow <a>", author="Bob", date="2024-01-02T10:00:00+00:00")
    git(root, "mv", "wiki/a.md", "wiki/guía b.md")
    commit(root, {}, "Rename", date="2024-01-03T10:00:00+00:00")
    commit(root, {"wiki/c.md": "c\n", "outside.md": "y\n"}, "Add c", date="2024-01-04T10:00:00+00:00")
    return root


def test_each_article_s_commits_newest_first_follow_its_renames(repo):
    log = read_history(repo / "wiki")
    assert (log.top, log.prefix, log.shallow) == (str(repo), "wiki/", False)
    assert sorted(log.lineages) == ["c.md", "guía b.md"]  # the picture and the file outside the folder are not articles
    renamed = log.lineages["guía b.md"]
    assert [(c.status, c.path, c.old_path) for c in renamed] == [
        ("R", "guía b.md", "a.md"), ("M", "a.md", None), ("A", "a.md", None)
    ]  # fmt: skip
    shown = [log.commits[c.commit] for c in renamed]
    assert [(c.author, c.message, c.time) for c in shown] == [
        ("Ann", "Rename", "2024-01-03T10:00:00+00:00"), ("Bob", "Grow <a>", "2024-01-02T10:00:00+00:00"),
        ("Ann", "Start", "2024-01-01T08:00:00+00:00"),  # in UTC
    ]  # fmt: skip
    assert renamed[2].before is None and renamed[1].before == renamed[2].after
    assert log.times() == {"guía b.md": 1704276000, "c.md": 1704362400}


def test_the_history_is_kept_by_head_and_only_new_commits_are_logged(repo, tmp_path, monkeypatch):
    logged = []
    original = git_history._log
    monkeypatch.setattr(git_history, "_log", lambda folder, revisions: logged.append(revisions) or original(folder, revisions))
    state = tmp_path / "state"
    state.mkdir()
    first = read_history(repo / "wiki", state)
    assert read_history(repo / "wiki", state) == first and len(logged) == 1  # HEAD did not move: no log at all
    git(repo, "mv", "wiki/c.md", "wiki/d.md")
    head = commit(repo, {}, "Rename c", author="Cy", date="2024-01-05T10:00:00+00:00")
    extended = read_history(repo / "wiki", state)
    assert logged[-1] == f"{first.head}..{head}"
    whole = read_history(repo / "wiki")
    assert (extended.commits, extended.lineages) == (whole.commits, whole.lineages)
    assert [c.status for c in extended.lineages["d.md"]] == ["R", "A"]  # the kept lineage of c.md is d.md's now


def test_a_rewritten_history_is_logged_whole_again(repo, tmp_path):
    state = tmp_path / "state"
    state.mkdir()
    read_history(repo / "wiki", state)
    git(repo, "commit", "-q", "--amend", "-m", "Add c, reworded", date="2024-01-06T10:00:00+00:00")
    again = read_history(repo / "wiki", state)
    assert [again.commits[c.commit].message for c in again.lineages["c.md"]] == ["Add c, reworded"]
    assert len(again.commits) == 4


def test_outside_a_repository_or_before_its_first_commit_there_is_no_git_history(tmp_path):
    assert read_history(tmp_path) is None
    git(tmp_path, "init", "-q")
    assert read_history(tmp_path) is None


def test_a_shallow_clone_says_so_and_has_the_commits_it_holds(repo, tmp_path):
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(clone)], check=True, capture_output=True)
    log = read_history(clone / "wiki")
    assert log.shallow and [c.status for c in log.lineages["guía b.md"]] == ["A"]


def test_a_diff_shows_the_lines_a_revision_changed(repo):
    log = read_history(repo / "wiki")
    diffs = Diffs(log.top)
    renamed, edited, created = log.lineages["guía b.md"]
    try:
        assert diffs.lines(edited) == [
            ("hunk", "@@ -1,2 +1,3 @@"), ("same", " one"), ("del", "-two"), ("add", "+2"), ("add", "+three")
        ]  # fmt: skip
        assert diffs.lines(created) == [("hunk", "@@ -0,0 +1,2 @@"), ("add", "+one"), ("add", "+two")]
        assert diffs.lines(renamed) == []  # the same bytes under a new name
    finally:
        diffs.close()


def test_a_long_diff_is_cut_and_a_missing_blob_shows_none(repo, monkeypatch):
    monkeypatch.setattr(git_history, "MAX_DIFF_LINES", 2)
    log = read_history(repo / "wiki")
    diffs = Diffs(log.top)
    _, edited, _ = log.lineages["guía b.md"]
    try:
        assert diffs.lines(edited) == [("hunk", "@@ -1,2 +1,3 @@"), ("same", " one"), ("more", "3")]
        assert diffs.lines(edited._replace(before="0" * 39 + "1")) == []  # not in this repository (a shallow clone's)
    finally:
        diffs.close()


def test_a_build_asks_git_where_the_folder_is_once_and_reads_its_history_there(repo, tmp_path, monkeypatch):
    from pipeline.build import build
    from pipeline.config import Config

    asked = []
    run = subprocess.run  # every git command of capture and of the history goes through it
    monkeypatch.setattr(subprocess, "run", lambda argv, *a, **k: asked.append(argv) or run(argv, *a, **k))
    config = Config(content_dir=repo / "wiki", state_dir=tmp_path / "state", out_dir=tmp_path / "site", search=False)
    report = build(config, workers=1, site=True)
    assert sum("rev-parse" in argv for argv in asked) == 1  # capture's; `gather` reads its answer
    assert report.capture.commit == report.capture.git.head == git(repo, "rev-parse", "HEAD").strip()
    pages = [page.read_text(encoding="utf-8") for page in (tmp_path / "site").rglob("history/index.html")]
    assert any("Grow &lt;a&gt;" in page for page in pages)  # a commit's subject: the history is git's


def test_outside_a_repository_the_history_asks_git_nothing_more(tmp_path, monkeypatch):
    asked = []
    monkeypatch.setattr(git_history, "_run", lambda folder, *args: asked.append(args))
    assert read_history(tmp_path, place=None) is None and asked == []


def test_where_no_folder_above_has_a_git_folder_no_git_process_is_started(tmp_path, monkeypatch):
    monkeypatch.delenv("GIT_DIR", raising=False)
    monkeypatch.delenv("GIT_WORK_TREE", raising=False)
    started = []
    monkeypatch.setattr(git_history, "_run", lambda folder, *args: started.append(args))
    inner = tmp_path / "a" / "wiki"
    inner.mkdir(parents=True)
    assert git_history.git_place(inner) is None and started == []
    (tmp_path / "a" / ".git").write_text("gitdir: elsewhere\n")  # a linked work tree's: git is asked
    assert git_history.git_place(inner) is None and started == [("rev-parse", "--show-toplevel", "--show-prefix",
                                                                  "--is-shallow-repository", "HEAD")]  # fmt: skip


def test_a_folder_reached_through_a_link_is_looked_up_where_it_is(repo, tmp_path):
    link = tmp_path / "linked-wiki"
    link.symlink_to(repo / "wiki")
    assert git_history.git_place(link).prefix == "wiki/"  # the repository above the real folder, not the link's
