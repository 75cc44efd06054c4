"""The build script: what it leaves behind in the process that ran it."""

import gc

from pipeline.build import build


def test_a_build_hands_what_it_froze_back_to_the_garbage_collector(make_wiki):
    config = make_wiki({"a.md": "---\ntitle: A\n---\nSee [[b]].\n", "b.md": "---\ntitle: B\n---\nText.\n"}, search=False)
    before = gc.get_freeze_count()
    report = build(config, workers=1, site=True)
    assert report.process.wiki.results["html"]  # the build did load results (and froze them)
    assert gc.get_freeze_count() == before
