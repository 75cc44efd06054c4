"""Generate an Obsidian-style vault for benchmarks: the `vault` profile of generate.py and run.py.

    python benchmarks/generate.py OUT_DIR --profile vault --articles 1000 [--broken 0.02] [--seed 1]

This module owns the vault's shape, its notes and attachments, the settings the tool builds it with
(`settings`), and its Hugo and MkDocs copies. The vault looks like the ones writers keep: language folders
(`en/`, `es/`, `de/`), each a tree of folders two to three deep, a `translated` share of the notes also in each
other language, paired by a shared `permalink`; long-tailed note lengths (many short notes, a few long ones
with sections); file names with spaces, emoji, parentheses and non-Latin scripts, one-word titles, daily notes
named by date; 6-7 links per note, an `embeds` share of them embeds (of a note, a section, a block or an
attachment), a `broken` share to notes nobody wrote; aliases, tags (frontmatter and inline), callouts, block
ids; PNG, SVG and PDF files in `attachments/` at the root. The output is deterministic for a seed.
"""

from __future__ import annotations

import math
import random
import shutil
import struct
import zlib
from dataclasses import dataclass
from datetime import date, timedelta
from functools import cache
from pathlib import Path
from urllib.parse import quote

import generate
from generate import SPANISH, WORDS, sentence

GERMAN = ("wiki erfassung warteschlange ergebnis seite verweis suche aufbau tabelle sprache zitat überschrift anker "
          "frist version artikel entwurf notiz idee plan besprechung quelle aufgabe").split()  # fmt: skip
VOCABULARY = {"en": WORDS, "es": SPANISH, "de": GERMAN}
# A note's made-up name is its number written with these syllables as digits (prefix-free, so names never collide).
SYLLABLES = {
    "latin": "ka lo mi re tu va se do pi na ru te bo li sa ge".split(),
    "cyrillic": "ка ло ми ре ту ва се до пи на ру те бо ли са ге".split(),
    "greek": "κα λο μι ρε τυ βα σε δο πι να ρυ τε βο λι σα γε".split(),
    "cjk": list("山川田木水火石花風月雲雨空海森光"),
    "thai": "กา โล มิ เร ตู วา เส โด ปิ นา รุ เต โบ ลิ สา เก".split(),
    "bengali": "কা লো মি রে তু বা সে দো পি না রু তে বো লি সা গে".split(),
}
SCRIPT_WORDS = {"cyrillic": "заметки", "greek": "σημειώσεις", "cjk": "笔记", "thai": "บันทึก", "bengali": "নোট"}
PHRASES = {  # a title's words around its made-up name; the same phrase in each language
    "en": ("{} notes", "Meeting with {}", "{} (draft)", "How {} works", "{} reading list", "Ideas for {}"),
    "es": ("Notas de {}", "Reunión con {}", "{} (borrador)", "Cómo funciona {}", "Lecturas de {}", "Ideas para {}"),
    "de": ("{} Notizen", "Besprechung mit {}", "{} (Entwurf)", "Wie {} funktioniert", "{} Leseliste", "Ideen für {}"),
}
EMOJI = ("🚀", "📚", "🧪", "💡", "🗂️", "🌱")
HEADINGS = {  # a long note's section headings, the same in each language
    "en": ("Overview", "Background", "Details", "Open questions", "Next steps", "Log", "Sources (older)"),
    "es": ("Resumen", "Contexto", "Detalles", "Preguntas abiertas", "Próximos pasos", "Registro", "Fuentes (antiguas)"),
    "de": ("Überblick", "Hintergrund", "Details", "Offene Fragen", "Nächste Schritte", "Protokoll", "Quellen (älter)"),
}
FOLDERS = ("Projects", "Projects/Active", "Projects/Archive (2022)", "Areas/Health 🏃", "Areas/Work/Meetings", "Inbox",
           "Resources/Reading 📚", "Resources/Research/Papers", "People", "Заметки/Личное", "研究/資料")  # fmt: skip
TAGS = ("project", "idea", "todo", "reading", "meeting", "area/health", "area/work", "status/draft", "status/done",
        "person", "book", "заметка", "研究")  # fmt: skip
CALLOUTS = ("[!note]", "[!tip]", "[!warning]", "[!info]", "[!todo]", "[!quote]", "[!example]", "[!faq]-")  # -: folded
LINK_KINDS = {"name": 60, "label": 12, "heading": 10, "block": 5, "path": 5, "markdown": 5, "file": 3}
EMBED_KINDS = {"note": 30, "heading": 25, "block": 15, "image": 30}
ATTACHMENTS = "attachments"
UNWRITTEN = 10**6  # broken links name notes numbered from here: no vault has that many


@dataclass(frozen=True)
class VaultShape:
    """What the generated vault looks like."""

    notes: int = 1000  # in the default language; translations come on top
    languages: tuple[str, ...] = ("en", "es", "de")  # the first is the default
    translated: float = 0.3  # the share of notes written in each other language
    links: tuple[int, ...] = (6, 7)  # a note has one of these many links and embeds
    embeds: float = 0.1
    broken: float = 0.02
    seed: int = 1


@dataclass(frozen=True)
class Note:
    """What other notes need to know of a note to link to it, and its properties."""

    number: int
    folder: str
    names: dict[str, str]  # language -> file name (the title), for each language it is written in
    words: int
    sections: tuple[int, ...]  # indexes into HEADINGS
    block: str | None  # the block id of its first paragraph
    aliases: tuple[str, ...]
    tags: tuple[str, ...]


def coined(number: int, script: str = "latin") -> str:
    """A made-up word that is note `number`'s alone: the number scrambled, in base 16, a syllable a digit."""
    syllables, digits = SYLLABLES[script], 3
    while number >= 16**digits:
        digits += 1
    value = number * 40503 % 16**digits  # an odd factor modulo a power of two: a bijection, so names stay unique
    return "".join(syllables[value // 16**place % 16] for place in range(digits)).capitalize()


def _names(number: int, rng: random.Random, languages: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """The note's folder and its file name in each of `languages`."""
    style = rng.random()
    if style < 0.12:  # a daily note: a date, in a folder of its year and month
        day = date(2019, 1, 1) + timedelta(days=number)
        return f"Journal/{day.year}/{day.month:02d}", dict.fromkeys(languages, day.isoformat())
    folder = FOLDERS[rng.randrange(len(FOLDERS))]
    if style < 0.27:  # one word
        return folder, dict.fromkeys(languages, coined(number))
    if style < 0.42:  # another script's, kept in translations as a name would be
        script = rng.choice(list(SCRIPT_WORDS))
        word = f" {SCRIPT_WORDS[script]}" if rng.random() < 0.5 else ""
        return folder, dict.fromkeys(languages, coined(number, script) + word)
    phrase = rng.randrange(len(PHRASES["en"]))
    emoji = f"{rng.choice(EMOJI)} " if rng.random() < 0.2 else ""
    return folder, {lang: emoji + PHRASES[lang][phrase].format(coined(number)) for lang in languages}


@cache
def note_of(number: int, shape: VaultShape) -> Note:
    """Note `number`'s facts, drawn from its own seed: any note's links can name it without writing it."""
    rng = random.Random(f"{shape.seed}-{number}-note")
    languages = shape.languages[:1] + tuple(lang for lang in shape.languages[1:] if rng.random() < shape.translated)
    folder, names = _names(number, rng, languages)
    words = min(8000, max(8, int(rng.lognormvariate(math.log(120), 1.1))))
    sections = tuple(rng.sample(range(len(HEADINGS["en"])), min(len(HEADINGS["en"]), words // 250)))
    block = f"{rng.getrandbits(24):06x}" if rng.random() < 0.3 else None
    name = coined(number)
    aliases = (name.lower(), name[:3].upper()) if rng.random() < 0.15 else ()
    tags = tuple(rng.sample(TAGS, rng.randint(1, 3))) if rng.random() < 0.3 else ()
    return Note(number, folder, names, words, sections, block, aliases, tags)


def path_of(number: int, shape: VaultShape, lang: str | None = None) -> str:
    note, lang = note_of(number, shape), lang or shape.languages[0]
    return f"{lang}/{note.folder}/{note.names[lang]}.md"


def link_to(number: int, shape: VaultShape) -> str:
    """A wikilink to note `number`, as a note of the default language writes it."""
    return f"[[{note_of(number, shape).names[shape.languages[0]]}]]"


def attachment_count(shape: VaultShape) -> int:
    return max(4, shape.notes // 8)


def attachment_name(index: int) -> str:
    """Attachment `index`'s file name, as Obsidian, screenshot tools and writers name them."""
    day, second = date(2021, 1, 1) + timedelta(days=index), index % 60
    return (f"Pasted image {day:%Y%m%d}1015{second:02d}.png", f"Screenshot {day} at 10.{second:02d}.png",
            f"diagram {coined(index).lower()}.svg", f"{coined(index)} report (final).pdf")[index % 4]  # fmt: skip


def _target(rng: random.Random, shape: VaultShape, number: int, lang: str, kind: str) -> tuple[Note, str]:
    """A note to link to from note `number` (not itself; hubs more often, as in real vaults), one with a section
    or a block when `kind` asks for it if one turns up, and the language of its version to name: `lang`'s
    when it is translated, else the default language's (the tool finds it by its language fallback)."""
    for _ in range(20):
        note = note_of(int(shape.notes * rng.random() ** 1.5), shape)
        wanted = {"heading": note.sections, "block": note.block}.get(kind, True)
        if note.number != number and wanted:
            break
    return note, lang if lang in note.names else shape.languages[0]


def _reference(rng: random.Random, shape: VaultShape, number: int, lang: str, kinds: dict[str, int]) -> str:
    """One link (of LINK_KINDS) or embed (of EMBED_KINDS) written in note `number`, as Obsidian writes it."""
    kind = rng.choices(list(kinds), weights=list(kinds.values()))[0]
    bang = "!" if kinds is EMBED_KINDS else ""
    if kind in ("image", "file"):
        name = attachment_name(rng.randrange(attachment_count(shape)))
        width = "|200" if kind == "image" and name.endswith(".png") and rng.random() < 0.5 else ""
        return f"{bang}[[{name}{width}]]"
    note, target_lang = _target(rng, shape, number, lang, kind)
    name = note.names[target_lang]
    if kind == "heading" and note.sections:
        return f"{bang}[[{name}#{HEADINGS[target_lang][rng.choice(note.sections)]}]]"
    if kind == "block" and note.block:
        return f"{bang}[[{name}#^{note.block}]]"
    if kind == "label":
        return f"[[{name}|{rng.choice(note.aliases or VOCABULARY[lang])}]]"
    if kind == "path" and target_lang == lang:
        return f"[[{note.folder}/{name}]]"
    if kind == "markdown":
        return f"[{rng.choice(VOCABULARY[lang])}]({quote(name + '.md', safe='()')})"  # as Obsidian's encodeURI has it
    return f"{bang}[[{name}]]"


def _references(rng: random.Random, shape: VaultShape, number: int, lang: str) -> list[str]:
    """The links and embeds of a note: a `broken` share to notes nobody wrote, an `embeds` share embeds."""
    found = []
    for _ in range(rng.choice(shape.links)):
        draw = rng.random()
        if draw < shape.broken:
            found.append(f"[[{coined(UNWRITTEN + rng.randrange(UNWRITTEN))}]]")
        else:
            kinds = EMBED_KINDS if draw < shape.broken + shape.embeds else LINK_KINDS
            found.append(_reference(rng, shape, number, lang, kinds))
    return found


def _frontmatter(note: Note) -> str:
    """Properties, for a note that has any (many notes have none)."""
    properties = [f"aliases: [{', '.join(note.aliases)}]"] if note.aliases else []
    properties += [f"tags: [{', '.join(note.tags)}]"] if note.tags else []
    if len(note.names) > 1:  # translated: paired with its translations by this key (`settings`)
        properties.append(f"permalink: {coined(note.number).lower()}")
    return "---\n" + "\n".join(properties) + "\n---\n\n" if properties else ""


def _paragraph(rng: random.Random, vocabulary: list[str], words: int, links: list[str]) -> str:
    sentences = [sentence(rng, vocabulary, rng.randint(6, 16)) for _ in range(max(1, words // 11))]
    for link in links:
        at = rng.randrange(len(sentences))
        sentences[at] = f"{sentences[at][:-1]} {link}."
    if rng.random() < 0.15:
        sentences[-1] += f" #{rng.choice(TAGS)}"
    return " ".join(sentences)


def _callout(rng: random.Random, vocabulary: list[str]) -> str:
    lines = [sentence(rng, vocabulary, rng.randint(6, 14)) for _ in range(rng.randint(1, 3))]
    return f"> {rng.choice(CALLOUTS)} {sentence(rng, vocabulary, 3)[:-1]}\n" + "\n".join(f"> {line}" for line in lines)


def note_text(number: int, shape: VaultShape, lang: str | None = None) -> str:
    """Note `number` in `lang`: properties, maybe its title as a heading, prose carrying its links, its embeds
    on lines of their own, maybe a callout, and sections when it is long (a short one lists its links)."""
    note, lang = note_of(number, shape), lang or shape.languages[0]
    # Its links drawn alike in every language, so a translation links (mostly) to the same notes.
    references = _references(random.Random(f"{shape.seed}-{number}-links"), shape, number, lang)
    rng, vocabulary = random.Random(f"{shape.seed}-{number}-{lang}-text"), VOCABULARY[lang]
    links = [reference for reference in references if not reference.startswith("!")]
    count = max(1, note.words // 70)
    carried: list[list[str]] = [[] for _ in range(count)]
    for link in links if note.words >= 60 else ():
        carried[rng.randrange(count)].append(link)
    blocks = [_paragraph(rng, vocabulary, note.words // count, carried[index]) for index in range(count)]
    if note.block:
        blocks[0] += f" ^{note.block}"
    for embed in (reference for reference in references if reference.startswith("!")):
        blocks.insert(rng.randint(1, len(blocks)), embed)
    if rng.random() < 0.25:
        blocks.insert(1, _callout(rng, vocabulary))
    spread = len(blocks) - 1  # the blocks after the first, shared among the sections (inserted last first)
    for order, heading in reversed(list(enumerate(note.sections))):
        blocks.insert(1 + order * spread // len(note.sections), f"## {HEADINGS[lang][heading]}")
    if note.words < 60:
        blocks.append("\n".join(f"- {link}" for link in links))
    title = [f"# {note.names[lang]}"] if rng.random() < 0.3 else []
    return _frontmatter(note) + "\n\n".join(title + blocks) + "\n"


def _png(index: int) -> bytes:
    """A one-pixel PNG of a colour of its own, so no two attachments have the same bytes."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)
    pixel = zlib.compress(b"\x00" + (index % 2**24).to_bytes(3, "big"))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixel) + chunk(b"IEND", b"")


def _pdf(index: int) -> bytes:
    """A blank one-page PDF (its cross-reference table right), its index in a comment so its bytes are its own."""
    objects = (b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
               b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 72 72] >>")  # fmt: skip
    out, offsets = bytearray(b"%%PDF-1.4\n%% attachment %d\n" % index), []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    table = b"xref\n0 4\n0000000000 65535 f \n" + b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    return bytes(out + table + b"trailer\n<< /Size 4 /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % len(out))


def attachment_bytes(index: int) -> bytes:
    name = attachment_name(index)
    if name.endswith(".svg"):
        square = f'<rect width="8" height="8" fill="#{index % 4096:03x}"/>'
        return f'<svg xmlns="http://www.w3.org/2000/svg" width="8" height="8">{square}</svg>\n'.encode()
    return _pdf(index) if name.endswith(".pdf") else _png(index)


def generate_vault(out: Path, shape: VaultShape) -> int:
    """Write the vault into `out`; return the number of files."""
    files = 0
    for number in range(shape.notes):
        for lang in note_of(number, shape).names:
            path = out / path_of(number, shape, lang)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(note_text(number, shape, lang), encoding="utf-8")
            files += 1
    (out / ATTACHMENTS).mkdir(parents=True, exist_ok=True)
    for index in range(attachment_count(shape)):
        (out / ATTACHMENTS / attachment_name(index)).write_bytes(attachment_bytes(index))
    return files + attachment_count(shape)


def settings(shape: VaultShape) -> str:
    """The wiki.yaml lines that have the tool read the vault as Obsidian does (content/obsidian-and-github.md)."""
    return (f"links: obsidian\nlanguage_folders: true\nlanguages: [{', '.join(shape.languages)}]\n"
            f"default_language: {shape.languages[0]}\npairing: key\npairing_key: permalink\n")  # fmt: skip


def hugo_tree(vault: Path, site: Path, shape: VaultShape) -> None:
    """The same notes as a Hugo site, each language folder a language's `contentDir`, the attachments static."""
    each = (f'[languages.{lang}]\ncontentDir = "content/{lang}"\nweight = {weight}\n'
            for weight, lang in enumerate(shape.languages, 1))  # fmt: skip
    generate.hugo_tree(vault, site, f'\ndefaultContentLanguage = "{shape.languages[0]}"\n' + "".join(each))
    shutil.copytree(vault / ATTACHMENTS, site / "static" / ATTACHMENTS)


def mkdocs_tree(vault: Path, project: Path) -> None:
    """The same notes as a MkDocs project (each language a folder of pages), with the attachments."""
    generate.mkdocs_tree(vault, project)
    shutil.copytree(vault / ATTACHMENTS, project / "docs" / ATTACHMENTS)
