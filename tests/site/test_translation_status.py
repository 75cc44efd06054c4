"""Each language's translation status page: the articles it lacks, its outdated translations and how far behind
they are, and those up to date; kept current by edit builds."""

from __future__ import annotations

import dataclasses

from pipeline.build import build
from tests.conftest import folder_hashes
from tests.site.helpers import build_site, read, without_shortcuts

FILES = {
    "a.md": "---\ntitle: Apple\n---\n\nA.\n", "a.es.md": "---\ntitle: Manzana\n---\n\nA.\n",
    "b.md": "---\ntitle: Banana\n---\n\nB.\n", "b.es.md": "---\ntitle: Plátano\n---\n\nB.\n",
    "c.md": "---\ntitle: Cherry <b>\n---\n\nC.\n", "d.es.md": "---\ntitle: Dátil\n---\n\nD.\n",
}  # fmt: skip


def _sections(page: str) -> dict[str, str]:
    """The status page's three lists, by their heading's id."""
    main = page.split("<main", 1)[1]
    parts = main.split('<h2 id="')[1:]
    return {part.split('"', 1)[0]: part for part in parts}


def _same_as_a_full_build(config, tmp_path) -> None:
    """The output folder holds what a build of every page from nothing kept makes of the same wiki."""
    full = dataclasses.replace(without_shortcuts(config, tmp_path / "check"), search=False)
    build(full, workers=1, site=True, reuse=False)
    assert folder_hashes(config.out_dir) == folder_hashes(full.out_dir)


def test_each_language_lists_what_it_lacks_what_is_outdated_and_what_is_up_to_date(make_wiki, tmp_path):
    config = make_wiki(FILES, pairing="suffix")
    build_site(config)
    for number in (1, 2):  # the source changes twice after its translation
        (config.content_dir / "b.md").write_text(f"---\ntitle: Banana\n---\n\nB, edit {number}.\n")
        build_site(config)
    spanish = _sections(read(config.out_dir, "es/special/translations/index.html"))
    assert 'href="/es/b/">Plátano</a>' in spanish["outdated"] and 'href="/b/" hreflang="en">Banana</a>' in spanish["outdated"]
    assert "<td>2 cambios, 0 días</td>" in spanish["outdated"]
    assert "Cherry &lt;b&gt;" in spanish["missing"] and "Dátil" not in spanish["missing"]
    assert "Manzana" in spanish["current"] and "Plátano" not in spanish["current"]
    english = _sections(read(config.out_dir, "special/translations/index.html"))
    assert "Dátil" in english["missing"] and "(0)" in english["outdated"]
    assert "Apple" in english["current"] and "Banana" in english["current"] and "Cherry" not in english["current"]
    _same_as_a_full_build(config, tmp_path)


def test_an_edit_of_an_article_in_no_pair_leaves_the_status_pages_alone(make_wiki):
    config = make_wiki(FILES, pairing="suffix")
    build_site(config)
    (config.content_dir / "c.md").write_text("---\ntitle: Cherry <b>\n---\n\nC, edited.\n")
    written = build_site(config).site.written
    assert "c/index.html" in written and not any("translations" in rel for rel in written)



def test_a_link_made_in_an_up_to_date_translation_makes_no_status_again(make_wiki, tmp_path, monkeypatch):
    # Its page summary changed (the pages it links to), in nothing a status shows; no translation in its group is
    # outdated, so no lag to count again either.
    from pipeline.site import pages as wiki_pages

    config = make_wiki(FILES, pairing="suffix")
    build_site(config)
    made = []
    status = wiki_pages.translation_status
    monkeypatch.setattr(wiki_pages, "translation_status", lambda *args: made.append(1) or status(*args))
    (config.content_dir / "a.es.md").write_text("---\ntitle: Manzana\n---\n\nA, con [[b]].\n")
    assert "es/a/index.html" in build_site(config).site.written
    assert made == []
    _same_as_a_full_build(config, tmp_path)


def test_an_article_in_no_pair_retitled_is_listed_by_its_new_title(make_wiki, tmp_path):
    # Not in a pair, but its title is what the other language's "missing" list shows: its page summary changed.
    config = make_wiki(FILES, pairing="suffix")
    build_site(config)
    (config.content_dir / "c.md").write_text("---\ntitle: Cranberry\n---\n\nC.\n")
    assert "es/special/translations/index.html" in build_site(config).site.written
    spanish = _sections(read(config.out_dir, "es/special/translations/index.html"))
    assert "Cranberry" in spanish["missing"] and "Cherry" not in spanish["missing"]
    _same_as_a_full_build(config, tmp_path)


def test_a_pair_made_or_undone_by_an_edit_is_listed(make_wiki, tmp_path):
    # Made: the edited article is in a pair now. The page summaries that changed (two, by the pair) make the statuses again.
    config = make_wiki(FILES, pairing="suffix")
    build_site(config)
    (config.content_dir / "c.md").write_text("---\ntitle: Cherry <b>\npaired_with: d.es.md\n---\n\nC.\n")
    written = build_site(config).site.written
    assert "special/translations/index.html" in written
    english = _sections(read(config.out_dir, "special/translations/index.html"))
    assert "Dátil" not in english["missing"] and "Cherry &lt;b&gt;" in english["current"]
    # Undone: neither article is in a pair any more, so only the changed page summaries tell.
    (config.content_dir / "c.md").write_text("---\ntitle: Cherry <b>\n---\n\nC.\n")
    assert "special/translations/index.html" in build_site(config).site.written
    english = _sections(read(config.out_dir, "special/translations/index.html"))
    assert "Dátil" in english["missing"] and "Cherry" not in english["current"]
    _same_as_a_full_build(config, tmp_path)
