"""End to end, in one headless Chromium against `pipeline serve` on one small bilingual wiki: what a reader does
(the tree, previous/next, Ctrl-K, the language switcher, a hover preview, diagrams, formulas, code and its copy
button), no serious or critical axe-core violation on each kind of page in light and dark, nothing wider than a
360 px screen, and screenshots of each kind of page for people to look at (the folder is printed).

The light/dark toggle and the search overlay's `/` and `?q=` are in test_theme_browser.py.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path

import pytest

from conftest import REPO
from tests.content.test_git_history import commit, git
from tests.e2e.chromium import CONTROL, Browser, chromium, missing, serve

pytestmark = pytest.mark.slow  # a wiki built and served, one Chromium for the module

# .ci/run installs it (docs/development.md says why this version).
AXE = REPO / ".ci" / "npm" / "node_modules" / "axe-core" / "axe.min.js"
LONG_URL = "https://example.org/" + "a-very-long-path-segment-" * 8 + "end"
LONG_WORD = "Bodenbeschaffenheitsuntersuchungsergebnisse" * 3

SITE = {
    "index.md": "---\ntitle: Home\npaired_with: index.es.md\n---\n\nWelcome. Start with [[Soil]] or [[Tools]].\n",
    "index.es.md": "---\ntitle: Inicio\npaired_with: index.md\n---\n\nBienvenido. Empieza por [[Soil|el suelo]].\n",
    "garden/index.md": "---\ntitle: Garden\n---\n\nThe garden section.\n",
    "garden/soil.md": (
        "---\ntitle: Soil\nshort_description: What plants grow in.\ncategory: basics\ntags: [earth]\n"
        "paired_with: garden/soil.es.md\nweight: 1\n---\n\n"
        "Soil feeds [[Compost|compost heaps]] and holds water. #loam\n\n"
        "## Measuring\n\nThe ratio is $\\frac{a}{b}$ and the area is\n\n$$\\pi r^2$$\n\n"
        '```python title="ratio.py"\ndef ratio(a, b):\n    return a / b\n```\n\n'
        "> [!warning] Wet soil\n> Do not dig wet soil.\n\n"
        "## Layers\n\n```mermaid\ngraph TD\n  Topsoil --> Subsoil\n```\n\n"
        f"## Further\n\nA long address: <{LONG_URL}>, and a long word: {LONG_WORD}.\n"
    ),
    "garden/soil.es.md": (
        "---\ntitle: Suelo\ncategory: basics\npaired_with: garden/soil.md\n---\n\nEl suelo alimenta el [[Compost]].\n"
    ),
    "garden/compost.md": (
        "---\ntitle: Compost\nshort_description: Worms at work.\ncategory: basics\ntags: [earth]\nweight: 2\n---\n\n"
        "Worms turn peelings into humus.\n"
    ),
    "garden/mulch.md": "---\ntitle: Mulch\nweight: 3\n---\n\nMulch keeps the ground moist.\n",
    "shed/index.md": "---\ntitle: Shed\n---\n\nWhere the spades live.\n",
    "shed/tools.md": "---\ntitle: Tools\ncategory: basics\n---\n\nA spade and a fork.\n",
    "shed/seeds.md": "---\ntitle: Seeds\n---\n\nKept dry in jars.\n",
    "categories.yaml": "categories:\n  - id: basics\n    name: Basics\n    scope: Where to begin.\n",
}
READY = "document.readyState === 'complete'"
DRAWN = f"{READY} && document.querySelector('pre.mermaid svg')"  # Mermaid has drawn the diagram
# Each kind of page a reader sees: its address and what shows it is ready to be looked at.
PAGES = {
    "home": ("", READY),
    "article": ("garden/soil/", DRAWN),
    "category": ("category/basics/", READY),
    "search": ("garden/compost/?q=humus", "document.querySelector('.pagefind-ui__result-link')"),
    "history": ("garden/soil/history/", f"(document.querySelector('.revision-diff details').open = true) && {READY}"),
    "404": ("no/such/page/", f"{READY} && document.title"),
    "404-es": ("es/no/such/page/", f"{READY} && document.documentElement.lang === 'es'"),
}
# name -> (width, height, a phone's, colour scheme)
SCREENS = {
    "desktop": (1280, 800, False, "light"), "mobile": (390, 844, True, "light"), "dark": (1280, 800, False, "dark"),
}  # fmt: skip


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    """The wiki in a git repository, its soil article edited in a second commit: a history with a diff."""
    root = tmp_path_factory.mktemp("wiki")
    git(root, "init", "-q")
    commit(root, {f"content/{name}": text for name, text in SITE.items()}, "Plant the garden")
    soil = SITE["garden/soil.md"].replace("holds water.", "holds water and air.")
    commit(root, {"content/garden/soil.md": soil}, "Soil breathes", author="Bea", date="2024-02-01T09:00:00+01:00")
    with serve(root / "content", root) as url:
        yield url


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    browser = Browser(chromium(), tmp_path_factory.mktemp("chromium") / "profile")
    yield browser
    browser.close()


@pytest.fixture
def reader(browser):
    """The module's browser on a desktop screen in the system's light scheme."""
    browser.screen(*SCREENS["desktop"])
    return browser


def test_a_closed_branch_of_the_tree_opens_and_its_page_is_then_current_with_its_branch_open(reader, served):
    reader.open(served + "garden/soil/")
    shed = ".nav-tree > li:nth-child(2) > details"
    assert reader.evaluate(f"document.querySelector('{shed} > summary').textContent") == "Shed"
    assert reader.evaluate(f"document.querySelector('{shed}').open") is False  # another branch: closed
    reader.click(f"{shed} > summary")
    reader.click(f"{shed} a[href='/shed/tools/']")
    reader.wait_for(f"location.pathname === '/shed/tools/' && {READY}", "the page chosen in the tree")
    current = reader.evaluate(
        f"[document.querySelector('{shed}').open, document.querySelector('.nav-tree [aria-current=page]').textContent,"
        " [...document.querySelectorAll('.breadcrumbs li')].map(li => li.textContent)]"
    )
    assert current == [True, "Tools", ["Main page", "Shed", "Tools"]]


def test_next_and_previous_walk_the_section_in_order(reader, served):
    reader.open(served + "garden/soil/")
    reader.click(".pager-next")
    reader.wait_for(f"location.pathname === '/garden/compost/' && {READY}", "the next page")
    reader.click(".pager-next")
    reader.wait_for(f"location.pathname === '/garden/mulch/' && {READY}", "the one after")
    assert reader.evaluate("document.querySelector('.pager-next')") is None  # the end of the section
    reader.click(".pager-previous")
    reader.wait_for(f"location.pathname === '/garden/compost/' && {READY}", "the previous page")


def test_ctrl_k_opens_the_search_overlay_and_escape_closes_it(reader, served):
    reader.open(served + "shed/seeds/")
    reader.wait_for("searchReady()", "the search loaded")
    reader.press("k", CONTROL)
    assert reader.wait_for("document.getElementById('search-dialog').open && document.activeElement.tagName",
                           "the overlay, its field focused") == "INPUT"  # fmt: skip
    reader.page("Input.insertText", text="humus")
    hrefs = reader.wait_for(
        "(() => { const links = [...document.querySelectorAll('.pagefind-ui__result-link')]"
        ".map(a => a.getAttribute('href')); return links.length ? links : null; })()",
        "a search result",
    )
    assert hrefs == ["/garden/compost/"]
    reader.press("Escape")
    assert reader.wait_for("!document.getElementById('search-dialog').open && 'closed'", "the overlay closed")


def test_the_language_switcher_goes_to_the_counterpart_or_says_there_is_none(reader, served):
    reader.open(served + "garden/soil/")
    reader.click(".language-switcher summary")
    reader.click(".language-switcher a[hreflang='es']")
    reader.wait_for(f"location.pathname === '/es/garden/soil/' && {READY}", "the Spanish counterpart")
    spanish = reader.evaluate("[document.documentElement.lang, document.querySelector('h1').textContent]")
    assert spanish == ["es", "Suelo"]
    reader.open(served + "garden/compost/")  # no Spanish page
    reader.click(".language-switcher summary")
    said = reader.evaluate("document.querySelector('.language-switcher .not-translated').textContent")
    assert "Español" in said and "not" in said.lower()
    reader.click(".language-switcher .not-translated a[hreflang='es']")
    reader.wait_for(f"location.pathname === '/es/' && {READY}", "the Spanish home page")


def test_hovering_an_internal_link_shows_its_preview(reader, served):
    reader.open(served + "garden/soil/")
    assert reader.evaluate("document.querySelector('.link-preview')") is None
    reader.hover(".article-body a.wikilink[href='/garden/compost/']")
    preview = reader.wait_for(
        "(() => { const box = document.querySelector('.link-preview');"
        " return box && [...box.children].map(p => p.textContent); })()",
        "the preview",
    )
    assert preview == ["Compost", "Worms at work.", "Worms turn peelings into humus."]


def test_the_diagram_is_drawn_as_svg_and_the_formulas_are_mathml(reader, served):
    reader.open(served + "garden/soil/", DRAWN)
    assert "Topsoil" in reader.evaluate("document.querySelector('pre.mermaid svg').textContent")
    formulas = reader.evaluate(
        "[...document.querySelectorAll('.article-body math')]"
        ".map(m => [m.namespaceURI, m.getAttribute('display'), m.getBoundingClientRect().width > 0])"
    )
    assert formulas == [["http://www.w3.org/1998/Math/MathML", display, True] for display in ("inline", "block")]


def test_the_code_is_highlighted_and_its_copy_button_copies_it(reader, served):
    reader.command("Browser.grantPermissions", origin=served.rstrip("/"),
                   permissions=["clipboardReadWrite", "clipboardSanitizedWrite"])  # fmt: skip
    reader.open(served + "garden/soil/")
    colours = reader.evaluate(
        "[...document.querySelectorAll('.code-block code, .code-block code .k, .code-block code .nf')]"
        ".map(e => getComputedStyle(e).color)"
    )
    assert len(set(colours)) == 3  # the text, a keyword and a function name each in its own colour
    reader.click(".code-block .copy-code")
    assert reader.wait_for("document.querySelector('.code-block .copy-status').textContent", "the status") == "Copied"
    assert reader.evaluate("navigator.clipboard.readText()") == "def ratio(a, b):\n    return a / b\n"


def test_nothing_widens_the_page_on_a_360_px_screen(reader, served):
    reader.screen(360, 740, mobile=True)
    reader.open(served + "garden/soil/", DRAWN)
    long = json.dumps([LONG_URL, LONG_WORD])
    assert reader.evaluate(f"{long}.map(text => document.body.textContent.includes(text))") == [True, True]
    assert reader.evaluate("document.documentElement.scrollWidth") <= 360


def axe(browser: Browser) -> list[dict]:
    """The serious and critical violations axe-core finds in the page."""
    if not AXE.exists():
        missing(f"axe-core is not installed ({AXE}; `bash .ci/run` installs it with npm)")
    browser.evaluate(AXE.read_text(encoding="utf-8"))
    found = browser.evaluate("axe.run(document, {resultTypes: ['violations']}).then(r => r.violations)", wait=60)
    return [v for v in found if v["impact"] in ("serious", "critical")]


@pytest.mark.parametrize("scheme", ["light", "dark"])
@pytest.mark.parametrize("name", PAGES)
def test_axe_finds_no_serious_violation(reader, served, name, scheme):
    reader.screen(*SCREENS["desktop"][:3], scheme=scheme)
    reader.open(served + PAGES[name][0], PAGES[name][1])
    violations = axe(reader)
    assert not violations, "\n".join(
        f"{v['id']} ({v['impact']}): {v['help']}; " + ", ".join(" ".join(node["target"]) for node in v["nodes"])
        for v in violations
    )


def test_screenshots_of_each_kind_of_page(reader, served, capsys):
    # Outside pytest's own temp folders, which other runs clear: these are for people to look at after the run.
    folder = Path(os.environ.get("PIPELINE_SCREENSHOTS") or tempfile.mkdtemp(prefix="pipeline-screenshots-"))
    folder.mkdir(parents=True, exist_ok=True)
    for screen, settings in SCREENS.items():
        reader.screen(*settings)
        for name, (path, ready) in PAGES.items():
            reader.open(served + path, ready)
            reader.screenshot(folder / f"{name}-{screen}.png")
    with capsys.disabled():
        print(f"\nscreenshots: {folder}")
    assert {shot.name for shot in folder.glob("*.png")} >= {f"{n}-{s}.png" for n in PAGES for s in SCREENS}
