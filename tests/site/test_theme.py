"""The theme's words, language switcher, search overlay markup, per-language 404 pages and page information."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re

import pytest

from pipeline.build import build
from pipeline.errors import ConfigError
from pipeline.site import search
from pipeline.site.theme import STRINGS, check_ui_strings, language_name, strings
from tests.conftest import folder_hashes
from tests.site.helpers import SITE, build_site, read, site, without_shortcuts  # noqa: F401 (`site`)
from tests.site.test_search import listing


def test_every_built_in_language_has_every_word():
    assert {lang: set(words) for lang, words in STRINGS.items()} == {lang: set(STRINGS["en"]) for lang in STRINGS}


def test_words_fall_back_to_english_and_ui_strings_override_them():
    assert strings("fr") == STRINGS["en"]
    assert strings("es-MX")["home"] == "Página principal"  # its base language's
    overrides = {"en": {"home": "Start"}, "pt": {"home": "Início", "search": "Buscar"},
                 "pt-br": {"search": "Pesquisar"}}  # fmt: skip
    assert strings("en", overrides)["home"] == "Start"
    assert strings("es", overrides)["home"] == "Página principal"  # an English override is not Spanish
    assert strings("fr", overrides)["home"] == "Start"  # English, as the wiki says it
    brazilian = strings("pt-br", overrides)
    assert (brazilian["home"], brazilian["search"], brazilian["skip"]) == ("Início", "Pesquisar", "Skip to content")


def test_a_language_is_named_by_its_own_word_else_by_what_it_calls_itself_else_by_its_tag():
    assert (language_name("en"), language_name("es"), language_name("en-gb")) == ("English", "Español", "English")
    assert language_name("fr", {"fr": {"language_name": "Le français"}}) == "Le français"  # wiki.yaml's first
    # The Unicode CLDR's name, in the language itself, with a capital as language lists show it.
    assert [language_name(tag) for tag in ("fr", "de", "ja", "pt-br")] == ["Français", "Deutsch", "日本語", "Português (Brasil)"]
    assert language_name("qq-zz") == "qq-zz"  # a tag the CLDR does not know


def test_an_unknown_word_key_is_refused_with_the_closest_one():
    check_ui_strings({"es": {"search": "Busca"}})
    with pytest.raises(ConfigError, match=r"ui_strings: es: unknown key 'serch' \(did you mean search\?\)"):
        check_ui_strings({"es": {"serch": "Busca"}})


def test_a_build_with_an_unknown_word_key_fails_in_one_line(make_wiki):
    config = make_wiki({"a.md": "# A\n"}, ui_strings={"en": {"hom": "Start"}})
    with pytest.raises(ConfigError, match="did you mean home"):
        build_site(config)


def _script_words(html: str) -> dict:
    tag = '<script type="application/json" id="ui-strings">'
    start = html.index(tag) + len(tag)
    return json.loads(html[start : html.index("</script>", start)])


def _switcher(html: str) -> str:
    assert html.count('class="language-switcher"') == 1  # one switcher: none in the sidebar or the article body
    start = html.index('<details class="language-switcher">')
    return html[start : html.index("</details>", start)]


def test_the_language_switcher_sits_beside_the_title_and_leads_to_the_counterpart(site):
    config, _ = site
    html = read(config.out_dir, "alpha/index.html")
    assert re.search(r'<div class="page-title">\s*<h1>Alpha</h1>\s*<details class="language-switcher">', html)
    switcher = _switcher(html)
    assert "<span>English</span></summary>" in switcher
    assert '<a href="/es/alpha/" hreflang="es" lang="es" rel="alternate">Español</a>' in switcher
    assert "site-languages" not in html
    spanish = _switcher(read(config.out_dir, "es/alpha/index.html"))
    assert "<span>Español</span>" in spanish
    assert '<a href="/alpha/" hreflang="en" lang="en" rel="alternate">English</a>' in spanish


def test_without_a_counterpart_the_switcher_says_so_and_offers_that_language_s_home(site):
    config, _ = site
    switcher = _switcher(read(config.out_dir, "beta/index.html"))
    assert 'class="not-translated"><span lang="es">Español</span>: not translated' in switcher
    assert '<a href="/es/" hreflang="es" lang="es">Página principal</a>' in switcher
    assert 'rel="alternate"' not in switcher
    listing_page = _switcher(read(config.out_dir, "special/all/index.html"))  # a wiki page has its counterpart
    assert '<a href="/es/special/all/" hreflang="es" lang="es" rel="alternate">Español</a>' in listing_page


def test_a_single_language_wiki_has_no_switcher(make_wiki):
    config = make_wiki({"a.md": "---\ntitle: A\n---\n\nText.\n"})
    build_site(config)
    assert "language-switcher" not in read(config.out_dir, "a/index.html").split("</head>")[1]


def test_each_language_has_its_404_page(site):
    config, _ = site
    english, spanish = read(config.out_dir, "404.html"), read(config.out_dir, "es/404.html")
    assert '<html lang="en">' in english and "<h1>Page not found</h1>" in english
    assert '<a href="/">Main page</a> ·\n<a href="/special/all/">All pages</a>' in english
    assert '<a href="/es/" hreflang="es" lang="es">Español: Página principal</a>' in english
    assert '<html lang="es">' in spanish and "<h1>Página no encontrada</h1>" in spanish
    assert '<a href="/es/">Página principal</a> ·\n<a href="/es/special/all/">Todas las páginas</a>' in spanish
    assert '<meta name="robots" content="noindex">' in spanish and "Buscar" in spanish


def test_provenance_is_on_the_history_page_not_in_the_footer(site):
    config, _ = site
    sha = hashlib.sha256(SITE["alpha.md"].encode()).hexdigest()
    html = read(config.out_dir, "alpha/index.html")
    footer = html[html.index('<footer class="site-footer">') :]
    assert sha[:12] not in html and "@" not in footer
    assert re.search(r'Last updated: <time datetime="\d{4}-\d\d-\d\dT', footer)
    assert '<a href="/alpha/history/">History</a>' in footer
    assert '<a href="/alpha/history/#page-information">Page information</a>' in footer
    history = read(config.out_dir, "alpha/history/index.html")
    information = history[history.index('id="page-information"') :]
    assert f'<code class="hash">{sha}</code>' in information and "<code>alpha.md</code>" in information
    for name in ("metadata", "headings", "pairing", "citations", "wikilinks", "html"):
        assert re.search(rf"<code>{name}@\d+</code>", information), name
    assert "Información de la página" in read(config.out_dir, "es/alpha/history/index.html")
    switcher = _switcher(history)  # to the translation's history page
    assert '<a href="/es/alpha/history/" hreflang="es" lang="es" rel="alternate">Español</a>' in switcher


def test_ui_strings_override_words_and_add_a_language(make_wiki):
    files = {**SITE, "gamma.fr.md": "---\ntitle: Gamma\n---\n\nTexte.\n"}
    words = {"fr": {"language_name": "Français", "home": "Accueil", "not_found": "Page introuvable",
                    "translation_status": "État des traductions", "history_of": "Historique de"},
             "es": {"search": "Busca aquí"}}  # fmt: skip
    config = make_wiki(files, languages=["en", "es", "fr"], ui_strings=words)
    build_site(config)
    out = config.out_dir
    french = read(out, "fr/gamma/index.html")
    assert "Accueil" in french and "Skip to content" in french  # the rest in English
    assert "<span>Français</span></summary>" in french
    assert "<h1>Page introuvable</h1>" in read(out, "fr/404.html")
    assert "<title>État des traductions · " in read(out, "fr/special/translations/index.html")  # every page's title
    assert "<title>Historique de Gamma · " in read(out, "fr/gamma/history/index.html")
    assert 'class="search-button"' not in read(out, "es/alpha/index.html")  # the search is off: no button
    assert '<a href="/fr/" hreflang="fr" lang="fr">Accueil</a>' in _switcher(read(out, "alpha/index.html"))
    assert _script_words(read(out, "es/alpha/index.html"))["search"]["placeholder"] == "Busca aquí"  # the scripts' too


def test_the_search_is_an_overlay_with_its_shortcuts_and_q_hook(make_wiki, monkeypatch):
    monkeypatch.setattr(search, "pagefind", listing)
    config = make_wiki(SITE)
    build_site(config, search=True)
    html = read(config.out_dir, "es/alpha/index.html")
    assert '<button type="button" class="search-button" aria-haspopup="dialog" aria-controls="search-dialog"' in html
    assert 'aria-keyshortcuts="/ Control+K"' in html
    dialog = html[html.index('<dialog id="search-dialog"') : html.index("</dialog>")]
    assert '<div id="search" class="search" role="search" aria-label="Buscar"></div>' in dialog
    assert _script_words(html)["search"]["zero_results"] == "No hay resultados para [SEARCH_TERM]"
    script = read(config.out_dir, "assets/search.js")
    assert 'new URLSearchParams(window.location.search).get("q")' in script and "ui.triggerSearch(query)" in script
    assert "mergeIndex" in script and "window.pipelineSearchShards" in script  # the shard loader kept


def test_the_theme_choice_is_applied_before_anything_is_drawn(site):
    config, _ = site
    head = read(config.out_dir, "alpha/index.html").split("</head>")[0]
    inline = head.index('localStorage.getItem("pipeline-theme")')
    assert head.index('assets/theme.css"') < inline and "<script src" not in head[inline - 200 : inline]
    assert '<button type="button" class="theme-toggle" aria-pressed="false"' in read(config.out_dir, "alpha/index.html")
    theme = read(config.out_dir, "assets/theme.css")
    assert ':root[data-theme="dark"]' in theme and ':root:not([data-theme="light"])' in theme


def test_an_edit_shows_on_its_history_page_s_information(site):
    config, _ = site
    (config.content_dir / "alpha.md").write_text(SITE["alpha.md"] + "\nOne more line.\n", encoding="utf-8")
    report = build_site(config)
    sha = hashlib.sha256((SITE["alpha.md"] + "\nOne more line.\n").encode()).hexdigest()
    assert "alpha/history/index.html" in report.site.written and "beta/history/index.html" not in report.site.written
    assert f'<code class="hash">{sha}</code>' in read(config.out_dir, "alpha/history/index.html")


def test_a_new_translation_turns_its_counterpart_s_switcher_into_a_link(site, tmp_path):
    config, _ = site
    (config.content_dir / "beta.es.md").write_text("---\ntitle: Beta ES\npaired_with: beta.md\n---\n\nHola.\n")
    build_site(config)
    switcher = _switcher(read(config.out_dir, "beta/index.html"))
    assert '<a href="/es/beta/" hreflang="es" lang="es" rel="alternate">Español</a>' in switcher
    assert "not-translated" not in switcher
    clean = without_shortcuts(config, tmp_path / "clean")
    build(dataclasses.replace(clean, search=False), workers=1, site=True, reuse=False)
    assert folder_hashes(config.out_dir) == folder_hashes(clean.out_dir)


@pytest.mark.slow
def test_changed_ui_strings_give_the_site_of_a_clean_build(make_wiki, tmp_path):
    config = make_wiki(SITE)
    for number, words in enumerate([{}, {"es": {"home": "Portada"}}, {"es": {"home": "Inicio"}}, {}]):
        config = dataclasses.replace(config, ui_strings=words)
        build_site(config)
        clean = without_shortcuts(config, tmp_path / f"clean-{number}")
        build(dataclasses.replace(clean, search=False), workers=1, site=True, reuse=False)
        assert folder_hashes(config.out_dir) == folder_hashes(clean.out_dir), words
        expected = words.get("es", {}).get("home", "Página principal")
        assert f'<a href="/es/" hreflang="es" lang="es">{expected}</a>' in read(config.out_dir, "beta/index.html")
