"""`pipeline spool ...` and `pipeline corpus ...` through the real command line."""

from __future__ import annotations

import io
import json
import signal
import subprocess

import pytest
from spool_helpers import child_env, ping, pipeline_cmd, run_pipeline, wait_for

from pipeline.cli import main
from pipeline.spool import enqueue
from pipeline.spool.events import encode, prepare
from pipeline.spool.layout import DIRS, Spool


@pytest.fixture
def cli(tmp_path, monkeypatch, capsys):
    """cli(*args, stdin="") -> (exit status, stdout, stderr), run in tmp_path with --state tmp_path."""
    monkeypatch.chdir(tmp_path)

    def run(*args: str, stdin: str = ""):
        monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
        status = main([*args, "--state", str(tmp_path)])
        out, err = capsys.readouterr()
        return status, out, err

    return run


def test_push_enqueues_each_line_and_prints_its_id(cli, tmp_path):
    lines = "\n".join(json.dumps(ping(n)) for n in range(3)) + "\n\n"
    status, out, _ = cli("spool", "push", "-", stdin=lines)
    spool = Spool(tmp_path / "spool")
    assert status == 0 and len(out.split()) == 3
    assert sorted(json.loads((spool.queue / n).read_text())["event_id"] for n in spool.names(spool.queue)) == sorted(out.split())


def test_push_reads_a_file_and_reports_bad_lines_but_keeps_the_good_ones(cli, tmp_path):
    source = tmp_path / "events.jsonl"
    source.write_text(json.dumps(ping(1)) + "\nnot json\n" + json.dumps({"type": "x"}) + "\n")
    status, out, err = cli("spool", "push", str(source))
    assert status == 1 and len(out.split()) == 1
    assert "line 2: not JSON" in err and "line 3: invalid event" in err and "2 line(s) rejected" in err
    assert cli("spool", "push", str(tmp_path / "missing.jsonl"))[0] == 1


def test_status_counts_each_directory_and_lists_poison(cli, tmp_path):
    spool = Spool(tmp_path / "spool").ensure()
    for n in range(2):
        enqueue(ping(n), spool.root)
    (spool.poison / "00000000000000000007-bad.a2.json").write_bytes(encode(prepare(ping(9))))
    (spool.poison / "00000000000000000007-bad.error").write_text("reason: used up its retries: 2\n")
    status, out, _ = cli("spool", "status", "--format", "json")
    report = json.loads(out)
    assert status == 0 and [(d["name"], d["count"]) for d in report["dirs"]] == list(zip(DIRS, [2, 0, 0, 1]))
    assert report["dirs"][3]["oldest_age"] > 1e9 and report["dirs"][1]["oldest_age"] is None
    assert report["poison"][0]["reason"] == "used up its retries: 2"
    _, text, _ = cli("spool", "status")
    assert "queue-poison           1" in text and "poison 00000000000000000007-bad" in text


def test_requeue_poison_moves_it_back_with_fresh_attempts(cli, tmp_path):
    spool = Spool(tmp_path / "spool").ensure()
    event = prepare(ping(1))
    (spool.poison / "00000000000000000007-bad.a5.json").write_bytes(encode(event))
    (spool.poison / "00000000000000000007-bad.error").write_text("reason: x\n")
    assert cli("spool", "requeue-poison", "nope")[0] == 1
    status, out, _ = cli("spool", "requeue-poison", event["event_id"])
    assert status == 0 and "queue/00000000000000000007-bad.json" in out
    assert spool.names(spool.queue) == ["00000000000000000007-bad.json"]
    assert list(spool.poison.iterdir()) == []


def test_corpus_stats_and_export(cli, tmp_path):
    corpus = tmp_path / "corpus" / "editorial-events.jsonl"
    corpus.parent.mkdir()
    a, b = prepare(ping(1)), prepare({"type": "review.note", "payload": {}})
    corpus.write_bytes(encode(a) + encode(b) + encode(a))
    status, out, _ = cli("corpus", "stats", "--format", "json")
    report = json.loads(out)
    assert status == 0 and (report["events"], report["duplicates"]) == (2, 1)
    assert {(r["type"], r["pass"], r["events"]) for r in report["by_type_and_pass"]} == {
        ("test.ping", "-", 1), ("review.note", "-", 1)}
    status, _, err = cli("corpus", "export", "--output", str(tmp_path / "out.jsonl"))
    assert status == 0 and "exported 2 events (1 duplicates dropped)" in err
    assert (tmp_path / "out.jsonl").read_bytes() == encode(a) + encode(b)


def test_schema_prints_the_json_schema(cli):
    status, out, _ = cli("spool", "schema")
    assert status == 0 and json.loads(out)["required"] == ["event_id", "type", "created_at", "payload"]


def test_drain_once_through_the_cli_and_a_malformed_crash_hook_is_an_error(tmp_path):
    ids = [enqueue(ping(n), tmp_path / "spool") for n in range(3)]
    result = run_pipeline("spool", "drain", "--once", "--state", str(tmp_path), cwd=tmp_path)
    assert result.returncode == 0 and "appended 3" in result.stdout
    assert len(Spool(tmp_path / "spool").names(Spool(tmp_path / "spool").done)) == len(ids)
    typo = run_pipeline("spool", "drain", "--once", "--state", str(tmp_path), cwd=tmp_path, crash="after:corpus.fsnc")
    assert typo.returncode == 1 and "PIPELINE_SPOOL_CRASH" in typo.stderr
    bad_lease = run_pipeline("spool", "drain", "--lease", "0", "--state", str(tmp_path), cwd=tmp_path)
    assert bad_lease.returncode == 2


def test_a_looping_drain_stops_cleanly_on_sigterm(tmp_path):
    spool = Spool(tmp_path / "spool").ensure()
    drain = subprocess.Popen(pipeline_cmd("spool", "drain", "--interval", "0.05", "--state", str(tmp_path)),
                             cwd=tmp_path, env=child_env(), stdout=subprocess.PIPE, text=True)
    try:
        enqueue(ping(1), spool.root)
        wait_for(lambda: spool.names(spool.done), 20, "the running drain to deliver")
        drain.send_signal(signal.SIGTERM)
        out, _ = drain.communicate(timeout=20)
    finally:
        drain.kill()
    assert drain.returncode == 0 and "appended 1" in out


@pytest.mark.parametrize("command", [("spool",), ("spool", "push"), ("spool", "drain"), ("spool", "status"),
                                     ("spool", "requeue-poison"), ("corpus", "stats"), ("corpus", "export")])
def test_every_command_has_help_and_takes_state(command, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([*command, "--help"])
    assert exit_.value.code == 0
    assert len(command) == 1 or "--state DIR" in capsys.readouterr().out


@pytest.mark.parametrize("command", [("spool", "status"), ("spool", "drain", "--once"), ("corpus", "stats")])
def test_an_unusable_state_folder_is_one_error_line(tmp_path, command):
    (tmp_path / "state").write_text("a file, not a folder")
    result = run_pipeline(*command, "--state", str(tmp_path / "state"), cwd=tmp_path)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert result.stderr == f"pipeline: error: {tmp_path / 'state'}: the state folder is not a folder\n"
