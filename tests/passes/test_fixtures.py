"""Fixture files of the passes that read several files: metadata, wikilinks, pairing, html.

Each `fixtures/<pass>/*.md` holds cases in the format of `fixture_files`;
the expected part is the pass output rendered one line per item, as the
renderers below say. Diagnostics are one a line, after the pass's items:
`line:col severity code: message`.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fixture_files import parse_case, read_cases, render_case, shown_paths

FIXTURES = Path(__file__).parent / "fixtures"
EMPTY = {"aliases": [], "categories": [], "short_description": None, "paired_with": None, "draft": False, "tags": []}


def diagnostics(output: dict) -> list[str]:
    return [f"{d['line']}:{d['col']} {d['severity']} {d['code']}: {d['message']}" for d in output["diagnostics"]]


def edit(output: dict) -> list[str]:
    """`edit proposed:` (or `applied:`) and the removed and added lines of its diff."""
    if output["edit"] is None:
        return []
    rows = output["edit"]["diff"].split("\n")[2:]  # after the `--- a/...` and `+++ b/...` headers
    changed = [row for row in rows if row[:1] in ("+", "-")]
    return [f"edit {'applied' if output['edit']['applied'] else 'proposed'}:", *changed]


def lines(rows: list[str]) -> str:
    return "".join(f"{row}\n" for row in rows)


def metadata(output: dict) -> str:
    """`field: JSON value`; title, slug and lang always, other fields only when not empty."""
    rows = [
        f"{key}: {json.dumps(value, ensure_ascii=False)}"
        for key, value in output.items()
        if key != "diagnostics" and (key not in EMPTY or value != EMPTY[key])
    ]
    return lines(rows + diagnostics(output))


def wikilinks(output: dict) -> str:
    """`line:col raw status step target_path target_lang url [anchor=...]` per link ('-' for null)."""
    rows = []
    for link in output["links"]:
        fields = [link["status"], link["step"], link["target_path"], link["target_lang"], link["url"]]
        row = f"{link['line']}:{link['col']} {link['raw']} " + " ".join(value or "-" for value in fields)
        rows.append(row.replace("\n", "\\n") + (f" anchor={link['anchor']}" if link["anchor"] else ""))
    return lines(rows + diagnostics(output) + edit(output))


def pairing(output: dict) -> str:
    """`role: ...`, `translation: lang path url` each, `outdated: evidence source lags`."""
    rows = [f"role: {output['role'] or '-'}"]
    rows += [f"translation: {t['lang']} {t['path']} {t['url']}" for t in output["translations"]]
    if output["outdated"]:
        late = output["outdated"]
        rows.append(f"outdated: {late['evidence']} {late['source_path']} lags {late['lags']}")
    return lines(rows + diagnostics(output))


def html(output: dict) -> str:
    """The HTML, then `--- references` and `--- toc` (`level id text` each) when not empty."""
    text = output["html"]
    if output["references_html"]:
        text += "--- references\n" + output["references_html"]
    if output["toc"]:
        text += "--- toc\n" + lines([f"{h['level']} {h['id']} {h['text']}" for h in output["toc"]])
    return text + lines(diagnostics(output))


RENDERERS = {"metadata": metadata, "wikilinks": wikilinks, "pairing": pairing, "html": html}
CASES = [
    pytest.param(name, case, id=f"{path.parent.name}/{path.stem}:{case.id}")
    for name in RENDERERS
    for path in sorted((FIXTURES / name).glob("*.md"))
    for case in read_cases(path)
]


@pytest.mark.parametrize("pass_name,case", CASES)
def test_fixture(pass_name, case):
    assert render_case(case, pass_name, RENDERERS[pass_name]) == case.expected


@pytest.mark.parametrize("pass_name", list(RENDERERS))
def test_every_pass_has_fixture_cases(pass_name):
    assert any(name == pass_name for name, *_ in (param.values for param in CASES))


def test_the_reader_splits_files_data_facts_and_options():
    given = (
        "options: pairing=suffix languages=[en,es] raw_html=true\n"
        "intro\n=== my notes/b.es.md encoding=latin-1\nCafé\n=== redirects.yaml\n/a: /b\n"
        "=== facts.yaml\ngit_times: {b.md: 5}\n"
    )
    case = parse_case(0, "t", given, "=== b.md\nx\n=== a.md\n")
    assert case.files == {"a.md": "intro\n", "my notes/b.es.md": "Café\n".encode("latin-1")}
    assert case.options == {"pairing": "suffix", "languages": ["en", "es"], "raw_html": True}
    assert (case.data, case.facts) == ({"redirects": {"/a": "/b"}}, {"git_times": {"b.md": 5}})
    assert shown_paths(case) == ["b.md", "a.md"]
    assert shown_paths(parse_case(0, "t", "x\n", "y\n")) is None
