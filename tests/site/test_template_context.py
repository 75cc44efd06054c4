"""What an article's template reads: its frontmatter and every pass's output, custom passes included
(`page.frontmatter`, `page.passes.<pass>`), and the page is rendered again when one of them changes."""

from __future__ import annotations

import shutil

from conftest import REPO
from pipeline.build import build
from pipeline.config import load_config
from tests.site.helpers import read

TEMPLATE = """{% extends "base.html" %}
{% block content %}
<h1>{{ page.title }}</h1>
<p class="reading">{{ page.passes.reading_time.minutes }} min, {{ page.passes.reading_time.words }} words</p>
<p class="author">{{ page.frontmatter.author | default("nobody") }}</p>
<p class="shown">{% for name, version in page.passes %}{{ name }} {% endfor %}</p>
<p class="unknown">{{ page.passes.no_such_pass is defined }}</p>
{% endblock %}
"""


def wiki(tmp_path, words_per_minute: int = 200):
    content = tmp_path / "content"
    if not content.exists():  # (a second call changes wiki.yaml only)
        content.mkdir()
        (content / "long.md").write_text("---\ntitle: Long\nauthor: Ada <ada@example.org>\n---\n" + "word " * 450)
        (content / "short.md").write_text("---\ntitle: Short\n---\nthree small words\n")
    (tmp_path / "theme").mkdir(exist_ok=True)
    (tmp_path / "theme" / "article.html").write_text(TEMPLATE)
    shutil.copy(REPO / "examples" / "reading_time.py", tmp_path / "reading_time.py")
    (tmp_path / "wiki.yaml").write_text(
        "content_dir: content\nstate_dir: state\nout_dir: site\nsearch: false\ntemplates_dir: theme\n"
        f"passes:\n  - reading_time.py: {{words_per_minute: {words_per_minute}}}\n"
    )
    return load_config(tmp_path / "wiki.yaml")


def test_a_template_shows_a_custom_pass_output_and_the_frontmatter(tmp_path):
    config = wiki(tmp_path)
    build(config, workers=1, site=True)
    long = read(config.out_dir, "long/index.html")
    assert '<p class="reading">2 min, 450 words</p>' in long
    assert '<p class="author">Ada &lt;ada@example.org&gt;</p>' in long  # content: escaped
    assert "metadata" in long.partition('class="shown">')[2].partition("</p>")[0]  # iterated: the provenance
    assert '<p class="unknown">False</p>' in long
    assert '<p class="author">nobody</p>' in read(config.out_dir, "short/index.html")


def test_the_page_is_rendered_again_when_the_pass_output_it_shows_changes(tmp_path):
    config = wiki(tmp_path)
    build(config, workers=1, site=True)
    (config.content_dir / "short.md").write_text("---\ntitle: Short\nauthor: Grace\n---\n" + "word " * 600)
    report = build(config, workers=1, site=True)
    assert "short/index.html" in report.site.written and "long/index.html" not in report.site.written
    short = read(config.out_dir, "short/index.html")
    assert '<p class="reading">3 min, 600 words</p>' in short and '<p class="author">Grace</p>' in short
    # An option of the pass changes its outputs and nothing else the pages are made of: each is rendered again.
    config = wiki(tmp_path, words_per_minute=90)
    report = build(config, workers=1, site=True)
    assert {"long/index.html", "short/index.html"} <= set(report.site.written)
    assert '<p class="reading">5 min, 450 words</p>' in read(config.out_dir, "long/index.html")
    assert '<p class="reading">7 min, 600 words</p>' in read(config.out_dir, "short/index.html")
