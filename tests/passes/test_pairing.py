"""pairing: strategies, diagnostics with lines, outdated translations, and the exact select slice."""

from __future__ import annotations

import hashlib
import json

import pytest

from pipeline.inline import DEFAULT_OPTIONS
from pipeline.inline import articles_from, run_inline
from pipeline.passes import metadata, pairing
from pipeline.passes.base import Wiki
from pipeline.passes.registry import spec_of

SPECS = [spec_of(metadata), spec_of(pairing)]


def page(body: str = "Body.\n", **fields) -> str:
    """An article: `fields` as frontmatter lines in the order given (line 2 is the first field)."""
    lines = [f"{key}: {value}" for key, value in fields.items()]
    return "---\n" + "\n".join(lines) + "\n---\n" + body


def pairing_of(files: dict, **kwargs) -> dict:
    return run_inline(files, specs=SPECS, **kwargs)["pairing"]


def codes(output: dict) -> list[tuple[str, int]]:
    """The problems reported (the `missing-translation` info has tests of its own)."""
    return [(d["code"], d["line"]) for d in output["diagnostics"] if d["code"] != "missing-translation"]


def slices(files: dict, options: dict | None = None, facts: dict | None = None) -> dict[str, str]:
    """path -> the pairing slice as canonical JSON, as the planner hashes it."""
    options = {**DEFAULT_OPTIONS, **(options or {})}
    articles = articles_from(files, options["default_language"])
    wiki = Wiki(options=options, articles=articles, facts=facts or {})
    meta = SPECS[0]
    wiki.results["metadata"] = {a.capture_id: meta.run(a, meta.select(a, wiki)) for a in articles}
    return {a.path: json.dumps(pairing.select(a, wiki), sort_keys=True) for a in articles}


def sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


PAIR = {
    "guide.md": page(title="Guide", paired_with="guide.es.md"),
    "guide.es.md": page(title="Guía", paired_with="guide.md"),
}


# ---------------------------------------------------------------- paired_with


def test_a_pair_named_both_ways_links_the_two_with_urls_and_roles():
    out = pairing_of(PAIR)
    assert out["guide.md"]["translations"] == [{"path": "guide.es.md", "lang": "es", "url": "es/guide/"}]
    assert out["guide.es.md"]["translations"] == [{"path": "guide.md", "lang": "en", "url": "guide/"}]
    assert (out["guide.md"]["role"], out["guide.es.md"]["role"]) == ("source", "translation")
    assert out["guide.md"]["diagnostics"] == out["guide.es.md"]["diagnostics"] == []
    assert out["guide.es.md"]["outdated"] is None


def test_paired_with_is_relative_to_the_folder_or_to_the_content_root():
    out = pairing_of({
        "architecture/_index.md": page(title="A", paired_with="_index.es.md"),
        "architecture/_index.es.md": page(title="A", paired_with="architecture/_index.md"),
    })  # fmt: skip
    assert out["architecture/_index.md"]["translations"][0]["url"] == "es/architecture/"
    assert out["architecture/_index.es.md"]["translations"][0]["path"] == "architecture/_index.md"
    assert out["architecture/_index.md"]["diagnostics"] == out["architecture/_index.es.md"]["diagnostics"] == []


def test_a_missing_counterpart_is_reported_on_the_paired_with_line():
    out = pairing_of({"security/x.md": page(title="X", status="active", paired_with="x.es.md")})
    assert codes(out["security/x.md"]) == [("missing-pair", 4)]
    assert "x.es.md" in out["security/x.md"]["diagnostics"][0]["message"]
    assert out["security/x.md"]["translations"] == [] and out["security/x.md"]["role"] is None


def test_a_claim_not_returned_is_one_way_but_still_pairs_both_files():
    out = pairing_of({"a.md": page(title="A"), "a.es.md": page(title="A", paired_with="a.md")})
    assert codes(out["a.es.md"]) == [("one-way-pair", 3)]
    assert out["a.md"]["diagnostics"] == []
    assert out["a.md"]["translations"][0]["path"] == "a.es.md" and out["a.md"]["role"] == "source"


def test_a_counterpart_pairing_with_a_third_file_is_one_way():
    out = pairing_of({
        "a.md": page(title="A", paired_with="b.es.md"),
        "a.es.md": page(title="A", paired_with="a.md"),
        "b.es.md": page(title="B"),
    })  # fmt: skip
    assert codes(out["a.es.md"]) == [("one-way-pair", 3)]
    assert "b.es.md" in out["a.es.md"]["diagnostics"][0]["message"]


def test_a_pair_in_one_language_is_reported():
    out = pairing_of({"a.md": page(title="A", paired_with="b.md"), "b.md": page(title="B", paired_with="a.md")})
    assert codes(out["a.md"]) == codes(out["b.md"]) == [("same-language-pair", 3)]
    assert out["a.md"]["translations"] == []


def test_two_files_claiming_one_counterpart_conflict():
    out = pairing_of({
        "a.md": page(title="A", paired_with="a.es.md"),
        "a.es.md": page(title="A", paired_with="a.md"),
        "old.es.md": page(title="Old", lang="es", paired_with="a.md"),
    })  # fmt: skip
    assert codes(out["a.es.md"]) == [("conflicting-pair", 3)]
    assert codes(out["old.es.md"]) == [("conflicting-pair", 4)]
    assert "old.es.md" in out["a.es.md"]["diagnostics"][0]["message"]
    assert out["a.md"]["diagnostics"] == []


def test_a_pair_without_the_default_language_has_no_role():
    files = {"a.es.md": page(title="A", paired_with="a.fr.md"), "a.fr.md": page(title="A", paired_with="a.es.md")}
    out = pairing_of(files)
    assert out["a.es.md"]["translations"][0]["lang"] == "fr"
    assert out["a.es.md"]["role"] is None


# ---------------------------------------------------------------- suffix and key


def test_suffix_pairs_siblings_by_file_name():
    files = {name: page(title="G") for name in ("g.md", "g.es.md", "g.fr.md", "h.es.md")}
    out = pairing_of(files, options={"pairing": "suffix"})
    assert [t["lang"] for t in out["g.md"]["translations"]] == ["es", "fr"]
    assert out["g.fr.md"]["translations"] == [
        {"path": "g.md", "lang": "en", "url": "g/"}, {"path": "g.es.md", "lang": "es", "url": "es/g/"}
    ]  # fmt: skip
    assert out["g.es.md"]["role"] == "translation" and out["h.es.md"]["role"] is None
    assert all(codes(o) == [] for o in out.values())


def test_suffix_siblings_in_one_language_are_reported_on_the_lang_line():
    out = pairing_of({"g.md": page(title="G", lang="es"), "g.es.md": page(title="G")}, options={"pairing": "suffix"})
    assert codes(out["g.md"]) == [("same-language-pair", 3)]
    assert codes(out["g.es.md"]) == [("same-language-pair", 1)]


def test_suffix_and_a_disagreeing_paired_with_conflict():
    files = {"g.md": page(title="G", paired_with="other.es.md"), "g.es.md": page(title="G")}
    files["other.es.md"] = page(title="O")
    out = pairing_of(files, options={"pairing": "suffix"})
    assert codes(out["g.md"]) == [("conflicting-pair", 3)]
    assert "g.es.md" in out["g.md"]["diagnostics"][0]["message"]


def test_suffix_still_reports_a_paired_with_naming_a_missing_file():
    out = pairing_of({"g.md": page(title="G", paired_with="g.es.md")}, options={"pairing": "suffix"})
    assert codes(out["g.md"]) == [("missing-pair", 3)]


def test_key_pairs_files_whose_names_differ():
    files = {
        "guide.md": page(title="Guide", translation_key="guide"),
        "guia.md": page(title="Guía", lang="es", translation_key="guide"),
        "alone.md": page(title="Alone", translation_key="alone"),
    }  # fmt: skip
    out = pairing_of(files, options={"pairing": "key"})
    assert out["guide.md"]["translations"] == [{"path": "guia.md", "lang": "es", "url": "es/guia/"}]
    assert out["guia.md"]["role"] == "translation" and out["alone.md"]["translations"] == []
    assert all(codes(o) == [] for o in out.values())


def test_key_strategy_uses_the_configured_key_and_reports_same_language_on_its_line():
    files = {"a.md": page(title="A", ref=7), "b.md": page(title="B", ref=7), "c.md": page(title="C")}
    out = pairing_of(files, options={"pairing": "key", "pairing_key": "ref"})
    assert codes(out["a.md"]) == codes(out["b.md"]) == [("same-language-pair", 3)]
    assert out["c.md"]["diagnostics"] == []


# ---------------------------------------------------------------- outdated


def test_source_revision_matching_the_source_is_current_and_a_stale_one_is_outdated():
    source = page(title="Guide", paired_with="guide.es.md")
    translation = page(title="Guía", paired_with="guide.md", source_revision=sha(source)[:7])
    current = {"guide.md": source, "guide.es.md": translation}
    assert pairing_of(current)["guide.es.md"]["outdated"] is None
    stale = {**current, "guide.md": source + "New paragraph.\n"}
    out = pairing_of(stale)["guide.es.md"]
    new = sha(stale["guide.md"])
    assert out["outdated"] == {
        "source_path": "guide.md", "evidence": "frontmatter", "lags": new[:12], "message": out["outdated"]["message"]
    }  # fmt: skip
    assert sha(source)[:7] in out["outdated"]["message"] and new[:12] in out["outdated"]["message"]
    assert codes(out) == [("outdated-translation", 4)]


def test_git_times_say_outdated_when_the_source_was_committed_later():
    facts = {"git_times": {"guide.md": 2_000_000_000, "guide.es.md": 1_900_000_000}}
    out = pairing_of(PAIR, facts=facts)["guide.es.md"]
    assert out["outdated"]["evidence"] == "git" and out["outdated"]["lags"] == "2033-05-18T03:33:20Z"
    assert codes(out) == [("outdated-translation", 3)]
    newer = {"git_times": {"guide.md": 1_900_000_000, "guide.es.md": 2_000_000_000}}
    assert pairing_of(PAIR, facts=newer)["guide.es.md"]["outdated"] is None
    assert pairing_of(PAIR, facts=facts)["guide.md"]["outdated"] is None  # only translations lag


def test_a_source_revision_outranks_git_times():
    files = {**PAIR, "guide.es.md": page(title="Guía", paired_with="guide.md", source_revision=sha(PAIR["guide.md"]))}
    facts = {"git_times": {"guide.md": 2_000_000_000, "guide.es.md": 1_900_000_000}}
    assert pairing_of(files, facts=facts)["guide.es.md"]["outdated"] is None


def test_capture_history_says_outdated_when_the_source_bytes_are_newer():
    src, es = sha(PAIR["guide.md"]), sha(PAIR["guide.es.md"])
    history = {
        "guide.md": [("2026-01-01T00:00:00", "old"), ("2026-03-01T00:00:00", src), ("2026-04-01T00:00:00", src)],
        "guide.es.md": [("2026-02-01T00:00:00", es)],
    }  # fmt: skip
    out = pairing_of(PAIR, facts={"history": history})["guide.es.md"]
    assert out["outdated"]["evidence"] == "history" and out["outdated"]["lags"] == src[:12]
    assert "2026-03-01T00:00:00" in out["outdated"]["message"]
    history["guide.es.md"] = [("2026-03-01T00:00:00", es)]  # translated in the same capture run
    assert pairing_of(PAIR, facts={"history": history})["guide.es.md"]["outdated"] is None


def test_history_counts_a_revert_from_when_it_happened():
    src, es = sha(PAIR["guide.md"]), sha(PAIR["guide.es.md"])
    history = {
        "guide.md": [("2026-01-01T00:00:00", src), ("2026-02-01T00:00:00", "other"), ("2026-05-01T00:00:00", src)],
        "guide.es.md": [("2026-03-01T00:00:00", es)],
    }  # fmt: skip
    assert pairing_of(PAIR, facts={"history": history})["guide.es.md"]["outdated"]["evidence"] == "history"


def test_without_any_evidence_nothing_is_outdated():
    assert pairing_of(PAIR, facts={"git_times": {"guide.md": 5}, "history": {}})["guide.es.md"]["outdated"] is None


# ---------------------------------------------------------------- select


def test_editing_an_unrelated_article_leaves_the_slices_unchanged():
    before = slices({**PAIR, "other.md": page(title="Other")})
    after = slices({**PAIR, "other.md": page(title="Other, renamed", paired_with="nowhere.es.md"), "new.md": page()})
    assert before["guide.md"] == after["guide.md"] and before["guide.es.md"] == after["guide.es.md"]
    assert before["other.md"] != after["other.md"]


def test_the_source_body_reaches_only_translations_that_compare_revisions():
    files = {**PAIR, "guide.es.md": page(title="Guía", paired_with="guide.md", source_revision="abcdef0")}
    edited = {**files, "guide.md": files["guide.md"] + "More.\n"}
    assert slices(files)["guide.es.md"] != slices(edited)["guide.es.md"]
    assert slices(PAIR)["guide.es.md"] == slices({**PAIR, "guide.md": PAIR["guide.md"] + "More.\n"})["guide.es.md"]
    translated = {**PAIR, "guide.es.md": PAIR["guide.es.md"] + "Más.\n"}
    assert slices(PAIR)["guide.md"] == slices(translated)["guide.md"]


@pytest.mark.parametrize("kind", ["git_times", "history"])
def test_facts_about_other_files_are_not_in_the_slice(kind):
    value = 1 if kind == "git_times" else [("2026-01-01", "x")]
    base = {"git_times": {}, "history": {}}
    assert slices(PAIR, facts=base) == slices(PAIR, facts={**base, kind: {"other.md": value}})


def test_a_renamed_counterpart_slug_changes_the_url_it_reads():
    renamed = {**PAIR, "guide.es.md": page(title="Guía", slug="guia", paired_with="guide.md")}
    assert slices(PAIR)["guide.md"] != slices(renamed)["guide.md"]
    assert pairing_of(renamed)["guide.md"]["translations"][0]["url"] == "es/guia/"


def test_an_article_without_a_translation_in_a_language_of_the_wiki_gets_a_missing_translation_info():
    files = {"g.md": page(title="G"), "g.es.md": page(title="G"), "h.md": page(title="H"), "i.fr.md": page(title="I")}
    out = pairing_of(files, options={"pairing": "suffix"})
    infos = {path: [(d["severity"], d["message"]) for d in o["diagnostics"]] for path, o in out.items()}
    assert infos == {
        "g.md": [("info", "no translation in fr")], "g.es.md": [("info", "no translation in fr")],
        "h.md": [("info", "no translation in es, fr")], "i.fr.md": [("info", "no translation in en, es")],
    }  # fmt: skip


def test_missing_translations_are_those_of_the_configured_languages():
    files = {"g.md": page(title="G"), "g.es.md": page(title="G"), "h.fr.md": page(title="H")}
    out = pairing_of(files, options={"pairing": "suffix", "languages": ["en", "es"]})
    assert [o["diagnostics"] for o in out.values()] == [[], [], []]  # fr is not a language of the wiki
    out = pairing_of(files, options={"pairing": "suffix", "languages": ["en", "es", "de"]})
    assert out["g.md"]["diagnostics"][0]["message"] == "no translation in de"
