"""Page summaries: what a page takes of its metadata, wikilinks and pairing results, kept between builds."""

from __future__ import annotations

import pickle

from pipeline.build import passes_for
from pipeline.content.facts import gather
from pipeline.incremental.page_summaries import CODE, PageSummary, PageSummaries, load_summaries, save_summaries, summary_of
from pipeline.site import PAGE_SUMMARIES
from pipeline.site import model as site_model
from pipeline.site.model import build_model
from pipeline.site.page_digests import digest
from pipeline.storage.store import open_store
from tests.site.helpers import SITE, build_site


def _model_digest(model) -> str:
    return digest((model.articles, model.broken, model.languages, model.conflicts))


def _edited(make_wiki, monkeypatch, edits: dict[str, str]):
    """The SITE wiki built, then built again after `edits`: (config, report, the page summaries that build made)."""
    config = make_wiki(SITE)
    build_site(config)
    made = []
    monkeypatch.setattr(site_model, "summary_of", lambda *outputs: made.append(outputs) or summary_of(*outputs))
    for path, text in edits.items():
        (config.content_dir / path).write_text(text)
    return config, build_site(config), made


def test_a_model_from_the_kept_page_summaries_is_the_model_from_the_outputs(make_wiki, monkeypatch):
    # Beta now links elsewhere and to a red link; Alfa no longer names its pair.
    config, report, made = _edited(make_wiki, monkeypatch, {
        "beta.md": "---\ntitle: Beta\ncategories: [guides]\n---\n\n[[evil]], [[gone]].\n",
        "alpha.es.md": "---\ntitle: Alfa\ncategory: guides\n---\n\nAlfa.\n",
    })  # fmt: skip
    assert report.site.written and len(made) == 3  # beta and alfa, and alpha (its pair is one-way now)
    wiki, conn = report.process.wiki, open_store(config.state_db)
    log, versions = gather(conn, config.content_dir).log, {spec.name: spec.version for spec in passes_for(config)}
    conn.close()
    kept = build_model(wiki, log, versions, load_summaries(config.state_dir / PAGE_SUMMARIES))
    assert _model_digest(kept) == _model_digest(build_model(wiki, log, versions))  # every page summary made anew
    beta = kept.by_path()["beta.md"]
    assert [link.title for link in kept.by_path()["evil.md"].backlinks] == ["Beta"]
    assert beta.category_names == ["guides"]
    assert ("Beta", "gone") in [(source.title, target) for source, target in kept.broken]


def test_a_build_makes_no_page_summary_it_kept(make_wiki, monkeypatch):
    body = '---\ntitle: "<script>alert(1)</script>"\n---\n\nA new body.\n'
    _, report, made = _edited(make_wiki, monkeypatch, {"evil.md": body})
    assert report.site.written and made == []  # a body edit leaves the three results as they were


SUMMARY = PageSummary("T", "t", "en", "t/", None, ["A"], ["c"], False, ["x.md"], ["gone"], [], {"status": "current"})


def test_kept_page_summaries_load_back_and_other_code_or_a_broken_file_loads_none(tmp_path):
    path = tmp_path / PAGE_SUMMARIES
    path.with_suffix(".json").write_text("{}")  # an earlier version's file
    summaries = PageSummaries()
    assert summaries.take(["k"], lambda ats: [SUMMARY] * len(ats)) == [SUMMARY]
    assert summaries.changed
    save_summaries(path, summaries)
    assert not path.with_suffix(".json").exists()
    loaded = load_summaries(path)
    assert loaded.known == {"k": SUMMARY} and loaded.take(["k"], lambda ats: [None] * len(ats)) == [SUMMARY] and not loaded.changed
    fields = [[value] for value in SUMMARY]
    path.write_bytes(pickle.dumps({"code": "other" + CODE, "keys": ["k"], "fields": fields}))
    assert load_summaries(path).known == {}
    for broken in (b"{", pickle.dumps([]), pickle.dumps({"code": CODE, "keys": ["k"], "fields": [["T"]]})):
        path.write_bytes(broken)
        assert load_summaries(path).known == {}
    assert load_summaries(tmp_path / "missing.json").known == {}


def test_kept_page_summaries_read_back_each_string_they_share_as_one(tmp_path):
    path = tmp_path / PAGE_SUMMARIES
    summaries = PageSummaries()
    made = lambda: "".join(["guides/", "setup.md"])  # noqa: E731 (a new string each time)
    one, two = (SUMMARY._replace(linked=[made()], pair_paths=[made()]) for _ in "12")
    assert one.linked[0] is not two.linked[0]  # equal, made apart (as two results' JSON gives them)
    summaries.take(["k1", "k2"], lambda ats: [[one, two][at] for at in ats])
    save_summaries(path, summaries)
    known = load_summaries(path).known
    assert known == {"k1": one, "k2": two}
    assert known["k1"].linked[0] is known["k2"].linked[0] is known["k2"].pair_paths[0]  # written once, read once


def test_outputs_known_by_no_digest_make_their_page_summary_each_time():
    summaries, made = PageSummaries({"k": SUMMARY}), []
    other = SUMMARY._replace(title="U")
    # Made for each key unknown (once for a key met twice), each time for no key; found for a known key: asked of
    # `make` at once.
    taken = summaries.take([None, "k", "new", None, "new"],
                           lambda ats: made.append(ats) or [SUMMARY if at == 0 else other for at in ats])  # fmt: skip
    assert taken == [SUMMARY, SUMMARY, other, other, other] and made == [[0, 2, 3]]
    assert summaries.used == {"k": SUMMARY, "new": other}


def test_what_other_pages_show_of_a_page_summary_leaves_out_its_outdated_banner():
    outputs = ({"title": "T", "slug": "t", "lang": "es", "url": "es/t/"}, None, {"translations": [{"path": "t.md"}], "outdated": None})
    summary = summary_of(*outputs)
    lagging = summary_of(*outputs[:2], {**outputs[2], "outdated": {"source_path": "t.md", "message": "lags"}})
    retitled = summary_of({**outputs[0], "title": "U"}, *outputs[1:])
    assert summary.shared == lagging.shared and summary.shared != retitled.shared and len(summary.shared) == 32
