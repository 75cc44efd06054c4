"""End to end: headless Chromium against `pipeline serve` follows a wikilink, switches language and searches
(the driver: tests/e2e/chromium.py)."""

from __future__ import annotations

import threading

import pytest

from conftest import write_files
from tests.e2e.chromium import Browser, chromium, serve

pytestmark = pytest.mark.slow  # a whole wiki built: outside the fast tier

SITE = {
    "index.md": "---\ntitle: Home\npaired_with: index.es.md\n---\n\nWelcome. Read about [[Gardening]].\n",
    "index.es.md": (
        "---\ntitle: Inicio\npaired_with: index.md\n---\n\nBienvenido. Lee sobre [[Gardening|jardinería]].\n"
    ),
    "gardening.md": "---\ntitle: Gardening\npaired_with: gardening.es.md\n---\n\nTomatoes need sunlight.\n",
    "gardening.es.md": "---\ntitle: Jardinería\npaired_with: gardening.md\n---\n\nLos tomates necesitan sol.\n",
    "compost.md": "---\ntitle: Compost\npaired_with: compost.es.md\n---\n\nWorms turn peelings into humus.\n",
    "compost.es.md": (
        "---\ntitle: Compostaje\npaired_with: compost.md\n---\n\nLas lombrices convierten las mondaduras en humus.\n"
    ),
}


@pytest.fixture
def served(tmp_path):
    """`pipeline serve` over the inline SITE on a free loopback port; yields its URL."""
    write_files(tmp_path / "content", SITE)
    with serve(tmp_path / "content", tmp_path) as url:
        yield url


@pytest.fixture
def browser(tmp_path):
    binary = chromium()
    browser = Browser(binary, tmp_path / "profile")
    yield browser
    browser.close()


def test_wikilink_language_switch_and_search(served, browser):
    browser.goto(served)
    browser.wait_for("document.readyState === 'complete' && document.title.startsWith('Home')", "the home page")

    browser.click("a.wikilink[href='/gardening/']")
    browser.wait_for("location.pathname === '/gardening/' && document.querySelector('h1').textContent === 'Gardening'",
                     "the wikilink's target page")  # fmt: skip

    browser.click(".language-switcher summary")  # the switcher beside the title opens
    browser.click(".language-switcher a[hreflang='es']")
    assert browser.wait_for("location.pathname === '/es/gardening/' && document.documentElement.lang",
                            "the Spanish page") == "es"  # fmt: skip
    assert browser.wait_for("document.querySelector('h1').textContent", "the Spanish title") == "Jardinería"

    browser.click(".search-button")  # the search overlay opens
    browser.type("#search input.pagefind-ui__search-input", "humus")  # in both languages
    hrefs = browser.wait_for(
        "(() => { const links = [...document.querySelectorAll('.pagefind-ui__result-link')]"
        ".map(a => a.getAttribute('href')); return links.length ? links : null; })()",
        "a search result",
    )
    assert hrefs == ["/es/compost/"]  # the Spanish index only: not /compost/
    browser.click(".pagefind-ui__result-link")
    browser.wait_for("location.pathname === '/es/compost/' && document.documentElement.lang === 'es'", "the result")


@pytest.fixture
def static(tmp_path):
    """A plain static server (standard library) over `tmp_path / "site"`, as a host would serve the output; yields its URL."""
    import functools
    from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

    (tmp_path / "site").mkdir()
    quiet = type("Quiet", (SimpleHTTPRequestHandler,), {"log_message": lambda self, *args: None})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(quiet, directory=str(tmp_path / "site")))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/"
    server.shutdown()
    server.server_close()


def test_search_finds_pages_in_every_shard_of_the_page_s_language(tmp_path, static, browser, monkeypatch):
    from pipeline.build import build
    from pipeline.config import Config
    from pipeline.site import shards

    monkeypatch.setattr(shards, "SHARD_PAGES", 1)  # a shard a page, or nearly: hashes may share one
    content = tmp_path / "content"
    content.mkdir()
    for n in range(4):
        (content / f"bed{n}.md").write_text(f"---\ntitle: Bed {n}\n---\n\nRaised bed {n} holds loam.\n")
    (content / "cama.es.md").write_text("---\ntitle: Cama\n---\n\nLa cama tiene loam.\n")
    config = Config(content_dir=content, state_dir=tmp_path / "state", out_dir=tmp_path / "site", search=True)
    assert build(config, workers=1, site=True).site.indexed
    assert len(list((config.out_dir / "pagefind" / "en").iterdir())) >= 2  # merged, not one bundle
    browser.goto(static + "bed0/")
    browser.wait_for("document.readyState === 'complete' && document.title.startsWith('Bed 0')", "a page")
    browser.click(".search-button")
    browser.type("#search input.pagefind-ui__search-input", "loam")  # in every page, both languages
    hrefs = browser.wait_for(
        "(() => { const links = [...document.querySelectorAll('.pagefind-ui__result-link')]"
        ".map(a => a.getAttribute('href')); return links.length === 4 ? links : null; })()",
        "four search results",
    )
    assert sorted(hrefs) == ["/bed0/", "/bed1/", "/bed2/", "/bed3/"]  # the English shards only: not /es/cama/
