"""Generate a synthetic bilingual wiki for benchmarks.

    python benchmarks/generate.py OUT_DIR --articles 1000 [--spanish 0.3] [--links 8]
        [--broken 0.02] [--mentions 3] [--words 1000] [--seed 1] [--profile {wiki,vault}]

Each English article has about `--words` words in sections with headings,
lists, a table, a code block, `--links` wikilinks to other articles (a
`--broken` share of them to pages that do not exist), `--mentions` titles of
other articles in plain text (as the real wiki's articles have about three
each, for the mentions pass to find) and two footnote citations. A
`--spanish` share of articles get a `.es.md` translation paired both ways.
Articles live in ten folders. The output is deterministic for a seed.
`hugo_tree` and `mkdocs_tree` write the same articles as a Hugo site and a
MkDocs project, so the tools are timed on one corpus. That is the `wiki`
profile; `--profile vault` writes an Obsidian-style vault of `--articles`
notes instead (benchmarks/vault.py: only `--broken` and `--seed` apply).
"""

from __future__ import annotations

import argparse
import random
import re
from dataclasses import dataclass
from pathlib import Path

WORDS = (
    "wiki capture queue worker result render page link index search build token parser stream table "
    "language pair citation heading anchor budget lease retry backoff fence commit journal snapshot "
    "cache shard digest ledger schema contract version fingerprint article editor review draft"
).split()
SPANISH = (
    "wiki captura cola trabajador resultado página enlace índice búsqueda compilación analizador tabla "
    "idioma par cita encabezado ancla plazo reintento versión huella artículo editor revisión borrador"
).split()
HUGO_LANGUAGES = '\ndefaultContentLanguage = "en"\n[languages.en]\nweight = 1\n[languages.es]\nweight = 2\n'
FOLDERS = ("guides", "reference", "concepts", "howto", "api", "ops", "design", "security", "data", "misc")


@dataclass(frozen=True)
class Shape:
    """What the generated wiki looks like."""

    articles: int = 1000
    spanish: float = 0.3
    links: int = 8
    broken: float = 0.02
    mentions: int = 3
    words: int = 1000
    seed: int = 1


def slug_of(number: int) -> str:
    return f"topic-{number:06d}"


def path_of(number: int, lang: str = "en") -> str:
    suffix = ".es.md" if lang == "es" else ".md"
    return f"{FOLDERS[number % len(FOLDERS)]}/{slug_of(number)}{suffix}"


def title_of(number: int, lang: str = "en") -> str:
    return f"{'Tema' if lang == 'es' else 'Topic'} {number} {WORDS[number % len(WORDS)].title()}"


def sentence(rng: random.Random, vocabulary: list[str], size: int) -> str:
    words = [rng.choice(vocabulary) for _ in range(size)]
    return " ".join(words).capitalize() + "."


def _paragraph(rng: random.Random, vocabulary: list[str], words: int, links: list[str], mentions: list[str]) -> str:
    sentences, count = [], 0
    while count < words:
        size = rng.randint(8, 18)
        text = sentence(rng, vocabulary, size)
        if links:
            text = text[:-1] + f" (see [[{links.pop()}]])."
        elif mentions:
            text = text[:-1] + f", as {mentions.pop()} says."
        sentences.append(text)
        count += size
    return " ".join(sentences)


def article_text(number: int, shape: Shape, lang: str = "en") -> str:
    """One article: frontmatter, sections with prose, a list, a table, code, links and citations."""
    rng = random.Random(f"{shape.seed}-{number}-{lang}")
    vocabulary = SPANISH if lang == "es" else WORDS
    links = []
    for _ in range(shape.links):
        if rng.random() < shape.broken:
            links.append(f"missing-page-{rng.randrange(10**6)}")
        else:
            links.append(slug_of(rng.randrange(shape.articles)))
    # Drawn after the links, so a wiki without mentions is the one earlier rounds timed.
    mentions = [title_of(rng.randrange(shape.articles), lang) for _ in range(shape.mentions)]
    other = "es" if lang == "en" else "en"
    pair = f"paired_with: {slug_of(number)}{'.es' if other == 'es' else ''}.md\n" if _has_spanish(number, shape) else ""
    head = (
        f"---\ntitle: \"{title_of(number, lang)}\"\nslug: {slug_of(number)}\nlang: {lang}\n{pair}"
        f"short_description: \"{sentence(rng, vocabulary, 10)}\"\ncategory: {FOLDERS[number % len(FOLDERS)]}\n"
        "references:\n  - id: 1\n    text: \"A reference\"\n    url: https://example.org/a\n"
        "  - id: 2\n    text: \"Another reference\"\n    url: https://example.org/b\n---\n\n"
    )
    per_section = max(40, shape.words // 5)
    sections = []
    for index in range(5):
        body = _paragraph(rng, vocabulary, per_section - 40, links if index < 4 else [], mentions if index < 4 else [])
        sections.append(f"## {sentence(rng, vocabulary, 3)[:-1]}\n\n{body}\n")
    sections.insert(1, "".join(f"- {sentence(rng, vocabulary, 5)}\n" for _ in range(4)))
    sections.insert(3, "| key | value |\n|---|---|\n" + "".join(f"| {w} | {i} |\n" for i, w in enumerate(WORDS[:4])))
    sections.insert(4, "```python\nfor item in items:\n    print(item)  # [[not-a-link]]\n```\n")
    cites = "Cited twice[^1] and once more[^2].\n"
    return head + "\n".join(sections) + "\n" + cites


def retitled(text: str, title: str) -> str:
    """An article's text with `title` as its frontmatter's `title`: replaced, or added (with frontmatter when
    it has none, as a vault's note may not)."""
    line = f'title: "{title}"'
    if re.search(r'^title: ".*"$', text, flags=re.M):
        return re.sub(r'^title: ".*"$', line, text, count=1, flags=re.M)
    return f"---\n{line}\n" + (text.removeprefix("---\n") if text.startswith("---\n") else f"---\n\n{text}")


def _has_spanish(number: int, shape: Shape) -> bool:
    return (number * 7919) % 1000 < shape.spanish * 1000


def generate(out: Path, shape: Shape) -> int:
    """Write the wiki into `out`; return the number of files."""
    files = 0
    for number in range(shape.articles):
        languages = ("en", "es") if _has_spanish(number, shape) else ("en",)
        for lang in languages:
            path = out / path_of(number, lang)
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(article_text(number, shape, lang), encoding="utf-8")
            files += 1
    return files


def hugo_tree(wiki: Path, site: Path, languages: str = HUGO_LANGUAGES) -> None:
    """The same articles as a Hugo site (wikilinks stay text: Hugo has none), `languages` its config's part.

    By default Hugo pairs `name.es.md` with `name.md` by its file name, as `es` is a configured
    language, and builds it under `/es/`, as pipeline does.
    """
    (site / "content").mkdir(parents=True, exist_ok=True)
    (site / "hugo.toml").write_text('baseURL = "http://localhost/"\ntitle = "bench"\n' + languages)
    layouts = site / "layouts" / "_default"
    layouts.mkdir(parents=True, exist_ok=True)
    (layouts / "single.html").write_text("<html><body><h1>{{ .Title }}</h1>{{ .TableOfContents }}{{ .Content }}</body></html>")
    (layouts / "list.html").write_text("<html><body>{{ range .Pages }}<a href='{{ .RelPermalink }}'>{{ .Title }}</a>{{ end }}</body></html>")
    _copy_articles(wiki, site / "content")


def mkdocs_tree(wiki: Path, project: Path) -> None:
    """The same articles as a MkDocs project with the Material theme. MkDocs has no languages
    without a plugin, so each Spanish article is a page of its own (`name.es/`)."""
    docs = project / "docs"
    docs.mkdir(parents=True, exist_ok=True)
    (project / "mkdocs.yml").write_text("site_name: bench\ntheme:\n  name: material\n")
    (docs / "index.md").write_text("# Home\n")
    _copy_articles(wiki, docs)


def _copy_articles(wiki: Path, content: Path) -> None:
    """Every article of `wiki`, English and Spanish, at the same paths under `content`."""
    for source in wiki.rglob("*.md"):
        target = content / source.relative_to(wiki)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(source.read_bytes())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--articles", type=int, default=Shape.articles)
    parser.add_argument("--spanish", type=float, default=Shape.spanish)
    parser.add_argument("--links", type=int, default=Shape.links)
    parser.add_argument("--broken", type=float, default=Shape.broken)
    parser.add_argument("--mentions", type=int, default=Shape.mentions)
    parser.add_argument("--words", type=int, default=Shape.words)
    parser.add_argument("--seed", type=int, default=Shape.seed)
    parser.add_argument("--profile", choices=("wiki", "vault"), default="wiki",
                        help="vault: an Obsidian-style vault (benchmarks/vault.py) of --articles notes")  # fmt: skip
    args = parser.parse_args(argv)
    if args.profile == "vault":
        from vault import VaultShape, generate_vault  # here, not above: vault.py imports this module

        files = generate_vault(args.out, VaultShape(notes=args.articles, broken=args.broken, seed=args.seed))
    else:
        shape = Shape(args.articles, args.spanish, args.links, args.broken, args.mentions, args.words, args.seed)
        files = generate(args.out, shape)
    print(f"{files} files written to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
