"""Exact incremental invalidation: after each kind of edit, exactly these jobs run again."""

import pytest

from pipeline.build import build, passes_for

FILES = {
    "a.md": "---\ntitle: Alpha\npaired_with: a.es.md\n---\nAlpha links [[b]], [[c#intro]] and [[d]].\n",
    "a.es.md": "---\ntitle: Alfa\npaired_with: a.md\n---\nAlfa enlaza [[b]].\n",
    "b.md": "---\ntitle: Beta\n---\nBeta text.\n",
    "c.md": "---\ntitle: Gamma\n---\n## Intro\n\nGamma text.\n\n## Other\n",
}


@pytest.fixture
def wiki(make_wiki):
    config = make_wiki(FILES)
    build(config, workers=1)

    def rebuild(**changes):
        for path, text in changes.items():
            (config.content_dir / path).write_text(text)
        return set(build(config, workers=1).process.created_jobs)

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


def test_changing_a_title_reruns_the_article_and_mentions_of_its_language(wiki):
    config, rebuild = wiki
    jobs = rebuild(**{"c.md": FILES["c.md"].replace("Gamma\n---", "Gamma Ray\n---")})
    assert jobs == every_pass("c.md", config) | {("a.md", "mentions"), ("b.md", "mentions")}


def test_adding_an_article_that_resolves_a_broken_link(wiki):
    config, rebuild = wiki
    jobs = rebuild(**{"d.md": "---\ntitle: Delta\n---\nNew.\n"})
    expected = every_pass("d.md", config) | {("a.md", "wikilinks"), ("a.md", "html")}
    expected |= {(path, "mentions") for path in ("a.md", "b.md", "c.md")}  # the English title index grew
    assert jobs == registered(expected, config)


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

    monkeypatch.setattr(headings, "VERSION", headings.VERSION + 1)
    assert rebuild() == {(path, "headings") for path in FILES}
