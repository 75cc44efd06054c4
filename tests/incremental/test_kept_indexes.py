"""What a pass keeps between builds besides its plan memo (pipeline/incremental/kept_indexes.py): here, what each capture alone
gives (`KEEP_BY_CAPTURE`: pairing's claims), kept with the options whatever the read set."""

import dataclasses
import pickle
import sqlite3

from pipeline.build import build
from pipeline.passes import pairing_index
from tests.helpers import forget_plans, results_by_path

FILES = {
    "a.md": "---\ntitle: Alpha\n---\nAlpha.\n",
    "a.es.md": "---\ntitle: Alfa\npaired_with: a.md\n---\nAlfa.\n",
    "b.md": "---\ntitle: Beta\n---\nBeta links [[a]].\n",
    "b.es.md": "---\ntitle: Beta ES\npaired_with: b.md\n---\nBeta.\n",
}


def _derived(monkeypatch) -> list[str]:
    """The paths whose claim (`paired_with`, group) is derived from their capture from now on."""
    derived, own_claim = [], pairing_index._own_claim
    monkeypatch.setattr(pairing_index, "_own_claim", lambda article, options: derived.append(article.path)
                        or own_claim(article, options))  # fmt: skip
    return derived


def _kept_claims(config) -> dict:
    conn = sqlite3.connect(config.state_db)
    (value,) = conn.execute("SELECT value FROM kept_memos WHERE key = ?", (pairing_index.OWN_CLAIMS,)).fetchone()
    conn.close()
    return pickle.loads(value)


def test_an_edit_derives_the_claim_of_the_edited_capture_alone(make_wiki, monkeypatch):
    config = make_wiki(FILES, search=False)
    derived = _derived(monkeypatch)
    build(config, workers=1)
    assert sorted(derived) == sorted(FILES)
    derived.clear()
    (config.content_dir / "b.es.md").write_text(FILES["b.es.md"].replace("paired_with: b.md", "paired_with: a.md"))
    reused = build(config, workers=1)
    assert derived == ["b.es.md"]
    assert sorted(claim for claim in _kept_claims(config).values() if claim[0]) == [("a.md", None), ("a.md", None)]
    # What the pairing pass made of the kept claims is what it makes of claims derived from nothing.
    forget_plans(config.state_db)
    full = build(config, workers=1, reuse=False)
    assert full.process.created_passes == [] and results_by_path(full) == results_by_path(reused)
    assert len(derived) == 1 + len(FILES)


def test_claims_kept_are_the_current_captures_and_are_derived_again_under_other_options(make_wiki, monkeypatch):
    config = make_wiki(FILES, search=False)
    build(config, workers=1)
    derived = _derived(monkeypatch)
    (config.content_dir / "b.es.md").unlink()
    (config.content_dir / "c.md").write_text("---\ntitle: Gamma\n---\nGamma.\n")
    build(config, workers=1)
    assert derived == ["c.md"] and len(_kept_claims(config)) == 4  # b.es.md's is no longer kept
    derived.clear()
    build(dataclasses.replace(config, pairing="suffix"), workers=1)  # a group is the file name's stem now
    assert sorted(derived) == ["a.es.md", "a.md", "b.md", "c.md"]
    assert _kept_claims(config)[max(_kept_claims(config))][1] == "c"
