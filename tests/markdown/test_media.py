"""Embedded files as the elements a reader expects, and note embeds kept out of paragraphs."""

import re

import pytest

from pipeline.markdown import make_parser
from pipeline.markdown.media import media_html
from pipeline.markdown.wikilinks import escape_html


@pytest.mark.parametrize("target, label, fragment, html", [
    ("a/photo.png", None, None, '<img src="/f" alt="photo.png" loading="lazy">'),
    ("photo.PNG", "300", None, '<img src="/f" alt="photo.PNG" width="300" loading="lazy">'),
    ("photo.jpg", "300x200", None, '<img src="/f" alt="photo.jpg" width="300" height="200" loading="lazy">'),
    ("photo.webp", 'A "quoted" <caption>', None,
     '<img src="/f" alt="A &quot;quoted&quot; &lt;caption&gt;" loading="lazy">'),
    ("song.mp3", None, None, '<audio controls preload="metadata" src="/f" title="song.mp3"><a href="/f">song.mp3</a></audio>'),
    ("clip.webm", "640", None,
     '<video controls preload="metadata" src="/f" title="clip.webm" width="640"><a href="/f">clip.webm</a></video>'),
    ("guide.pdf", None, "page=2",
     '<object class="pdf" data="/f#page=2" type="application/pdf"><a href="/f#page=2">guide.pdf</a></object>'),
    ("data.csv", "the data", None, '<a class="attachment" href="/f">the data</a>'),
])  # fmt: skip
def test_each_kind_of_file_is_its_element(target, label, fragment, html):
    assert media_html("/f", target, label, fragment, escape_html) == html


def test_a_note_embedded_in_a_sentence_is_a_block_between_two_paragraphs_and_a_file_stays_inline():
    html = make_parser().render("See ![[Note]] and ![[photo.png|20]] here.\n\n![[Note]]\n")
    assert not re.search(r"<p>(?:(?!</p>).)*<div", html, re.S)  # no block inside a paragraph
    assert html.startswith("<p>See</p>\n<div class=\"embed")
    assert re.search(r"<p>and <a [^>]*>photo.png</a> here.</p>", html)  # unresolved: a red link, named, not `20`
    assert html.count('<div class="embed') == 2
