"""The name matcher: first words found in text as the tokenizer would find them, and names scanned alike either way."""

from __future__ import annotations

import collections
import random

import pytest

from pipeline.passes import names


def test_the_first_word_filter_sees_every_first_word_the_tokenizer_sees():
    """Text is split by bytes, not by the tokenizer: it must never miss a name the tokenizer would find."""
    titles = ["Ring", "Alpha_2 beta", "X9", ".NET", "Éclair"]
    matcher = names.build_matcher([[f"{n}.md", "", "", "en", title, []] for n, title in enumerate(titles)])
    assert matcher.ascii_firsts == {b"ring", b"alpha_2", b"x9"} and matcher.other_firsts == (".", "éclair")
    pieces = ["ring", "RING", "rings", "alpha_2", "alpha", "x9", "x", "9", "(", ")", ".", ",", "_", " ", "\n", "\t", "-",
              "ÉCLAIR", "éclairs", "é"]  # fmt: skip
    draw = random.Random(7)
    for _ in range(3000):
        text = "".join(draw.choice(pieces) for _ in range(draw.randint(0, 8)))
        folded = text.lower() if text.isascii() else text.casefold()
        tokens = set(names.TOKEN.findall(folded)) & matcher.firsts
        assert tokens <= set(matcher._present(folded)), repr(text)
        assert matcher.may_start_name(text) >= bool(tokens)
    assert matcher.may_start_name("(Ring).") and not matcher.may_start_name("rings, alpha-2, x 9")


@pytest.mark.parametrize("tokenized", [False, True])  # many first words not ASCII: the text is tokenized to find them
def test_scanning_text_folded_at_once_finds_what_folding_each_token_finds(tokenized):
    """`scan` folds a text whole and reads on only from where a first word is; `scan_tokens` folds every token."""
    titles = ["Ring", "Three Ring Architecture", "Big Three", "Café", "Node.js", ".NET", "Straße", "Σίσυφος", "Data"]
    titles += [f"Ω{n}" for n in range(names.OTHER_FIRSTS_LOOKED_FOR if tokenized else 0)]
    matcher = names.build_matcher([[f"{n}.md", "", "", "en", title, []] for n, title in enumerate(titles)])
    assert (len(matcher.other_firsts) > names.OTHER_FIRSTS_LOOKED_FOR) == tokenized
    pieces = ["ring", "RING", "rings", "three", "Three ", "big ", "architecture", "café", "cafe\u0301", "CAFÉ", "node",
              ".", "js", "net", "straße", "STRASSE", "\ufb01", "σίσυφος", "ΣΊΣΥΦΟΣ", "database", "bigdata", "data", "_",
              " ", "  ", "(", "-", "é", "\u0301", "İ"]  # fmt: skip
    draw = random.Random(11)
    found = folded_whole = 0
    for _ in range(4000):
        line = "".join(draw.choice(pieces) for _ in range(draw.randint(0, 10)))
        start = draw.randint(0, min(2, len(line)))  # a piece may start inside a word
        fast = matcher.scan(line, start, len(line))
        assert collections.Counter(fast) == collections.Counter(matcher.scan_tokens(line, start, line[start:])), repr(line)
        found += len(fast)
        folded_whole += names.fold_in_place(line[start:]) is not None
    assert found > 400 and 1000 < folded_whole < 3500  # both ways taken, and names found


def test_lines_with_first_words_are_every_line_that_may_start_a_name():
    matcher = names.build_matcher([["r.md", "", "", "en", "Ring", []], ["s.md", "", "", "en", "Straße", []]])
    text = "The ring.\nnothing\n  (RING)\nbigring\nstrasse\n"
    assert names.fold_in_place(text) is not None  # folded whole, searched once
    assert {0, 2, 4} <= matcher.lines_with_first_words(text) <= {0, 2, 3, 4}  # a word inside one may count
    assert names.fold_in_place(text + "STRAßE") is None  # "ß" folds to two letters: line by line
    assert matcher.lines_with_first_words(text + "STRAßE") == {0, 2, 4, 5}
    assert matcher.lines_with_first_words("nothing\nat all") == set()


@pytest.mark.parametrize("other", ["plain words.", "STRAßE"], ids=["folded whole", "folded piece by piece"])
def test_the_words_read_hold_every_word_of_the_names_the_texts_hold(other):
    """`words_read` folds as names fold (`casefold`, not `lower`: a final sigma, the micro sign) and keeps symbols."""
    texts = ["Η ΟΔΟΣ, 5 µs (.NET)", other]
    read = names.words_read(texts)
    for name in ["οδος", "Οδος", "5 μs", ".NET", "net"]:
        assert set(names.term_key(name)[0]) <= read, name
    assert "(" in read and "," in read
    for text in texts, ["all ascii\there (.NET)"]:  # white space is no token, in ASCII text either
        assert not {word for word in names.words_read(text) if word.isspace()}


WORDS = ["ring", "three", "big", "café", "node", "js", "arch", "x", "y"]


def _entry(path: str, draw: random.Random) -> list:
    """An index entry whose title and aliases are drawn from a few words (so names share them)."""
    name = lambda: " ".join(draw.sample(WORDS, draw.randint(1, 3)))  # noqa: E731
    return [path, path[:-3], path[:-3], f"{path[:-3]}/", name(), [name() for _ in range(draw.randrange(3))]]


@pytest.mark.parametrize("seed", range(30))
def test_patched_name_keys_find_what_name_keys_made_anew_find(seed):
    draw = random.Random(seed)
    paths = [f"p{n}.md" for n in range(30)]
    before = {path: _entry(path, draw) for path in sorted(draw.sample(paths, 15))}
    now = dict(before)
    for _ in range(draw.randint(1, 5)):  # renamed, added, removed
        path = draw.choice(paths)
        if path in now and draw.random() < 0.3:
            del now[path]
        else:
            now[path] = _entry(path, draw)
    was, is_ = list(before.values()), [now[path] for path in sorted(now)]
    patched, anew = names.patch_name_keys(names.name_keys(was), was, is_), names.name_keys(is_)
    for _ in range(200):
        text = set(draw.sample(WORDS, draw.randint(0, len(WORDS))))
        assert names.named_in(patched, text) == names.named_in(anew, text), text
