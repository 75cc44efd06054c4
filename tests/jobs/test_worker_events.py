"""Each completed pass that proposes an edit hands one event to the spool; the drain files it."""

import json

from pipeline.build import build
from pipeline.cli import main

FILES = {
    "guide.md": "---\ntitle: Guide\naliases: [handbook]\n---\nThe guide.\n",
    "intro.md": "---\ntitle: Intro\n---\nRead the [[handbook]] first.\n",
}


def _queued(config):
    queue = config.spool_dir / "queue"
    return [json.loads(p.read_text()) for p in sorted(queue.iterdir())] if queue.is_dir() else []


def test_an_edit_becomes_one_event_and_reaches_the_corpus(make_wiki, capsys):
    config = make_wiki(FILES)
    build(config, workers=1)
    events = [e for e in _queued(config) if e["payload"]["pass_name"] == "wikilinks"]
    assert len(events) == 1
    event = events[0]
    payload = event["payload"]
    assert event["type"] == "edit.proposed" and payload["path"] == "intro.md" and payload["applied"] is False
    assert payload["pass_version"] and len(payload["source_sha256"]) == 64 and len(payload["edited_sha256"]) == 64
    assert "-Read the [[handbook]] first." in payload["diff"] and "+Read the [[guide|handbook]] first." in payload["diff"]
    count = len(_queued(config))
    build(config, workers=1)  # nothing changed: no job runs, so no event is sent again
    assert len(_queued(config)) == count
    assert main(["spool", "drain", "--once", "--state", str(config.state_dir)]) == 0
    corpus = [json.loads(line) for line in config.corpus_path.read_text().splitlines()]
    assert event["event_id"] in {e["event_id"] for e in corpus}
    assert _queued(config) == []


def test_a_job_proposing_an_edit_sent_before_sends_nothing(make_wiki):
    files = {"guide.md": "---\ntitle: Guide\n---\nx\n", "other.md": "---\ntitle: Other\n---\nx\n",
             "intro.md": "---\ntitle: Intro\n---\nThe guide explains it.\n"}  # fmt: skip
    config = make_wiki(files)
    build(config, workers=1)
    proposed = lambda: [e for e in _queued(config) if e["payload"]["pass_name"] == "mentions"]  # noqa: E731
    assert [e["payload"]["path"] for e in proposed()] == ["intro.md"]
    # A name intro's prose holds changes its index: its mentions job runs again and proposes the same
    # edit of the same bytes (a title beats an alias), an event the spool has.
    (config.content_dir / "other.md").write_text("---\ntitle: Other\naliases: [guide]\n---\nx\n")
    report = build(config, workers=1)
    assert ("intro.md", "mentions") in report.process.created_passes
    assert len(proposed()) == 1
    (config.content_dir / "intro.md").write_text("---\ntitle: Intro\n---\nThe guide explains it all.\n")
    build(config, workers=1)
    events = proposed()
    assert len(events) == 2 and events[0]["event_id"] != events[1]["event_id"]  # other bytes: another edit
