"""`pipeline check` on the real bilingual wiki: its real problems, and no false ones."""

import pytest
import json
from collections import Counter

from conftest import folder_hashes
from pipeline.cli import main

pytestmark = pytest.mark.slow  # a whole wiki built: outside the fast tier

EXPECTED = {
    "broken-link": 9,  # dead relative Markdown links, e.g. (governance/architecture-decisions)
    "missing-pair": 12,  # English security articles whose paired_with names a missing .es.md
    "one-way-pair": 9,
    "yaml-error": 2,
    "no-frontmatter": 6,
    "unused-reference": 8,
    "undefined-citation": 1,
}


def test_check_reports_the_real_problems(pointsav, tmp_path, capsys):
    before = folder_hashes(pointsav)
    status = main(["check", "--content", str(pointsav), "--state", str(tmp_path / "state"), "--format", "json",
                   "--strict", "--workers", "1"])  # fmt: skip
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert status == 1
    assert Counter(row["code"] for row in rows) == EXPECTED
    broken = {(row["path"].split("pointsav-wiki/")[1], row["line"]) for row in rows if row["code"] == "broken-link"}
    assert ("substrate/nightly-datagraph-rebuild.md", 22) in broken
    assert not any("spot-vm-lifecycle-kill-switch" in path for path, _ in broken)  # [[ -e "$X" ]] in bash code
    missing = sorted(row["path"].split("pointsav-wiki/")[1] for row in rows if row["code"] == "missing-pair")
    assert all(path.startswith("security/") and not path.endswith(".es.md") for path in missing)
    yaml_errors = [row for row in rows if row["code"] == "yaml-error"]
    assert all(row["severity"] == "error" and row["line"] > 1 for row in yaml_errors)
    assert folder_hashes(pointsav) == before
