"""What the planner's tests share: results by path, plans forgotten, selects recorded."""

import dataclasses
import shutil
import sqlite3
from pathlib import Path


def results_by_path(report) -> dict:
    """(path, pass) -> output of every result a build's process holds."""
    paths = {a.capture_id: a.path for a in report.process.wiki.articles}
    return {(paths[capture_id], name): output for name, by_id in report.process.wiki.results.items()
            for capture_id, output in by_id.items()}  # fmt: skip


def forget_plans(state_db: Path) -> None:
    """Drop what the last plans pass on to the next (memos, read sets, kept indexes): the next plans from scratch."""
    conn = sqlite3.connect(state_db)
    with conn:
        for table in ("plan_memo", "plan_read_sets", "kept_memos"):
            conn.execute(f"DELETE FROM {table}")
    conn.close()


def record_selects(monkeypatch, *modules, name=lambda module, article: article.path) -> list:
    """The selects of `modules` called from now on, each as `name` gives it (the article's path)."""
    calls = []
    for module in modules:

        def recording(article, wiki, module=module, select=module.select):
            calls.append(name(module, article))
            return select(article, wiki)

        monkeypatch.setattr(module, "select", recording)  # for a pass calling another's (links calls citations')
        monkeypatch.setattr(module, "PASS", dataclasses.replace(module.PASS, select=recording))
    return calls


def install_package(packages: Path, module: str, source: Path, entry_points: str) -> None:
    """A package as pip leaves it in the folder `packages`: the file `source` as `module`.py, and its dist-info
    folder declaring `entry_points` (the text of its entry_points.txt)."""
    info = packages / f"{module}-1.0.dist-info"
    info.mkdir(parents=True)
    shutil.copy(source, packages / f"{module}.py")
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {module.replace('_', '-')}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points)
