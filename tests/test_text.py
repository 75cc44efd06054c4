"""Slugs and lookup keys: a value already plain comes back as it is, as normalizing would give it."""

import re

import pytest

from pipeline import text

VALUES = ["setup", "set-up", "topic-000123", "a1-b2", "Setup", "set up", "set--up", "-setup", "setup-", "set_up",
          "café", "x.y", "ｆｕｌｌ", "  setup ", "", "-", "a\n", "İstanbul", "straße"]  # fmt: skip


@pytest.mark.parametrize("function", [text.url_slug, text.lookup_key])
def test_the_plain_shortcut_changes_no_answer(function, monkeypatch):
    quick = {value: function.__wrapped__(value) for value in VALUES}
    monkeypatch.setattr(text, "PLAIN", re.compile(r"(?!)"))  # matches nothing: every value normalized
    assert {value: function.__wrapped__(value) for value in VALUES} == quick
    assert quick["topic-000123"] == "topic-000123" and quick["set up"] == "set-up"


@pytest.mark.parametrize("name, slug, anchor", [
    ("ความเป็นส่วนตัว", "ความเป็นส่วนตัว", "ความเป็นส่วนตัว"),  # Thai vowel and tone marks
    ("সম্পাদনা ও ফরম্যাটিং", "সম্পাদনা-ও-ফরম্যাটিং", "সম্পাদনা-ও-ফরম্যাটিং"),  # Bengali vowel signs, virama
    ("हिन्दी (भाषा)", "हिन्दी-भाषा", "हिन्दी-भाषा"),
    ("U\u0308ber Obsidian", "über-obsidian", "über-obsidian"),  # decomposed: NFC first
    ("C++ & C#", "c-c", "c--c"),
])  # fmt: skip
def test_names_in_any_script_keep_every_letter_and_mark(name, slug, anchor):
    assert text.url_slug(name) == slug
    assert text.heading_slug(name) == anchor


def test_an_emoji_leaves_no_variation_selector_behind():
    assert text.url_slug("🗂️ Guides") == "guides" and text.heading_slug("🗂️ Guides") == "-guides"


def test_a_name_of_symbols_alone_keeps_them():
    assert text.url_slug("🚀") == "🚀" and text.url_slug("🎉") == "🎉" and text.url_slug("⭐ ⭐") == "⭐-⭐"
    assert text.url_slug("🗂️") == "🗂" and text.url_slug("?!") == "-"  # no variation selector; no punctuation
