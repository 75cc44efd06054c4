"""An article's leading `# heading` that repeats its title is shown once, as the page's title, keeping its anchor."""

from __future__ import annotations

import re

import pytest

from pipeline.site.title_heading import without_title
from tests.site.helpers import build_site, read

HEADERLINK = '<a class="headerlink" href="#setup" aria-label="Link to this section" data-pagefind-ignore>#</a>'


@pytest.mark.parametrize(
    "body, title, expected",
    [
        (f'<h1 id="setup">Setup{HEADERLINK}</h1>\n<p>Text.</p>\n', "Setup", ("setup", "<p>Text.</p>\n")),
        # Markup and entities in the heading, other spacing and case in the title: the same words.
        ('<h1 id="a-b">A &amp; <code>b</code></h1>\n<p>x</p>\n', "a  & B", ("a-b", "<p>x</p>\n")),
        # Another heading, a heading that is not first, an h2: the body is left as it is.
        ('<h1 id="other">Other</h1>\n<p>x</p>\n', "Setup", ("", '<h1 id="other">Other</h1>\n<p>x</p>\n')),
        ('<p>x</p>\n<h1 id="setup">Setup</h1>\n', "Setup", ("", '<p>x</p>\n<h1 id="setup">Setup</h1>\n')),
        ('<h2 id="setup">Setup</h2>\n', "Setup", ("", '<h2 id="setup">Setup</h2>\n')),
        ("", "Setup", ("", "")),
    ],
)
def test_a_leading_heading_that_is_the_title_leaves_the_body(body, title, expected):
    title_id, rest = without_title(body, title)
    assert (title_id, str(rest)) == expected


def test_a_page_shows_its_title_once_and_links_to_the_heading_still_land(make_wiki):
    config = make_wiki({
        "setup.md": "---\ntitle: Set up\n---\n# Set up\n\nFirst steps.\n\n## Next\n\nMore.\n",
        "named.md": "# Named by its heading\n\nText.\n",  # no frontmatter title: the heading is the title
        "other.md": "---\ntitle: Other\n---\n# A different heading\n\nSee [[setup#Set up]].\n",
    })  # fmt: skip
    build_site(config)
    setup = read(config.out_dir, "setup/index.html")
    assert re.findall(r"<h1[^>]*>[^<]*", setup) == ['<h1 id="set-up">Set up']
    assert "First steps." in setup and '<h2 id="next">' in setup
    named = read(config.out_dir, "named/index.html")
    assert re.findall(r"<h1[^>]*>[^<]*", named) == ['<h1 id="named-by-its-heading">Named by its heading']
    other = read(config.out_dir, "other/index.html")
    assert re.findall(r"<h1[^>]*>[^<]*", other) == ["<h1>Other", '<h1 id="a-different-heading">A different heading']
    assert 'href="/setup/#set-up"' in other
