"""The Atom feed of each language's recent changes: valid Atom (parsed here), absolute under `site_url`, linked from
every page of its language, and current after an edit."""

from __future__ import annotations

import xml.etree.ElementTree as ElementTree

from tests.site.helpers import SITE, build_site, read

ATOM = "{http://www.w3.org/2005/Atom}"


def feed(out, rel: str) -> ElementTree.Element:
    root = ElementTree.fromstring((out / rel).read_bytes())
    assert root.tag == f"{ATOM}feed"
    for required in ("id", "title", "updated", "author"):  # what RFC 4287 requires of a feed
        assert root.find(f"{ATOM}{required}") is not None, required
    for entry in root.iter(f"{ATOM}entry"):
        assert all(entry.find(f"{ATOM}{name}") is not None for name in ("id", "title", "updated"))
    return root


def entries(root) -> list[tuple[str, str, str]]:
    return [(entry.findtext(f"{ATOM}title"), entry.findtext(f"{ATOM}id"),
             (entry.find(f"{ATOM}link") if entry.find(f"{ATOM}link") is not None else {}).get("href", ""))
            for entry in root.iter(f"{ATOM}entry")]  # fmt: skip


def test_each_language_has_a_valid_feed_of_its_recent_changes(make_wiki):
    config = make_wiki(SITE, search=False)
    build_site(config)
    english, spanish = feed(config.out_dir, "feed.xml"), feed(config.out_dir, "es/feed.xml")
    titles = {title for title, _, _ in entries(english)}
    # Escaped, and parsed back.
    assert {"Alpha (created)", "Beta (created)", "<script>alert(1)</script> (created)"} <= titles
    assert [title for title, _, _ in entries(spanish)] == ["Alfa (creada)"]
    assert english.get("{http://www.w3.org/XML/1998/namespace}lang") == "en"
    hrefs = {href for _, _, href in entries(english)}
    assert "/alpha/" in hrefs  # without site_url: paths of the site
    ids = [identity for _, identity, _ in entries(english)]
    assert len(set(ids)) == len(ids) and all(identity.startswith("urn:uuid:") for identity in ids)
    alpha = read(config.out_dir, "alpha/index.html")
    assert '<link rel="alternate" type="application/atom+xml" title="Recent changes · Wiki" href="/feed.xml">' in alpha
    assert 'type="application/atom+xml" title="Cambios recientes · Wiki" href="/es/feed.xml"' in read(
        config.out_dir, "es/alpha/index.html")  # fmt: skip


def test_with_site_url_every_feed_link_is_absolute_and_an_edit_adds_an_entry(make_wiki):
    config = make_wiki(SITE, search=False, site_url="https://wiki.example.org/docs")
    build_site(config)
    first = feed(config.out_dir, "feed.xml")
    assert first.find(f"{ATOM}link[@rel='self']").get("href") == "https://wiki.example.org/docs/feed.xml"
    assert all(href.startswith("https://wiki.example.org/docs/") for _, _, href in entries(first))
    before = {identity for _, identity, _ in entries(first)}
    (config.content_dir / "beta.md").write_text(SITE["beta.md"].replace("Body.", "Edited."), encoding="utf-8")
    report = build_site(config)
    assert "feed.xml" in report.site.written and "es/feed.xml" not in report.site.written
    after = entries(feed(config.out_dir, "feed.xml"))
    assert after[0][0] == "Beta (edited)" and after[0][1] not in before  # the newest first, a new id
    assert {identity for _, identity, _ in after} >= before  # the earlier changes keep theirs


def test_feeds_false_turns_them_off_and_pages_link_no_feed(make_wiki):
    config = make_wiki(SITE, search=False, emitters=[{"feeds": False}])
    build_site(config)
    assert not (config.out_dir / "feed.xml").exists()
    assert "application/atom+xml" not in read(config.out_dir, "alpha/index.html")
