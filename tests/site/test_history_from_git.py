"""History pages, recent changes and last-updated dates from git, where the content folder is in a repository."""

from __future__ import annotations

import dataclasses

from pipeline.build import build
from tests.conftest import folder_hashes
from tests.content.test_git_history import commit, git
from tests.site.helpers import build_site, read, without_shortcuts


def _wiki(make_wiki, tmp_path):
    """A content folder inside a repository (its `content/` folder): an article created, edited with a body that
    holds markup and by another author, then renamed; and a second article never committed."""
    config = make_wiki({})
    git(tmp_path, "init", "-q")
    commit(tmp_path, {"content/alpha.md": "---\ntitle: Alpha\n---\n\nFirst.\n"}, "Create alpha")
    commit(tmp_path, {"content/alpha.md": "---\ntitle: Alpha\n---\n\nFirst.\n\n<script>x()</script>\n"},
           "Edit <b>alpha</b>", author="Bob", date="2024-02-01T09:30:00+00:00")  # fmt: skip
    git(tmp_path, "mv", "content/alpha.md", "content/gamma.md")
    commit(tmp_path, {}, "Rename to gamma", date="2024-03-01T09:30:00+00:00")
    (config.content_dir / "loose.md").write_text("---\ntitle: Loose\n---\n\nNot committed.\n")
    return config


def test_a_history_page_lists_the_commits_of_its_file_renames_followed_each_with_its_diff(make_wiki, tmp_path):
    config = _wiki(make_wiki, tmp_path)
    build_site(config)
    page = read(config.out_dir, "gamma/history/index.html")
    rows = page.split("<tbody>")[1]
    assert rows.index("Rename to gamma") < rows.index("Edit &lt;b&gt;alpha&lt;/b&gt;") < rows.index("Create alpha")
    assert ">renamed <span class=\"history-note\">(from <code>alpha.md</code>)" in page and "<td>Bob</td>" in page
    assert '<span class="diff-add">+&lt;script&gt;x()&lt;/script&gt;</span>' in page and "<script>x()" not in page
    assert 'datetime="2024-02-01T09:30:00+00:00"' in page
    assert page.count("<details>") == 1  # the edit's diff: the creation's would be the whole file, the rename changed none
    loose = read(config.out_dir, "loose/history/index.html")  # not in git: its capture history
    assert "<th scope=\"col\">Hash</th>" in loose and "created" in loose
    recent = read(config.out_dir, "special/recent/index.html").split("<tbody>")[1]  # the commits, and the loose file
    assert recent.count('<a href="/gamma/">Alpha</a>') == 3 and recent.count('<a href="/loose/">Loose</a>') == 1
    assert "2024-03-01" in read(config.out_dir, "gamma/index.html")  # last updated: the newest commit


def test_a_new_commit_renders_the_same_site_as_a_build_from_scratch(make_wiki, tmp_path):
    config = _wiki(make_wiki, tmp_path)
    build_site(config)
    commit(tmp_path, {"content/gamma.md": "---\ntitle: Alpha\n---\n\nFirst, again.\n"}, "Reword", author="Cy",
           date="2024-04-01T09:30:00+00:00")  # fmt: skip
    report = build_site(config)
    assert "gamma/history/index.html" in report.site.written
    assert "Reword" in read(config.out_dir, "gamma/history/index.html")
    full = dataclasses.replace(without_shortcuts(config, tmp_path / "check"), search=False)
    (full.state_dir / "git-history.pickle").unlink()  # the history logged whole again
    build(full, workers=1, site=True, reuse=False)
    assert folder_hashes(config.out_dir) == folder_hashes(full.out_dir)
