"""Tiny wikis built for real: what each page of the site shows."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from pipeline.urls import wanted_url
from tests.site.helpers import SITE, build_site, read, site  # noqa: F401 (the `site` fixture)


def test_article_page_shows_everything_a_reader_needs(site):
    config, report = site
    html = read(config.out_dir, "alpha/index.html")
    assert '<html lang="en">' in html
    assert "<h1>Alpha</h1>" in html and '<p class="short-description">The first page.</p>' in html
    toc = html[html.index('class="toc"') : html.index("</nav>", html.index('class="toc"'))]
    assert '<a href="#setup">Setup</a>' in toc and '<a href="#usage">Usage</a>' in toc
    assert '<h2 id="setup">Setup<a class="headerlink" href="#setup"' in html
    assert '<a href="/beta/" class="wikilink">beta</a>' in html
    assert f'<a href="/{wanted_url("missing page", "en", "en")}" class="new"' in html
    references = html[html.index('class="references"') :]
    assert "A book" in references and 'href="https://example.org/book"' in references
    assert 'id="fnref1"' in html  # the [^1] marker links to its reference
    backlinks = html[html.index('id="backlinks-title"') :]
    assert '<a href="/beta/">Beta</a>' in backlinks.split("</section>")[0]
    assert '<a href="/category/guides/">Guides &amp; Tutorials</a>' in html
    assert '<a href="/es/alpha/" hreflang="es" lang="es" rel="alternate">Español</a>' in html
    head = html[: html.index("</head>")]
    assert '<link rel="alternate" hreflang="es" href="/es/alpha/">' in head
    assert '<link rel="alternate" hreflang="en" href="/alpha/">' in head
    assert '<link rel="alternate" hreflang="x-default" href="/alpha/">' in head
    assert 'class="skip-link" href="#content"' in html and '<main id="content"' in html
    assert "data-pagefind-body" in html


def test_outdated_translation_has_a_banner_pointing_at_its_source(site):
    config, _ = site
    html = read(config.out_dir, "es/alpha/index.html")
    assert '<html lang="es">' in html
    banner = html[html.index('class="banner outdated"') :].split("</div>")[0]
    assert "Esta traducción puede estar desactualizada." in banner
    assert '<a href="/alpha/">' in banner
    assert "outdated" not in read(config.out_dir, "alpha/index.html").split("<main")[1].split("</main>")[0]


def test_content_is_escaped_everywhere_but_the_rendered_markdown(site):
    config, _ = site
    page = read(config.out_dir, "evil/index.html")
    assert "<script>alert(1)</script>" not in page
    assert "<title>&lt;script&gt;alert(1)&lt;/script&gt; · Wiki</title>" in page
    assert "<h1>&lt;script&gt;alert(1)&lt;/script&gt;</h1>" in page
    # Raw HTML in Markdown is escaped by default, but for a few inline tags with no attribute (`safe_tags`).
    assert "Evil <b>bold</b> body." in page
    for listing in ("special/all/index.html", "special/recent/index.html", "evil/history/index.html"):
        assert "<script>alert" not in read(config.out_dir, listing), listing


def test_only_http_https_and_mailto_links_of_the_content_leave_the_site(make_wiki):
    config = make_wiki({"a.md": (
        "---\ntitle: A\n---\n\n[f](ftp://example.org/f) <irc://example.org/c> [p](//evil.example/x) "
        "![i](ftp://example.org/i.png) [w](https://example.org/w) [m](mailto:a@example.org) [r](missing.md)\n"
    )})  # fmt: skip
    build_site(config)
    body = read(config.out_dir, "a/index.html").partition('class="article-body"')[2].partition("</div>")[0]
    assert re.findall(r'(?:href|src)="([^"]*)"', body) == [
        "/ftp://example.org/f", "/irc://example.org/c", "/evil.example/x", "/ftp://example.org/i.png",
        "https://example.org/w", "mailto:a@example.org", "missing.md",
    ]  # fmt: skip


def test_raw_html_option_lets_markdown_html_through(make_wiki):
    config = make_wiki({"a.md": "---\ntitle: A\n---\n\nSome <b>bold</b> text.\n"}, raw_html=True)
    build_site(config)
    assert "Some <b>bold</b> text." in read(config.out_dir, "a/index.html")


def test_every_wiki_page_per_language(site):
    config, report = site
    out = config.out_dir
    for prefix, lang in (("", "en"), ("es/", "es")):
        home = read(out, f"{prefix}index.html")
        assert f'<html lang="{lang}">' in home
        for name in ("all", "categories", "recent", "wanted"):
            assert (out / f"{prefix}special/{name}/index.html").is_file()
    home = read(out, "index.html").split("<main", 1)[1]  # (the navigation tree names categories too)
    assert home.index("Guides &amp; Tutorials") < home.index("Empty One") < home.index(">extras<")
    assert "How to do things." in home
    guides = read(out, "category/guides/index.html")
    assert "<h1>Category: Guides &amp; Tutorials</h1>" in guides and "How to do things." in guides
    assert guides.index('href="/alpha/">Alpha<') < guides.index('href="/beta/">Beta<')
    assert 'href="/es/alpha/"' in read(out, "es/category/guides/index.html")
    assert "No pages yet." in read(out, "category/empty/index.html")
    assert 'href="/beta/">Beta<' in read(out, "category/extras/index.html")
    everything = read(out, "special/all/index.html")
    assert all(f'href="/{slug}/"' in everything for slug in ("alpha", "beta", "evil"))
    assert 'href="/es/alpha/"' not in everything


def test_wanted_pages_list_red_links_and_who_links_to_them(site):
    config, _ = site
    wanted = read(config.out_dir, "special/wanted/index.html")
    entry = re.search(r'<li id="wanted-missing-page">(.*?)</li>', wanted, re.S).group(1)
    assert '<span class="new">missing page</span>' in entry and 'href="/alpha/">Alpha<' in entry
    spanish = read(config.out_dir, "es/special/wanted/index.html")
    assert 'id="wanted-falta"' in spanish and 'id="wanted-missing-page"' not in spanish


def test_recent_changes_and_history_come_from_the_capture_log(site):
    config, _ = site
    recent = read(config.out_dir, "special/recent/index.html")
    assert recent.count("<tr><td>") == 3  # alpha, beta, evil (Spanish changes are on the Spanish page)
    history = read(config.out_dir, "alpha/history/index.html")
    assert "History of" in history and history.count("<tr><td>") == 1 and "created" in history
    (config.content_dir / "alpha.md").write_text(SITE["alpha.md"] + "\nMore text.\n", encoding="utf-8")
    build_site(config)
    history = read(config.out_dir, "alpha/history/index.html")
    rows = re.findall(r"<tr><td>.*?</tr>", history, re.S)
    assert len(rows) == 2 and "edited" in rows[0] and "created" in rows[1]
    assert read(config.out_dir, "special/recent/index.html").count("<tr><td>") == 4


def test_redirects_from_aliases_and_redirects_yaml(site):
    config, report = site
    out = config.out_dir
    alias = read(out, "first-page/index.html")
    assert '<meta http-equiv="refresh" content="0; url=/alpha/">' in alias
    assert '<link rel="canonical" href="/alpha/">' in alias and "<script" not in alias
    assert '<a href="/alpha/">' in read(out, "old/alpha/index.html")
    assert 'url=/es/alpha/"' in read(out, "es/old/alpha/index.html")  # the translation of the target
    assert "<h1>Alpha</h1>" in read(out, "alpha/index.html")  # a redirect never replaces a page
    assert report.site.redirects == 3


def test_sitemap_404_and_robots(site):
    config, _ = site
    out = config.out_dir
    tree = ET.fromstring(read(out, "sitemap.xml"))
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    urls = {u.find("s:loc", ns).text: u for u in tree.findall("s:url", ns)}
    assert {"/alpha/", "/es/alpha/", "/beta/", "/", "/es/", "/category/guides/"} <= set(urls)
    assert "/alpha/history/" not in urls and "/special/wanted/" not in urls
    alternates = {(link.get("hreflang"), link.get("href")) for link in urls["/alpha/"].findall("x:link", ns)}
    assert alternates == {("en", "/alpha/"), ("es", "/es/alpha/"), ("x-default", "/alpha/")}
    assert re.fullmatch(r"\d{4}-\d\d-\d\d", urls["/alpha/"].find("s:lastmod", ns).text)
    not_found = read(out, "404.html")
    assert "Page not found" in not_found and 'href="/assets/wiki.css"' in not_found
    assert "Sitemap: /sitemap.xml" in read(out, "robots.txt")


def test_base_url_prefixes_every_link_and_asset(make_wiki):
    config = make_wiki(SITE, base_url="/docs")
    build_site(config)
    out = config.out_dir
    for rel in ("alpha/index.html", "es/index.html", "special/wanted/index.html", "404.html", "old/alpha/index.html"):
        html = read(out, rel)
        targets = re.findall(r'(?:href|src)="([^"]+)"', html) + re.findall(r"url=([^\"]+)\"", html)
        local = [t for t in targets if not t.startswith(("#", "https://"))]
        assert local and all(t.startswith("/docs/") for t in local), (rel, local)
    assert 'href="/docs/assets/wiki.css"' in read(out, "alpha/index.html")
    assert "Sitemap: /docs/sitemap.xml" in read(out, "robots.txt")
    assert "<loc>/docs/alpha/</loc>" in read(out, "sitemap.xml")


def test_wiki_templates_override_the_builtin_ones(make_wiki, tmp_path):
    templates = tmp_path / "theme"
    (templates / "assets").mkdir(parents=True)
    (templates / "nav.html").write_text('<nav class="mine">{{ site_name }} {{ t.search }}</nav>\n', encoding="utf-8")
    (templates / "assets" / "extra.css").write_text("body{}", encoding="utf-8")
    config = make_wiki(SITE, templates_dir=templates, site_name="My <Wiki>")
    build_site(config)
    page = read(config.out_dir, "alpha/index.html")
    assert '<nav class="mine">My &lt;Wiki&gt; Search</nav>' in page
    assert '<nav class="mine">My &lt;Wiki&gt; Buscar</nav>' in read(config.out_dir, "es/alpha/index.html")
    assert (config.out_dir / "assets" / "extra.css").is_file() and (config.out_dir / "assets" / "wiki.css").is_file()


def test_an_index_article_is_its_languages_home_page(make_wiki):
    config = make_wiki({"index.md": "---\ntitle: Welcome\n---\n\nHello.\n", "a.md": "---\ntitle: A\n---\n\nA.\n"})
    report = build_site(config)
    assert "<h1>Welcome</h1>" in read(config.out_dir, "index.html")
    assert report.site.conflicts == []


def test_hostile_languages_and_redirect_targets_never_become_links_that_leave_the_site(make_wiki):
    hostile = "javascript://%0aalert(document.domain)//"
    config = make_wiki({
        **SITE,
        "escape.md": "---\ntitle: Escape\nlang: ../../../tmp/x\n---\n\nBody.\n",
        "script.md": f'---\ntitle: Script\nlang: "{hostile}"\n---\n\nBody.\n',
        "redirects.yaml": (
            f'redirects:\n  - from: /trap\n    to: "{hostile}"\n  - from: /sneaky\n    to: " JavaScript:alert(1)"\n'
            '  - from: /other-host\n    to: "//evil.example/"\n  - from: /away\n    to: "https://example.org/x"\n'
        ),
    })  # fmt: skip
    report = build_site(config)
    bad = {(d.path, d.line) for d in report.process.diagnostics if d.code == "bad-language"}
    assert bad == {("escape.md", 3), ("script.md", 3)}
    assert "<h1>Escape</h1>" in read(config.out_dir, "escape/index.html")  # the default language's place
    links = []
    for page in config.out_dir.rglob("*.html"):
        html = page.read_text(encoding="utf-8")
        links += re.findall(r'(?:href|src)="([^"]*)"', html) + re.findall(r'url=([^"]*)"', html)
    leaving = {link for link in links if not link.startswith(("/", "#"))}
    assert leaving and all(link.startswith(("https://", "mailto:")) for link in leaving), leaving
    assert not any(link.startswith("//") for link in links)
    trap = read(config.out_dir, "trap/index.html")
    assert 'href="/javascript/' in trap and "url=/javascript/" in trap  # a path of the site, slugged
    assert "url=/evil.example/" in read(config.out_dir, "other-host/index.html")
    assert "url=https://example.org/x" in read(config.out_dir, "away/index.html")


def test_recent_changes_keep_each_languages_newest_as_the_log_is_read_back(monkeypatch):
    from types import SimpleNamespace

    from pipeline.site import pages

    monkeypatch.setattr(pages, "RECENT_LIMIT", 3)
    log = [pages.Revision(f"{name}.md", f"t{number:02}", "x", None, "edited", name, f"{name}/")
           for number, name in enumerate(["old.es", "a", "b", "a.es", "c", "d", "e", "b.es", "f"])]  # fmt: skip
    model = SimpleNamespace(by_path=dict, languages=["en", "es", "de"], default_language="en")
    newest = pages.recent_changes(model, log)
    assert [revision.path for revision in newest["en"]] == ["f.md", "e.md", "d.md"]  # filled first: read on for es
    assert [revision.path for revision in newest["es"]] == ["b.es.md", "a.es.md", "old.es.md"]
    assert newest["de"] == []  # a language with no change: the whole log is read
    looked, name_lang_slug = [], pages.name_lang_slug
    monkeypatch.setattr(pages, "name_lang_slug", lambda path, default: looked.append(path) or name_lang_slug(path, default))
    model.languages = ["en", "es"]  # both filled once "old.es" is read: the log is read back no further
    assert pages.recent_changes(model, [log[0], *log])["es"][-1].path == "old.es.md"
    assert looked == [revision.path for revision in reversed(log)]  # the oldest, first in the log, is never looked at
