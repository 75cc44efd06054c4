"""names: find the titles and aliases of articles in text, on whole words, case-insensitively.

A `Matcher` holds an index's names in a trie of their folded words (`term_key`:
each word lowercased, or NFC-normalized and casefolded when not ASCII, and
whether whitespace comes before it). `scan` reports every name a piece of a
line holds, overlaps included; the mentions pass picks among them. Most
words start no name: text is searched for the names' first words before
any word is read. A name two articles claim at the same rank links to
neither; a title beats an alias.
"""

from __future__ import annotations

import bisect
import collections
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from typing import Iterator

# A word, combining accents included (so a decomposed "Café" is one word), or one other symbol.
WORD = r"[\w\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]"
TOKEN = re.compile(rf"{WORD}+|[^\w\s]")
WORD_CHAR = re.compile(WORD)
NEWLINE = re.compile("\n")
# Bytes of text: ASCII word characters kept, every other byte a space (see Matcher._present).
ASCII_WORDS = bytes(c if c < 128 and re.fullmatch(r"\w", chr(c)) else 32 for c in range(256))
# ASCII bytes that are no symbol token (TOKEN's `[^\w\s]`): word characters and white space.
ASCII_NO_SYMBOL = bytes(c for c in range(128) if re.fullmatch(r"[\w\s]", chr(c)))
# A name with these would break the `[[target|mention]]` it becomes.
UNLINKABLE = re.compile(r"[\[\]|\n]")
MATCHERS_KEPT = 8
OTHER_FIRSTS_LOOKED_FOR = 64  # more, and tokenizing the text costs less than looking for each

TermKey = tuple[tuple[str, ...], tuple[bool, ...]]  # folded tokens, whitespace before each (never the first)


@dataclass(frozen=True)
class Term:
    key: TermKey
    target: int | None  # entry number; None when two articles share the name


@dataclass(frozen=True)
class Match:
    start: int
    end: int
    term: Term


@dataclass
class Matcher:
    """Names in a trie of (whitespace before, folded token) edges; a node's None key holds its Term."""

    entries: list
    by_path: dict[str, int]
    trie: dict
    firsts: frozenset[str]  # the first word of every name, to pass over text that starts none
    ascii_firsts: frozenset[bytes]  # those made of ASCII letters, digits and _: split out of text by bytes
    other_firsts: tuple[str, ...]  # the rest (accented words, symbols): looked for in text one by one

    def names_of(self, number: int) -> set[TermKey]:
        _, _, _, _, title, aliases = self.entries[number]
        return {term_key(name) for name in [title, *aliases]}

    def may_start_name(self, text: str) -> bool:
        """False when `text` holds no first word of a name: most prose starts none.

        The text is folded as a whole (folding never joins or splits words, so
        its words are the folded words of `text`), then searched (`_present`).
        """
        return bool(self._present(text.lower() if text.isascii() else unicodedata.normalize("NFC", text).casefold()))

    def lines_with_first_words(self, text: str) -> set[int]:
        """The numbers of the lines of `text` that hold a first word of a name (and maybe a few more)."""
        folded = fold_in_place(text)
        if folded is None:
            return {number for number, line in enumerate(text.split("\n")) if self.may_start_name(line)}
        ends = [match.start() for match in NEWLINE.finditer(folded)]
        return {bisect.bisect_left(ends, at) for at in self._first_words(folded)}

    def scan(self, line: str, start: int, end: int) -> list[Match]:
        """Every name occurring in `line[start:end]` on whole words (overlaps included).

        Only a name's first word starts one, and most words are none: the text is
        folded as a whole and searched for those, and words are read on from each
        one found. Text whose folding moves characters (a ligature, a decomposed
        accent) is folded a token at a time instead.
        """
        text = line[start:end]
        folded = fold_in_place(text)
        if folded is None:
            return self.scan_tokens(line, start, text)
        matches: list[Match] = []
        for at in self._first_words(folded):
            following = ((m.start(), m.end(), m.group()) for m in TOKEN.finditer(folded, at))
            self._walk(line, start, following, matches)
        return matches

    def scan_tokens(self, line: str, start: int, text: str) -> list[Match]:
        """`scan` folding each token of `text` (`line[start:]`) by itself: right for any text."""
        tokens = [(m.start(), m.end(), fold(m.group())) for m in TOKEN.finditer(text)]
        matches: list[Match] = []
        for i, (_, _, word) in enumerate(tokens):
            if word in self.firsts:
                self._walk(line, start, (tokens[j] for j in range(i, len(tokens))), matches)
        return matches

    def _first_words(self, folded: str) -> Iterator[int]:
        """Where, in `folded`, a first word of a name occurs: every token that is one, and more
        (a word inside a longer one, which `_walk` reads on from and `_whole` turns down: looking
        at the characters around each costs more than those few walks)."""
        for word in self._present(folded):
            at = folded.find(word)
            while at >= 0:
                yield at
                at = folded.find(word, at + 1)

    def _present(self, folded: str) -> list[str] | set[str]:
        """The first words of names that `folded` holds: every one that is a token of it, and maybe more.

        The text's bytes are split in one C-level call, every byte but an ASCII
        letter, digit or _ a space: five times faster than the tokenizer, and
        it finds every ASCII word the tokenizer would. The few other first words
        are looked for as text.
        """
        if len(self.other_firsts) > OTHER_FIRSTS_LOOKED_FOR:
            return self.firsts.intersection(TOKEN.findall(folded))
        words = self.ascii_firsts.intersection(folded.encode().translate(ASCII_WORDS).split())
        return [word.decode() for word in words] + [word for word in self.other_firsts if word in folded]

    def _walk(self, line: str, offset: int, tokens: Iterator[tuple[int, int, str]], matches: list[Match]) -> None:
        """Add the names that start with the first of `tokens` (positions from `offset` in `line`)."""
        first_start, last_end, word = next(tokens)
        node = self.trie.get((False, word))
        # Each step follows one edge, so the cost is the length of the longest name found, not their number.
        while node is not None:
            term = node.get(None)
            if term is not None and _whole(line, offset + first_start, offset + last_end):
                matches.append(Match(offset + first_start, offset + last_end, term))
            following = next(tokens, None)
            if following is None:
                return
            node = node.get((following[0] > last_end, following[2]))
            last_end = following[1]


def fold_in_place(text: str) -> str | None:
    """`text` folded as `fold` folds each of its words, or None when folding would move a character.

    ASCII text lowers in place; other text does when it is in NFC already and no
    character folds to more than one (as "ß" to "ss" does).
    """
    if text.isascii():
        return text.lower()
    if not unicodedata.is_normalized("NFC", text):
        return None
    folded = text.casefold()
    return folded if len(folded) == len(text) else None


@lru_cache(maxsize=65536)
def fold(word: str) -> str:
    return word.lower() if word.isascii() else unicodedata.normalize("NFC", word).casefold()


@lru_cache(maxsize=65536)
def term_key(name: str) -> TermKey:
    tokens = list(TOKEN.finditer(name.strip()))
    words = tuple(fold(m.group()) for m in tokens)
    spaced = tuple(i > 0 and m.start() > tokens[i - 1].end() for i, m in enumerate(tokens))
    return words, spaced


def words_read(texts) -> set[str]:
    """Every folded token `Matcher.scan` could read in each of `texts` (and maybe more).

    A name occurs in a text only if each of its words (`term_key`) is one of these: the
    mentions pass narrows an index to the names an article's prose could hold (`name_keys`).
    A text is folded as `scan` folds it, whole or a token at a time; ASCII text, most of it,
    is split by bytes at once (`_present`'s way), its symbols taken as they are.
    """
    texts = list(texts)
    joined = "\n".join(texts)  # a newline joins no tokens, and folds nothing
    if joined.isascii():
        folded = joined.lower().encode()
        words = set(folded.translate(ASCII_WORDS).decode().split())
        return words | {chr(byte) for byte in set(folded.translate(None, ASCII_NO_SYMBOL))}  # the symbols
    folded = fold_in_place(joined)
    if folded is not None:  # as each text would fold in place: all are NFC, no character grows
        return set(TOKEN.findall(folded))
    words = set()
    for text in texts:
        folded = fold_in_place(text)
        words.update(TOKEN.findall(folded) if folded is not None else (fold(token) for token in TOKEN.findall(text)))
    return words


NameKeys = dict[str, list[tuple[int, frozenset[str]]]]  # word -> (entry number, every word of one of its names)


def name_keys(entries: list) -> NameKeys:
    """Each name of an index's entries under the rarest of its words, with all its words.

    Looking up the words of a text finds every entry with a name whose words the text
    all holds (`named_in`), reading few names that do not fit: the rarest word of a
    name (a number, a proper noun) is seldom in a text that does not hold the name.
    """
    named = [(number, frozenset(term_key(name)[0])) for number, entry in enumerate(entries)
             for name in [entry[4], *entry[5]]]  # fmt: skip
    named = [(number, words) for number, words in named if words]
    counts = collections.Counter(word for _, words in named for word in words)
    keys: NameKeys = {}
    for number, words in named:
        keys.setdefault(min(words, key=lambda word: (counts[word], word)), []).append((number, words))
    return keys


def patch_name_keys(keys: NameKeys, before: list, now: list) -> NameKeys:
    """What `name_keys(now)` finds, made from `keys` (`name_keys(before)`): the entries of `before` that `now`
    holds as they are keep their names' places, renumbered; the others' names are taken out, and those of
    the entries new in `now` filed under their rarest word as `keys` counts them. (Lookups find a name
    under any of its words: which one is a matter of speed, not of what is found.)"""
    at = {entry[0]: number for number, entry in enumerate(now)}  # by path: an index has one entry per path
    moved = [at.get(entry[0]) for entry in before]
    moved = [number if number is not None and now[number] == entry else None for number, entry in zip(moved, before)]
    patched: NameKeys = {}
    for word, rows in keys.items():
        kept = [(moved[number], words) for number, words in rows if moved[number] is not None]
        if kept:
            patched[word] = kept
    for number in sorted(set(range(len(now))).difference(moved)):  # the entries new in `now`, or changed
        for words in {frozenset(term_key(name)[0]) for name in [now[number][4], *now[number][5]]} - {frozenset()}:
            patched.setdefault(min(words, key=lambda word: (len(patched.get(word, ())), word)), []).append((number, words))
    return patched


def named_in(keys: NameKeys, words: set[str]) -> list[int]:
    """The numbers, in order, of the entries with a name whose every word is in `words`."""
    return sorted({number for word in words & keys.keys() for number, needed in keys[word] if needed <= words})


def _whole(line: str, start: int, end: int) -> bool:
    """Names starting or ending with a symbol still may not touch a letter."""
    return (start == 0 or not WORD_CHAR.match(line, start - 1)) and not WORD_CHAR.match(line, end)


_MATCHERS: dict[str, Matcher] = {}


def matcher_for(index: dict) -> Matcher:
    matcher = _MATCHERS.get(index["digest"])
    if matcher is None:
        if len(_MATCHERS) >= MATCHERS_KEPT:
            _MATCHERS.pop(next(iter(_MATCHERS)))
        matcher = _MATCHERS[index["digest"]] = build_matcher(index["entries"])
    return matcher


def build_matcher(entries: list) -> Matcher:
    """Titles beat aliases; a name two articles claim at the same rank links to neither."""
    claims: dict[TermKey, tuple[int, set[int]]] = {}
    for number, (_, _, _, _, title, aliases) in enumerate(entries):
        for rank, name in [(0, title)] + [(1, alias) for alias in aliases]:
            key = term_key(name)
            if not key[0] or not any(WORD_CHAR.match(w) for w in key[0]) or UNLINKABLE.search(name):
                continue
            best, targets = claims.get(key, (rank, set()))
            if rank < best:
                best, targets = rank, set()
            if rank == best:
                claims[key] = (best, targets | {number})
    trie: dict = {}
    for key, (_, targets) in claims.items():
        node = trie
        for edge in zip(key[1], key[0]):
            node = node.setdefault(edge, {})
        node[None] = Term(key, next(iter(targets)) if len(targets) == 1 else None)
    firsts = frozenset(word for _, word in trie)
    plain = {word for word in firsts if word.isascii() and WORD_CHAR.match(word)}
    return Matcher(entries, {entry[0]: n for n, entry in enumerate(entries)}, trie, firsts,
                   frozenset(word.encode() for word in plain), tuple(sorted(firsts - plain)))  # fmt: skip
