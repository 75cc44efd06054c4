"""A wiki's data files are validated once: a bad entry is reported once, and links and pages see the same entries."""

from __future__ import annotations

from tests.site.helpers import build_site, read

REDIRECTS = """redirects:
  - from: /old-alpha
    to: /alpha
  - from: /Old Alpha
    to: /beta
  - from: /nowhere
  - from: /old-beta
    to: /beta
"""


def test_a_bad_redirect_is_reported_once_and_links_and_redirect_pages_follow_the_same_entries(make_wiki):
    config = make_wiki({
        "alpha.md": "---\ntitle: Alpha\n---\n\nBody.\n",
        "beta.md": "---\ntitle: Beta\n---\n\nBody.\n",
        "gamma.md": "---\ntitle: Gamma\n---\n\nSee [[Old Alpha]] and [[old-beta]] and [[nowhere]].\n",
        "redirects.yaml": REDIRECTS,
        "categories.yaml": "categories:\n  - id: guides\n    order: soon\n",
    })  # fmt: skip
    report = build_site(config)
    problems = [(d.path, d.line, d.message) for d in report.process.diagnostics if d.code == "data-error"]
    assert problems == [
        ("categories.yaml", 2, "the category 'guides' has a `order` that is not a number"),
        ("redirects.yaml", 4, "a redirect from '/Old Alpha' is already given at line 2"),
        ("redirects.yaml", 6, "the redirect from '/nowhere' has no `to` path or URL"),
    ]
    gamma = read(config.out_dir, "gamma/index.html")
    # The first entry for `old alpha` wins for links as for the redirect page; the one after it is left out.
    assert '<a href="/alpha/" class="wikilink">Old Alpha</a>' in gamma
    assert '<a href="/beta/" class="wikilink">old-beta</a>' in gamma
    assert 'class="new"' in gamma and "nowhere" in gamma  # the entry with no `to` redirects nowhere
    assert 'url=/alpha/"' in read(config.out_dir, "old-alpha/index.html")
    assert 'url=/beta/"' in read(config.out_dir, "old-beta/index.html")
    assert not (config.out_dir / "nowhere").exists()
    assert read(config.out_dir, "category/guides/index.html")  # a declared category despite its bad order


def test_passes_run_again_when_a_redirect_changes_and_not_for_a_comment_or_a_left_out_entry(make_wiki):
    files = {"alpha.md": "---\ntitle: Alpha\n---\n\nSee [[old-alpha]].\n", "beta.md": "---\ntitle: Beta\n---\n\nB.\n"}
    config = make_wiki({**files, "redirects.yaml": "- from: /old-alpha\n  to: /alpha\n"})
    build_site(config)
    moved = "# moved pages\n\n- from: /old-alpha\n  to: /alpha\n- to: /beta\n"  # a comment, a blank line, a bad entry
    (config.content_dir / "redirects.yaml").write_text(moved)
    same = build_site(config)
    assert not same.process.skipped and same.process.created_passes == []
    assert [(d.path, d.line) for d in same.process.diagnostics if d.code == "data-error"] == [("redirects.yaml", 5)]
    (config.content_dir / "redirects.yaml").write_text("- from: /old-alpha\n  to: /beta\n")
    changed = build_site(config)
    assert ("alpha.md", "wikilinks") in changed.process.created_passes
    assert '<a href="/beta/" class="wikilink">old-alpha</a>' in read(config.out_dir, "alpha/index.html")
