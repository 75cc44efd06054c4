"""The pairing and citations passes over the real bilingual wiki: its real problems, and no false ones.

Each count below was checked by hand against the files (see the lead's report).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from pipeline.inline import run_inline
from pipeline.passes import citations, metadata, pairing
from pipeline.passes.registry import spec_of

pytestmark = pytest.mark.slow  # a whole wiki built: outside the fast tier

SECURITY_WITHOUT_SPANISH = [
    "capability-based-security", "crypto-attestation", "cryptographic-ledgers", "data-sovereignty-telemetry",
    "diode-standard", "five-stage-supply-chain", "identity-ledger-schema-design", "machine-based-auth",
    "personnel-permissions", "pre-commit-defense-in-depth", "sel4-capability-topology", "verification-surveyor",
]  # fmt: skip
# Spanish articles naming an English one that does not name them back.
ONE_WAY = [
    "about.es.md", "ai/zero-container-inference.es.md", "contact.es.md", "contribute.es.md", "disclaimers.es.md",
    "index.es.md", "reference/editorial-language-registers.es.md", "reference/editorial-philosophy.es.md",
    "reference/glossary-documentation.es.md",
]  # fmt: skip


@pytest.fixture(scope="module")
def outputs() -> dict:
    from conftest import POINTSAV

    files = {
        p.relative_to(POINTSAV).as_posix(): p.read_bytes()
        for p in sorted(POINTSAV.rglob("*.md"))
        if not any(part.startswith(".") for part in p.relative_to(POINTSAV).parts)
    }
    specs = [spec_of(module) for module in (metadata, pairing, citations)]
    return run_inline(files, data={"citations": None}, specs=specs)


def found(outputs: dict, name: str) -> dict[str, list[tuple[str, int]]]:
    by_code: dict[str, list[tuple[str, int]]] = {}
    for path, output in sorted(outputs[name].items()):
        for d in output["diagnostics"]:
            by_code.setdefault(d["code"], []).append((path, d["line"]))
    return by_code


def test_the_wiki_is_read_in_place(pointsav: Path, outputs):
    assert len(outputs["pairing"]) == 569


def test_pairing_reports_exactly_the_real_problems(outputs):
    by_code = found(outputs, "pairing")
    # missing-translation: the articles with no Spanish counterpart (an info)
    assert {code: len(v) for code, v in by_code.items()} == {"missing-pair": 12, "one-way-pair": 9, "missing-translation": 39}
    assert by_code["missing-pair"] == [(f"security/{name}.md", 15) for name in SECURITY_WITHOUT_SPANISH]
    assert [path for path, _ in by_code["one-way-pair"]] == ONE_WAY


def test_every_other_pair_links_both_ways(outputs):
    roles = Counter(o["role"] for o in outputs["pairing"].values())
    assert roles == {"source": 265, "translation": 265, None: 39}
    guide = outputs["pairing"]["architecture/_index.es.md"]
    assert guide["translations"] == [{"path": "architecture/_index.md", "lang": "en", "url": "architecture/"}]


def test_citations_report_exactly_the_real_problems(outputs):
    by_code = found(outputs, "citations")
    assert by_code == {
        "unused-reference": [
            ("architecture/foundry-doctrine-architecture.md", 20), ("architecture/foundry-doctrine-architecture.md", 22),
            ("architecture/foundry-doctrine-architecture.md", 24), ("services/service-wallet-settlement.md", 18),
            ("services/service-wallet-settlement.md", 22), ("substrate/capability-ledger-substrate.md", 16),
            ("substrate/capability-ledger-substrate.md", 19), ("substrate/tui-corpus-producer.es.md", 19),
        ],
        "undefined-citation": [("substrate/brief-queue-substrate.md", 56)],  # `[1]` with no References list
    }  # fmt: skip
    sources = Counter(r["source"] for o in outputs["citations"].values() for r in o["references"])
    assert sources == {"frontmatter": 149, "list": 21}
