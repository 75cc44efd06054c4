"""What passes and pages know beyond the captures: the capture log a build keeps between builds, and the data files."""

from pipeline.build import build
from pipeline.config import Config
from pipeline.content import facts
from pipeline.content.capture import capture_content
from pipeline.content.facts import capture_log
from pipeline.storage.store import open_store
from tests.runtime.test_safe_yaml import alias_bomb


def _captured(config, files: dict[str, str]):
    for name, text in files.items():
        (config.content_dir / name).write_text(text)
    conn = open_store(config.state_db)
    capture_content(conn, config)
    return conn


def test_the_kept_capture_log_is_the_stores_and_is_kept_again_once_its_tail_grows(make_wiki, monkeypatch):
    monkeypatch.setattr(facts, "LOG_TAIL", 1)
    config = make_wiki({"a.md": "---\ntitle: A\n---\nOne.\n"})
    kept = config.state_dir / facts.LOG_KEPT
    conn = _captured(config, {})
    assert capture_log(conn, kept) == capture_log(conn) and kept.exists()  # the first read keeps it
    written = kept.stat().st_mtime_ns
    conn = _captured(config, {"a.md": "---\ntitle: A\n---\nTwo.\n"})
    assert capture_log(conn, kept) == capture_log(conn) and kept.stat().st_mtime_ns == written  # one row past it
    conn = _captured(config, {"a.md": "---\ntitle: A\n---\nThree.\n", "b.md": "---\ntitle: B\n---\n"})
    log = capture_log(conn)
    assert capture_log(conn, kept) == log and kept.stat().st_mtime_ns != written  # three past it: kept again
    assert capture_log(conn, kept) == log and [change.path for change in log] == ["a.md", "a.md", "a.md", "b.md"]


def test_a_kept_log_that_is_not_this_stores_is_not_used(make_wiki, tmp_path):
    config = make_wiki({"a.md": "---\ntitle: A\n---\nOne.\n"})
    kept = tmp_path / "log.pickle"
    other = Config(content_dir=tmp_path / "other", state_dir=tmp_path / "other-state")
    other.content_dir.mkdir()
    capture_log(_captured(other, {"x.md": "---\ntitle: X\n---\n", "y.md": "---\ntitle: Y\n---\n"}), kept)
    conn = _captured(config, {})
    assert capture_log(conn, kept) == capture_log(conn)
    kept.write_bytes(b"torn")
    assert capture_log(conn, kept) == capture_log(conn)


def test_a_data_file_past_the_yaml_limits_or_not_utf8_is_a_problem_with_its_line(make_wiki):
    bomb = alias_bomb(9)
    config = make_wiki({
        "a.md": "---\ntitle: A\n---\n", "redirects.yaml": bomb, "categories.yaml": b"- id: caf\xe9\n",
        "citations.yaml": "- id: x\n  text: &t Shared\n- id: y\n  text: *t\n",
    })  # fmt: skip
    found = facts.gather(_captured(config, {}), config.content_dir)
    assert (found.data["redirects"], found.data["categories"]) == (None, None)
    assert [(c["id"], c["text"]) for c in found.data["citations"]] == [("x", "Shared"), ("y", "Shared")]
    assert sorted(found.problems) == [
        ("categories.yaml", 1, "not UTF-8: byte 0xe9 at line 1"),
        ("redirects.yaml", 5, "YAML has aliases that stand for more than 10,000 values"),
    ]


def test_a_build_reads_each_data_file_once_and_reports_a_bad_citation_at_its_line(make_wiki, monkeypatch):
    """The build stamp names the bytes `gather` parses: one read of each data file, not one each."""
    config = make_wiki({
        "a.md": "---\ntitle: A\ncites: [k1]\n---\nBody.\n", "redirects.yaml": "old-a: a\n",
        "citations.yaml": "- id: k1\n  text: A book\n- id: k1\n  text: Again\n",
    })  # fmt: skip
    reads = []
    read_inside = facts.read_inside
    monkeypatch.setattr(facts, "read_inside", lambda folder, name: reads.append(name) or read_inside(folder, name))
    report = build(config, workers=1)
    assert sorted(reads) == ["categories.yaml", "citations.yaml", "redirects.yaml"]
    errors = [(d.path, d.line, d.message) for d in report.process.diagnostics if d.code == "data-error"]
    assert errors == [("citations.yaml", 3, "the citation 'k1' is already given at line 1")]
