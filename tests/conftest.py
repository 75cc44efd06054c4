"""Shared fixtures: tiny wikis written inline, built in a temp dir."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pipeline.config import Config
from pipeline.storage.store import close_all

REPO = Path(__file__).resolve().parent.parent
# The real bilingual wiki, kept in the repository (tests/corpora/README.md says where it comes from).
POINTSAV = REPO / "tests" / "corpora" / "pointsav-wiki"


def folder_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file below `root`: compare before and after to prove nothing was written."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def write_files(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, value in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(value, bytes):
            path.write_bytes(value)
        else:
            path.write_text(value, encoding="utf-8")


@pytest.fixture
def make_wiki(tmp_path):
    """make_wiki({"a.md": "..."}, **options) -> Config with content, state and out in tmp_path."""

    def make(files: dict[str, str | bytes], **options) -> Config:
        content = tmp_path / "content"
        content.mkdir(exist_ok=True)
        write_files(content, files)
        return Config(content_dir=content, state_dir=tmp_path / "state", out_dir=tmp_path / "site", **options)

    return make


def current_results(config: Config, pass_name: str) -> dict[str, dict]:
    """path -> newest result of `pass_name` for each current capture."""
    from pipeline.content.capture import current_capture_ids
    from pipeline.storage.store import open_store

    conn = open_store(config.state_db)
    try:
        ids = current_capture_ids(conn)
        out = {}
        for capture_id in ids:
            row = conn.execute(
                """SELECT c.path, r.job_id, r.output FROM processing_results r JOIN captures c ON c.id = r.capture_id
                   WHERE r.capture_id = ? AND r.pass_name = ? ORDER BY r.id DESC LIMIT 1""",
                (capture_id, pass_name),
            ).fetchone()
            if row:
                out[row["path"]] = _with_lazy_fields(row["job_id"], json.loads(row["output"]), config)
        return out
    finally:
        conn.close()


def _with_lazy_fields(job_id: int, output: dict, config: Config) -> dict:
    """The output as the pass returned it: its lazy fields (stored beside it) read back, holes filled."""
    from pipeline.storage.results import stored_value
    from pipeline.storage.store import open_store

    conn = open_store(config.state_db)
    try:
        names = [row[0] for row in conn.execute("SELECT field FROM result_fields WHERE job_id = ?", (job_id,))]
    finally:
        conn.close()
    return {**output, **{name: stored_value(str(config.state_db), job_id, name) for name in names}}


@pytest.fixture
def results_of():
    """results_of(config, pass_name) -> {path: output} of the current captures."""
    return current_results


@pytest.fixture
def pointsav() -> Path:
    """The real bilingual wiki in tests/corpora (read it in place; never write to it)."""
    return POINTSAV


# Hypothesis keeps an example database in the working directory by default; tests write only to temp dirs.
try:
    from hypothesis import settings

    settings.register_profile("pipeline", database=None, deadline=None)
    settings.load_profile("pipeline")
except ImportError:  # pragma: no cover
    pass


@pytest.fixture(autouse=True)
def _close_stores():
    """Close the store connections a test's builds left open: each build keeps this process's cached
    readers (one per store path, right for a command or a preview), and a test run makes thousands of
    stores, which would hold more descriptors than `select` and the process limit allow."""
    yield
    close_all()


@pytest.fixture(scope="session", autouse=True)
def _run_in_a_temp_dir(tmp_path_factory):
    """Tests run in a temp dir, so the repo's wiki.yaml and folders are never read or written."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("cwd"))
        yield
