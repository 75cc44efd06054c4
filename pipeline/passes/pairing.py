"""pairing: find each article's translations and check the pairing.

The strategy is the `pairing` option:

- `paired_with` (default): the frontmatter key `paired_with` names the
  counterpart, as a file name relative to the article's folder
  (`_index.md` from `architecture/_index.es.md`) or a path from the content
  root. The claim is checked in both directions.
- `suffix`: `<name>.md` and `<name>.<lang>.md` in one folder are a group.
- `key`: articles sharing a value of the frontmatter key named by
  `pairing_key` (default `translation_key`) are a group, whatever their names.

Under `suffix` and `key`, a `paired_with` that is present must agree.

Diagnostics, each on the line of the relevant frontmatter key:
`missing-pair` (the named counterpart does not exist), `one-way-pair` (it
does not name this article back), `same-language-pair`, `conflicting-pair`
(another file claims the same counterpart, or `paired_with` disagrees with
the sibling/key group), `outdated-translation`, and `missing-translation`
(info: the languages of the wiki, `languages:` or else those its articles
are in, that the article has no translation in).

The source of a pair is the article in the default language; a translation
is outdated when its source changed after it, judged by the best evidence
there is: (1) the translation's frontmatter `source_revision`, the sha256 (or
a prefix of at least 7 hex digits) of the source file it was translated
from; (2) otherwise the last commit times in git; (3) otherwise the time
each file's current bytes were captured.

Output: `translations` (counterparts with path, lang and url, for the
language switcher and hreflang), `role` (`source`, `translation` or null),
`outdated` (null or what the translation lags, and by which evidence).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from pipeline.content.article import Article
from pipeline.passes.base import DIAGNOSTICS_SCHEMA, Wiki, by_column, diagnostic
from pipeline.passes.contract import Incremental, Pass
from pipeline.passes.pairing_index import OWN_CLAIMS, Entry, Index, build_index, candidates, claims_of, reached
from pipeline.text import frontmatter_line

NAME = "pairing"
INDEX = f"{NAME}.index"  # the memo key of the pairing index
REVISION_KEY = "source_revision"
HEX_REVISION = re.compile(r"^[0-9a-f]{7,64}$")
SHORT = 12  # characters of a sha256 shown to people

CONTRACT = {
    "type": "object",
    "required": ["translations", "role", "outdated", "diagnostics"],
    "properties": {
        "translations": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["path", "lang", "url"],
                "properties": {"path": {"type": "string"}, "lang": {"type": "string"}, "url": {"type": "string"}},
            },
        },
        "role": {"enum": ["source", "translation", None]},
        "outdated": {
            "type": ["object", "null"],
            "required": ["source_path", "evidence", "lags", "message"],
            "properties": {
                "source_path": {"type": "string"},
                "evidence": {"enum": ["frontmatter", "git", "history"]},
                "lags": {"type": "string"},
                "message": {"type": "string"},
            },
        },
        "diagnostics": DIAGNOSTICS_SCHEMA,
    },
}


# ---------------------------------------------------------------- select


def select(article: Article, wiki: Wiki) -> dict:
    options, index = _memos(wiki)
    me = index.entries[article.path]
    strategy = options["pairing"]
    paths = candidates(me, index, strategy)
    counterparts = [_counterpart(index.entries[p], me, strategy) for p in paths]
    rivals = [p for p in index.claims.get(me.target, []) if p != me.path] if me.target else []
    source = _source_of(me, counterparts, options["default_language"])
    return {
        "options": options,
        "self": {"lang": me.lang, "paired_with": me.paired_with, "target": me.target,
                 "target_exists": me.target in index.entries},
        "counterparts": counterparts,
        "rivals": rivals,
        "evidence": _evidence(article, source, wiki.facts, _shas(wiki)),
        "languages": _languages(wiki, options, index),
    }  # fmt: skip


def _options(options: dict) -> dict:
    return {
        "pairing": options.get("pairing") or "paired_with",
        "pairing_key": options.get("pairing_key") or "translation_key",
        "default_language": options["default_language"],
        "languages": options.get("languages"),
    }


def _languages(wiki: Wiki, options: dict, index: Index) -> list[str]:
    """The wiki's languages: `languages:` of wiki.yaml, else the default one and those of its articles."""
    return wiki.memo("pairing.languages", lambda: options["languages"] or _languages_of(index, options["default_language"]))


def _languages_of(index: Index, default: str) -> list[str]:
    return sorted({entry.lang for entry in index.entries.values()} | {default})


def pairing_sources(wiki: Wiki) -> list:
    """What `select` reads of every article's capture: its pairing fields (lang and URL come
    from the metadata results). Hashes and histories are read per article (`pairing_evidence`)."""
    options = _wiki_options(wiki)
    rows = [(a.path, *claim) for a, claim in zip(wiki.articles, claims_of(wiki, options))]
    return sorted(rows, key=lambda row: row[0])


@by_column
def pairing_evidence(articles: list[Article], wiki: Wiki) -> list:
    """What `select` reads of other articles for each article alone: the hash, git time and capture
    history of a translation and of its candidate counterparts (its source among them), so that
    an edit replans the pairing of the edited article's translations, not of the whole wiki.
    A source reads none: it is never outdated."""
    options, index = _memos(wiki)
    git, history, shas = wiki.facts.get("git_times") or {}, wiki.facts.get("history") or {}, _shas(wiki)
    default, strategy, entries = options["default_language"], options["pairing"], index.entries
    found = []
    for me in (entries[article.path] for article in articles):
        paths = [] if me.lang == default else [me.path, *candidates(me, index, strategy)]
        found.append([(path, shas[path], git.get(path), history.get(path)) for path in paths])
    return found


def _memos(wiki: Wiki) -> tuple[dict, Index]:
    options = _wiki_options(wiki)
    return options, wiki.memo(INDEX, lambda: build_index(wiki, options))


def _wiki_options(wiki: Wiki) -> dict:
    return wiki.memo("pairing.options", lambda: _options(wiki.options))


def _shas(wiki: Wiki) -> dict[str, str]:
    return wiki.memo("pairing.shas", lambda: {a.path: a.sha256 for a in wiki.articles})


def affected(old: dict, wiki: Wiki, touched) -> list[int] | None:
    """The articles whose select may read something else than in the last read set, whose index is `old`
    (`reached`; None: that index was not kept). This build's index keeps the last read set's entries where
    an article's metadata and claim are as they were (the planner asks only when the options are too)."""
    if INDEX not in old:
        return None
    options = _wiki_options(wiki)
    now = wiki.memo(INDEX, lambda: build_index(wiki, options, old[INDEX]))
    if not options["languages"] and _languages_of(old[INDEX], "") != _languages_of(now, ""):
        return None  # every article's missing translations may differ
    return reached(old[INDEX], now, wiki.articles)


def _counterpart(entry: Entry, me: Entry, strategy: str) -> dict:
    record = {"path": entry.path, "lang": entry.lang, "url": entry.url}
    if strategy == "paired_with":  # to check that the claim is returned
        record["target"] = entry.target
    else:  # to check that `paired_with` agrees with the group
        record["sibling"] = me.group is not None and entry.group == me.group
    return record


def _source_of(me: Entry, counterparts: list[dict], default_language: str) -> str | None:
    if me.lang == default_language:
        return None
    sources = [c["path"] for c in counterparts if c["lang"] == default_language]
    return sources[0] if sources else None


def _evidence(article: Article, source: str | None, facts: dict, shas: dict[str, str]) -> dict | None:
    """Only what the outdated check reads: the best evidence available for this pair (`source`: its path)."""
    if source is None:
        return None
    if source_revision(article.frontmatter) is not None:
        revision = source_revision(article.frontmatter)
        return {"kind": "frontmatter", "source_path": source, "revision": revision, "source_sha256": shas[source]}
    git = facts.get("git_times") or {}
    if article.path in git and source in git:
        return {"kind": "git", "source_path": source, "source": git[source], "own": git[article.path]}
    history = facts.get("history") or {}
    since = current_since(history.get(source), shas[source])
    own = current_since(history.get(article.path), article.sha256)
    if since and own:
        return {"kind": "history", "source_path": source, "source": since, "own": own, "source_sha256": shas[source]}
    return None


def source_revision(frontmatter: dict | None) -> str | None:
    """The `source_revision` field when it is a usable sha256 prefix (YAML may read digits as a number)."""
    value = (frontmatter or {}).get(REVISION_KEY)
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    value = value.strip().lower() if isinstance(value, str) else ""
    return value if HEX_REVISION.match(value) else None


def current_since(history: list | None, sha256: str) -> str | None:
    """When the current bytes were captured, at the start of their latest unbroken run.

    A file reverted to older bytes counts from the revert, not from their first sighting.
    """
    since = None
    for captured_at, sha in reversed(history or []):
        if sha != sha256:
            break
        since = captured_at
    return since


# ---------------------------------------------------------------- run


def run(article: Article, inputs: dict) -> dict:
    me, options = inputs["self"], inputs["options"]
    translations = _translations(me, inputs["counterparts"])
    default = options["default_language"]
    role = None
    if translations:
        has_source = any(t["lang"] == default for t in translations)
        role = "source" if me["lang"] == default else "translation" if has_source else None
    diagnostics = _check(article, inputs)
    outdated = _outdated(inputs["evidence"]) if role == "translation" else None
    if outdated:
        key = REVISION_KEY if outdated["evidence"] == "frontmatter" else _pair_key(article, options)
        diagnostics.append(diagnostic("outdated-translation", outdated["message"], _line(article, key)))
    diagnostics += _missing(article, me["lang"], translations, inputs["languages"], options)
    return {"translations": translations, "role": role, "outdated": outdated, "diagnostics": diagnostics}


def _missing(article: Article, lang: str, translations: list[dict], languages: list[str], options: dict) -> list[dict]:
    """`missing-translation` (info) naming the wiki's languages the article has no translation in."""
    have = {lang, *(t["lang"] for t in translations)}
    missing = [other for other in languages if other not in have]
    if not missing or lang not in languages:
        return []
    message = f"no translation in {', '.join(missing)}"
    return [diagnostic("missing-translation", message, _line(article, _pair_key(article, options)), severity="info")]


def _translations(me: dict, counterparts: list[dict]) -> list[dict]:
    """Counterparts in another language, one per language (the first by path wins)."""
    chosen: dict[str, dict] = {}
    for c in counterparts:
        if c["lang"] != me["lang"] and c["lang"] not in chosen:
            chosen[c["lang"]] = {"path": c["path"], "lang": c["lang"], "url": c["url"]}
    return sorted(chosen.values(), key=lambda t: t["lang"])


def _check(article: Article, inputs: dict) -> list[dict]:
    me, options = inputs["self"], inputs["options"]
    found = _check_claim(article.path, inputs) if me["paired_with"] else []
    if options["pairing"] != "paired_with":
        found += _check_group(inputs)
    keys = {"paired_with": "paired_with", "group": _pair_key(article, options)}
    return [diagnostic(code, message, _line(article, keys[key])) for code, message, key in found]


def _check_claim(own: str, inputs: dict) -> list[tuple[str, str, str]]:
    """Problems with this article's own `paired_with`: (code, message, where)."""
    me, strategy = inputs["self"], inputs["options"]["pairing"]
    target = me["target"]
    if not me["target_exists"]:
        return [("missing-pair", f"paired_with names '{me['paired_with']}', which does not exist", "paired_with")]
    counterpart = next((c for c in inputs["counterparts"] if c["path"] == target), None)
    if counterpart is None or counterpart["lang"] == me["lang"]:
        return [("same-language-pair", f"paired_with names '{target}', in the same language ({me['lang']})",
                 "paired_with")]  # fmt: skip
    if inputs["rivals"]:
        return [("conflicting-pair", f"'{target}' is also claimed by {', '.join(inputs['rivals'])}", "paired_with")]
    if strategy != "paired_with":
        return _disagreement(me, inputs)
    if counterpart["target"] is None:
        return [("one-way-pair", f"'{target}' has no paired_with naming this article back", "paired_with")]
    if counterpart["target"] != own:
        message = f"'{target}' is paired with '{counterpart['target']}', not this article"
        return [("one-way-pair", message, "paired_with")]
    return []


def _disagreement(me: dict, inputs: dict) -> list[tuple[str, str, str]]:
    """Under `suffix` or `key`, a `paired_with` naming a file outside the group."""
    siblings = [c["path"] for c in inputs["counterparts"] if c["sibling"]]
    if siblings and me["target"] not in siblings:
        how = "file name" if inputs["options"]["pairing"] == "suffix" else inputs["options"]["pairing_key"]
        message = f"paired_with names '{me['target']}' but the {how} pairs this article with {', '.join(siblings)}"
        return [("conflicting-pair", message, "paired_with")]
    return []


def _check_group(inputs: dict) -> list[tuple[str, str, str]]:
    me = inputs["self"]
    same = [c["path"] for c in inputs["counterparts"] if c["sibling"] and c["lang"] == me["lang"]]
    if not same:
        return []
    return [("same-language-pair", f"{', '.join(same)} is in the same language ({me['lang']})", "group")]


def _outdated(evidence: dict | None) -> dict | None:
    """What the translation lags, if its source changed after it."""
    if evidence is None:
        return None
    source = evidence["source_path"]
    kind = evidence["kind"]
    if kind == "frontmatter":
        return _lags_revision(source, evidence)
    if evidence["own"] >= evidence["source"]:
        return None
    if kind == "git":
        lags, when = _utc(evidence["source"]), _utc(evidence["own"])
        message = f"'{source}' was committed at {lags}, after this translation's last commit ({when})"
    else:
        lags = evidence["source_sha256"][:SHORT]
        when = evidence["own"]
        message = f"'{source}' changed to revision {lags} at {evidence['source']}, after this translation ({when})"
    return {"source_path": source, "evidence": kind, "lags": lags, "message": message}


def _lags_revision(source: str, evidence: dict) -> dict | None:
    current = evidence["source_sha256"]
    made_from = evidence["revision"]
    if current.startswith(made_from):
        return None
    message = f"translated from revision {made_from[:SHORT]} of '{source}', which is now at {current[:SHORT]}"
    return {"source_path": source, "evidence": "frontmatter", "lags": current[:SHORT], "message": message}


def _utc(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, tz=timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _pair_key(article: Article, options: dict) -> str:
    """The frontmatter key that makes this article part of its pair, for diagnostics' lines."""
    if options["pairing"] == "key":
        return options["pairing_key"]
    if options["pairing"] == "suffix" and not (article.frontmatter or {}).get("paired_with"):
        return "lang"
    return "paired_with"


def _line(article: Article, key: str) -> int:
    return frontmatter_line(article.text, key, article.body_line)


PASS = Pass(
    name="pairing",
    version=4,
    contract=CONTRACT,
    run=run,
    select=select,
    needs=("metadata",),
    wiki_options=("pairing", "pairing_key", "default_language"),
    incremental=Incremental(
        reads=("options", "metadata", pairing_sources),
        reads_own=(pairing_evidence,),
        keep=(INDEX,),
        keep_by_capture=(OWN_CLAIMS,),
        affected=affected,
    ),
)
