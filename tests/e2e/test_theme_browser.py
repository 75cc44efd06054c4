"""End to end, in headless Chromium against `pipeline serve`: the light/dark choice survives a reload, and the search
overlay opens from `?q=` and from the keyboard, its results chosen with the arrow keys."""

from __future__ import annotations

import pytest

from tests.e2e.test_browser import browser, served  # noqa: F401 (fixtures)

pytestmark = pytest.mark.slow  # a wiki built and served

PAGE_BACKGROUND = "getComputedStyle(document.body).backgroundColor"


def test_the_dark_choice_survives_a_reload_and_choosing_the_system_s_forgets_it(served, browser):
    browser.page("Emulation.setEmulatedMedia", features=[{"name": "prefers-color-scheme", "value": "light"}])
    browser.goto(served + "gardening/")
    light = browser.wait_for(f"document.readyState === 'complete' && {PAGE_BACKGROUND}", "the page, light")
    assert light == "rgb(255, 255, 255)"
    browser.click(".theme-toggle")
    assert browser.wait_for("document.documentElement.dataset.theme", "the dark choice") == "dark"
    browser.goto(served + "gardening/")  # a reload: the choice is remembered, and shown before the page is drawn
    browser.wait_for("document.readyState === 'complete' && location.pathname === '/gardening/'", "the page again")
    assert browser.wait_for(PAGE_BACKGROUND, "its background") == "rgb(16, 20, 24)"
    pressed = browser.wait_for("document.querySelector('.theme-toggle').getAttribute('aria-pressed')", "the toggle")
    assert pressed == "true"
    browser.click(".theme-toggle")  # light again: the system's, so the page follows the system again
    assert browser.wait_for(f"!document.documentElement.dataset.theme && {PAGE_BACKGROUND}", "light") == light
    assert browser.wait_for("localStorage.getItem('pipeline-theme') === null", "the choice forgotten")


def test_the_search_overlay_opens_from_q_and_the_keyboard_and_its_results_are_chosen_with_arrows(served, browser):
    browser.goto(served + "es/gardening/?q=humus")
    results = browser.wait_for(
        "document.getElementById('search-dialog').open"
        " && document.querySelectorAll('.pagefind-ui__result-link').length",
        "the overlay open with results for ?q=",
    )
    assert results == 1  # the Spanish index only
    assert browser.wait_for("document.activeElement.classList.contains('pagefind-ui__search-input')", "the field")
    browser.press("ArrowDown")
    assert browser.wait_for("document.activeElement.getAttribute('href')", "the first result focused") == "/es/compost/"
    browser.press("Enter")
    browser.wait_for("location.pathname === '/es/compost/' && document.readyState === 'complete'", "the result opened")
    assert browser.wait_for("!document.getElementById('search-dialog').open && 'closed'", "no overlay") == "closed"
    browser.press("/")
    focused = browser.wait_for("document.getElementById('search-dialog').open && document.activeElement.tagName", "/")
    assert focused == "INPUT"
