"""Exact incremental invalidation: after each kind of edit, exactly these jobs run again."""

import dataclasses

import pytest

from pipeline.build import build, passes_for

FILES = {
    "a.md": "---\ntitle: Alpha\npaired_with: a.es.md\n---\nAlpha links [[b]], [[c#intro]] and [[d]].\n",
    "a.es.md": "---\ntitle: Alfa\npaired_with: a.md\n---\nAlfa enlaza [[b]].\n",
    "b.md": "---\ntitle: Beta\n---\nBeta text, near gamma.\n",
    "c.md": "---\ntitle: Gamma\n---\n## Intro\n\nGamma text.\n\n## Other\n",
}


@pytest.fixture
def wiki(make_wiki):
    config = make_wiki(FILES)
    build(config, workers=1)

    def rebuild(**changes):
        for path, text in changes.items():
            (config.content_dir / path).write_text(text)
        return set(build(config, workers=1).process.created_passes)

    return config, rebuild


def every_pass(path, config):
    return {(path, spec.name) for spec in passes_for(config)}


def registered(jobs, config):
    names = {spec.name for spec in passes_for(config)}
    return {job for job in jobs if job[1] in names}


def test_nothing_changed_runs_nothing(wiki):
    config, rebuild = wiki
    assert rebuild() == set()


def test_editing_a_body_reruns_only_that_article(wiki):
    config, rebuild = wiki
    assert rebuild(**{"b.md": "---\ntitle: Beta\n---\nBeta text, edited.\n"}) == every_pass("b.md", config)


def test_changing_a_title_reruns_the_article_and_mentions_of_prose_holding_its_words(wiki):
    config, rebuild = wiki
    jobs = rebuild(**{"c.md": FILES["c.md"].replace("Gamma\n---", "Gamma Ray\n---")})
    # b.md's prose held the old title (it holds no title now); a.md's neither.
    assert jobs == every_pass("c.md", config) | {("b.md", "mentions")}
    assert rebuild(**{"c.md": FILES["c.md"].replace("Gamma\n---", "Gamma Rays\n---")}) == every_pass("c.md", config)


def test_adding_an_article_that_resolves_a_broken_link(wiki):
    config, rebuild = wiki
    jobs = rebuild(**{"d.md": "---\ntitle: Delta\n---\nNew.\n"})
    # No prose holds "delta" (a.md's [[d]] is a link, not prose): no mentions job runs again.
    expected = every_pass("d.md", config) | {("a.md", "wikilinks"), ("a.md", "html")}
    assert jobs == registered(expected, config)
    jobs = rebuild(**{"e.md": "---\ntitle: Beta Text\n---\nNew.\n"})
    assert jobs == every_pass("e.md", config) | {("b.md", "mentions")}


def test_renaming_a_heading_another_article_links_to(wiki):
    config, rebuild = wiki
    jobs = rebuild(**{"c.md": FILES["c.md"].replace("## Intro", "## Introduction")})
    # a.md's link now reports a broken anchor, but its URL (`c/#intro`) and so a.md's html do not change.
    expected = every_pass("c.md", config) | {("a.md", "wikilinks")}
    assert jobs == registered(expected, config)


def test_renaming_a_heading_nobody_links_to(wiki):
    config, rebuild = wiki
    assert rebuild(**{"c.md": FILES["c.md"].replace("## Other", "## Others")}) == every_pass("c.md", config)


def test_bumping_a_pass_version_reruns_that_pass_everywhere(wiki, monkeypatch):
    config, rebuild = wiki
    from pipeline.passes import headings

    monkeypatch.setattr(headings, "PASS", dataclasses.replace(headings.PASS, version=headings.PASS.version + 1))
    assert rebuild() == {(path, "headings") for path in FILES}
