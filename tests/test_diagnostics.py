"""Diagnostics as printed: the path as the user named the content folder, one line each, in every format."""

import io
import json
from pathlib import Path

from pipeline.diagnostics import Diagnostic, emit

FOUND = [Diagnostic("a.md", 2, 1, "warning", "broken-link", "no page b"), Diagnostic("g/c.md", 1, 1, "info", "x", "y")]


def printed(content_dir, style="text") -> list[str]:
    stream = io.StringIO()
    emit(FOUND, style, Path(content_dir) if not isinstance(content_dir, str) else content_dir, stream)
    return stream.getvalue().splitlines()


def test_paths_are_shown_from_the_content_folder_as_named():
    assert printed(".") == ["a.md:2:1: warning: broken-link: no page b", "g/c.md:1:1: info: x: y"]
    assert printed("wiki/")[0].startswith("wiki/a.md:2:1:") and printed("/abs/wiki")[1].startswith("/abs/wiki/g/c.md:")
    assert printed("./wiki")[0].startswith("wiki/a.md:")  # as pathlib shows it
    assert printed("/")[0].startswith("/a.md:")


def test_every_format_prints_one_line_per_diagnostic():
    assert [json.loads(line)["path"] for line in printed("w", "json")] == ["w/a.md", "w/g/c.md"]
    assert printed("w", "github")[0].startswith("::warning file=w/a.md,line=2")
    nothing = io.StringIO()
    emit([], "text", Path("w"), nothing)
    assert nothing.getvalue() == ""


def test_collect_finds_every_diagnostic_of_stored_outputs_and_reads_only_those_that_may_report():
    from pipeline.diagnostics import collect
    from pipeline.inline import articles_from
    from pipeline.passes.base import Wiki
    from pipeline.runtime import jsonio
    from pipeline.storage.results import StoredOutputs
    from pipeline.storage.schema import SOME_DIAGNOSTIC

    articles = articles_from({"a.md": "A", "b.md": "B", "c.md": "C", "d.md": "D"})
    warning = {"code": "w", "severity": "warning", "message": "m", "line": 2, "col": 3}
    outputs = StoredOutputs("unused.db")  # never opened: every output that is read is held
    texts = {
        1: jsonio.dumps({"x": 1, "diagnostics": [warning]}),
        2: jsonio.dumps({"x": {"diagnostics": []}, "diagnostics": [{**warning, "line": 5}]}),  # nested key
        3: jsonio.dumps({"x": "\"diagnostics\":[{", "diagnostics": []}),  # the text, in a string
    }
    for capture_id, text in texts.items():
        outputs.add(capture_id, 10 + capture_id, "sha", SOME_DIAGNOSTIC in text)
        outputs.texts[10 + capture_id] = text
    outputs.add(4, 14, "sha", False)  # reports nothing: not held, and reading it would fail
    wiki = Wiki(options={}, articles=articles, results={"p": outputs, "q": {3: {"diagnostics": [warning]}}})
    assert [(d.path, d.line) for d in collect(wiki)] == [("a.md", 2), ("b.md", 5), ("c.md", 2)]


def test_diagnostics_are_listed_in_the_order_of_their_fields():
    import random

    from pipeline.diagnostics import collect
    from pipeline.inline import articles_from
    from pipeline.passes.base import Wiki

    articles = articles_from({"a.md": "A", "b.md": "B"})
    rng = random.Random(4)
    made = [{"line": rng.randint(1, 3), "col": rng.randint(1, 3), "severity": rng.choice(["info", "warning"]),
             "code": rng.choice(["x", "y"]), "message": rng.choice(["m", "n", "o"])} for _ in range(200)]  # fmt: skip
    results = {"p": {1: {"diagnostics": made[:100]}, 2: {"diagnostics": made[100:]}}}
    listed = collect(Wiki(options={}, articles=articles, results=results))
    fields = [(d.path, d.line, d.col, d.severity, d.code, d.message) for d in listed]
    assert fields == sorted(fields) and len(listed) == len(set(listed)) > 50  # by their fields, in order


def test_github_annotations_escape_the_path_and_message_so_a_file_name_cannot_inject_a_command():
    hostile = Diagnostic("evil.md\n::error file=x.md,line=1::INJECTED\r%:,.md", 1, 1, "warning", "c", "m\n::error::X%")
    stream = io.StringIO()
    emit([hostile], "github", Path("."), stream)
    printed = stream.getvalue()
    assert printed.count("\n") == 1 and "\r" not in printed  # one command, whatever the name holds
    assert printed == ("::warning file=evil.md%0A%3A%3Aerror file=x.md%2Cline=1%3A%3AINJECTED%0D%25%3A%2C.md,"
                       "line=1,col=1::c: m%0A::error::X%25\n")  # fmt: skip
    emit([hostile], "text", Path("."), stream := io.StringIO())
    assert stream.getvalue().count("\n") == 1 and stream.getvalue().startswith("evil.md%0A::error file=x.md,")
