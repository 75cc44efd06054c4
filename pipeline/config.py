"""Typed, validated configuration: one `Config` read from an optional `wiki.yaml`.

Every option has a default, so a wiki needs no file at all. Relative paths in
`wiki.yaml` are relative to the file's folder; paths given on the command line
are relative to the current directory. Command-line options win over the file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pipeline.errors import ConfigError
from pipeline.runtime import safe_yaml

CONFIG_FILE = "wiki.yaml"
# The shape of a BCP 47 language tag (`en`, `pt-BR`, `zh-Hant-TW`, `es-419`): a language names URL folders
# and `lang` attributes, so nothing else may pass for one. 35 characters is RFC 5646's practical length.
LANGUAGE_TAG = re.compile(r"[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*")
LANGUAGE_TAG_LENGTH = 35
WEB_URL = re.compile(r"https?://[^\s/?#]+\S*\Z", re.IGNORECASE)  # `site_url`, `repo_url`: written into every page


@dataclass(frozen=True)
class JobsConfig:
    """How processing jobs are retried and leased."""

    max_attempts: int = 5  # attempts before a retryable failure becomes terminal
    backoff_base: float = 2.0  # seconds before the first retry; doubles each attempt
    backoff_cap: float = 300.0  # no retry waits longer than this (before jitter)
    lease_seconds: float = 60.0  # a claimed job not completed by then is stale
    batch_size: int = 64  # jobs claimed (and completed) per transaction


@dataclass(frozen=True)
class SpoolConfig:
    """Where editorial events wait and where they end up."""

    dir: Path | None = None  # default: <state_dir>/spool
    corpus: Path | None = None  # default: <state_dir>/corpus/editorial-events.jsonl
    lease_seconds: float = 30.0  # an in-flight event not heartbeated by then is requeued
    max_attempts: int = 5  # deliveries before an event goes to queue-poison/


@dataclass(frozen=True)
class Config:
    """All options of a wiki. Each is documented in the bundled wiki's content/configuration.md."""

    site_name: str = "Wiki"
    base_url: str = "/"  # where the site is published, e.g. /docs/ for a sub-path
    default_language: str = "en"
    languages: list[str] | None = None  # None: every language found in the content
    content_dir: Path = Path("content")
    out_dir: Path = Path("site")
    state_dir: Path = Path(".pipeline")
    templates_dir: Path | None = None  # a folder whose templates override the built-in ones
    exclude: list[str] = field(default_factory=list)  # glob patterns, relative to content_dir
    strict: bool = False  # warnings fail `check` and `build`
    workers: int = 0  # worker processes; 0 means one per CPU
    autolink: Literal["suggest", "apply"] = "suggest"
    pairing: Literal["paired_with", "suffix", "key"] = "paired_with"
    pairing_key: str = "translation_key"  # the frontmatter key used when pairing is "key"
    raw_html: bool = False  # pass raw HTML in Markdown through instead of escaping it
    links: Literal["wiki", "obsidian"] = "wiki"  # how a link's target is matched (content/obsidian-and-github.md)
    # Top-level folders are languages (`en/`, `es/`): None detects it (every folder holding notes is in `languages`)
    language_folders: bool | None = None
    search: bool = True  # index the built site with Pagefind and show a search box
    # Extra passes (dotted module names or .py paths), or one-key mappings of a module or pass name to its options
    passes: list = field(default_factory=list)
    # Markdown extensions: names, or one-key mappings name -> options (or false: off); see markdown/extensions.py
    markdown: list = field(default_factory=list)
    # Site outputs added (modules, installed emitters) or built-ins turned off (name: false); see site/emitters/
    emitters: list = field(default_factory=list)
    # Sharing (content/site.md): the published site's absolute URL (canonical and OpenGraph URLs, feeds), and
    # "Edit this page" as MkDocs has it: `edit_uri` (absolute, or relative to `repo_url`) + the article's path
    site_url: str | None = None
    repo_url: str | None = None
    edit_uri: str | None = None
    # The navigation tree, as MkDocs' `nav:` (content/navigation-and-theme.md); empty: folders, else categories
    nav: list = field(default_factory=list)
    # The theme's words: language -> word key -> text, over the built-in ones (content/navigation-and-theme.md)
    ui_strings: dict = field(default_factory=dict)
    jobs: JobsConfig = field(default_factory=JobsConfig)
    spool: SpoolConfig = field(default_factory=SpoolConfig)

    @property
    def state_db(self) -> Path:
        return self.state_dir / "state.db"

    @property
    def spool_dir(self) -> Path:
        return self.spool.dir or self.state_dir / "spool"

    @property
    def corpus_path(self) -> Path:
        return self.spool.corpus or self.state_dir / "corpus" / "editorial-events.jsonl"


PATH_FIELDS = {"content_dir", "out_dir", "state_dir", "templates_dir", "dir", "corpus"}


def load_config(
    path: Path | None = None,
    *,
    content: str | os.PathLike | None = None,
    out: str | os.PathLike | None = None,
    state: str | os.PathLike | None = None,
    base_url: str | None = None,
) -> Config:
    """Read `wiki.yaml` (or `path`), apply command-line overrides and validate."""
    explicit = path is not None
    path = Path(path) if explicit else Path(CONFIG_FILE)
    raw: dict = {}
    if path.exists():
        raw = _read(path)
    elif explicit:
        raise ConfigError(f"{path}: no such config file")
    base = path.parent
    config = _checked_languages(_build(Config, raw, base, str(path)), str(path))
    config = dataclasses.replace(
        config, markdown=_named_items(config.markdown, "markdown", str(path), base),
        passes=_named_items(config.passes, "passes", str(path), base),
        emitters=_named_items(config.emitters, "emitters", str(path), base),
    )  # fmt: skip
    _check_nav(config.nav, f"{path}: nav")
    _check_web_urls(config, str(path))
    _check_workers_and_theme(config, str(path))
    config = dataclasses.replace(config, ui_strings=_checked_ui_strings(config.ui_strings, f"{path}: ui_strings"))
    overrides = {k: Path(v) for k, v in (("content_dir", content), ("out_dir", out), ("state_dir", state)) if v}
    if "state_dir" not in overrides and "state_dir" not in raw and "content_dir" in overrides:
        overrides["state_dir"] = _state_for(config.state_dir, Path(overrides["content_dir"]), config.content_dir)
    if base_url is not None:
        overrides["base_url"] = base_url
    return dataclasses.replace(config, **overrides)


def _read(path: Path) -> dict:
    """The options of `path` (wiki.yaml), through the same YAML limits as content."""
    try:
        raw = safe_yaml.load(path.read_text(encoding="utf-8")) or {}
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 (byte 0x{exc.object[exc.start]:02x})") from None
    except safe_yaml.YamlError as exc:
        raise ConfigError(f"{path}:{exc.line}: YAML {exc}") from None
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: the top level must be a mapping of options")
    return raw


def is_language_tag(value: str) -> bool:
    """Whether `value` has the shape of a BCP 47 language tag."""
    return len(value) <= LANGUAGE_TAG_LENGTH and LANGUAGE_TAG.fullmatch(value) is not None


def _checked_languages(config: Config, where: str) -> Config:
    """`default_language` and `languages` must be language tags (they name URL folders); kept in lower case,
    as the metadata pass keeps each article's."""
    named = [("default_language", config.default_language), *(("languages", lang) for lang in config.languages or ())]
    for name, value in named:
        if not is_language_tag(value):
            raise ConfigError(f"{where}: {name}: {value[:40]!r} is not a language tag (like en or pt-BR)")
    languages = None if config.languages is None else [lang.lower() for lang in config.languages]
    return dataclasses.replace(config, default_language=config.default_language.lower(), languages=languages)


def _named_items(items: list, option: str, where: str, base: Path) -> list:
    """Items of a list like `markdown:` or `passes:`: names, or one-key mappings of a name to options, true,
    false or nothing; a `.py` name is relative to wiki.yaml. Which names and options exist is the table's
    (extensions, passes) to say."""
    checked = []
    for number, item in enumerate(items, start=1):
        name, value = next(iter(item.items())) if isinstance(item, dict) and len(item) == 1 else (item, None)
        if not isinstance(name, str) or not name.strip():
            raise ConfigError(f"{where}: {option}: item {number} must be a name or a one-key mapping name -> options")
        if not (value is None or isinstance(value, (bool, dict))):
            raise ConfigError(f"{where}: {option}: {name}: expected options (a mapping), true or false")
        name = str((base / name).resolve()) if name.endswith(".py") else name
        checked.append({name: value} if isinstance(item, dict) else name)
    return checked


def _check_nav(items: list, where: str) -> None:
    """`nav:` items as MkDocs has them: a path, or a one-key mapping of a title to a path, a URL or a list of items
    (a section). Which paths name articles is the site's to say (a warning each)."""
    for number, item in enumerate(items, start=1):
        title, value = next(iter(item.items())) if isinstance(item, dict) and len(item) == 1 else (None, item)
        if isinstance(item, dict) and not (isinstance(title, str) and title.strip()):
            raise ConfigError(f"{where}: item {number}: a title must be text")
        if isinstance(value, list) and title is not None:
            _check_nav(value, f"{where}: {title}")
        elif not (isinstance(value, str) and value.strip()):
            raise ConfigError(f"{where}: item {number}: expected a path, `title: path` or `title: [items]`")


def _checked_ui_strings(given: dict, where: str) -> dict[str, dict[str, str]]:
    """`ui_strings:` as a mapping of language tags (kept in lower case, as `languages`) to mappings of word keys
    to text. Which keys exist is the theme's to say (site/theme.py)."""
    checked: dict[str, dict[str, str]] = {}
    for lang, words in given.items():
        if not isinstance(lang, str) or not is_language_tag(lang):
            raise ConfigError(f"{where}: {str(lang)[:40]!r} is not a language tag (like en or pt-BR)")
        if not isinstance(words, dict):
            raise ConfigError(f"{where}: {lang}: expected a mapping of word keys to text")
        for key, text in words.items():
            if not isinstance(key, str) or not isinstance(text, str):
                raise ConfigError(f"{where}: {lang}: {key}: expected text")
        checked.setdefault(lang.lower(), {}).update(words)
    return checked


def _check_web_urls(config: Config, where: str) -> None:
    """`site_url` and `repo_url` are absolute http(s) URLs, and so is `edit_uri` when it names a scheme: each is
    written into every page."""
    for name in ("site_url", "repo_url", "edit_uri"):
        value = getattr(config, name)
        relative = name == "edit_uri" and value is not None and "://" not in value and ":" not in value.split("/")[0]
        if value is not None and not relative and not WEB_URL.match(value):
            raise ConfigError(f"{where}: {name}: expected an http:// or https:// URL, got {value[:60]!r}")


def _check_workers_and_theme(config: Config, where: str) -> None:
    """`workers` is 0 (one per CPU) or more, and `templates_dir` a folder: with a typo in it, the built-in theme would
    be used, unseen."""
    if config.workers < 0:
        raise ConfigError(f"{where}: workers: expected 0 (one per CPU) or more, got {config.workers}")
    if config.templates_dir is not None and not config.templates_dir.is_dir():
        raise ConfigError(f"{where}: templates_dir: {config.templates_dir} is not a folder")


def _state_for(default_state: Path, content: Path, default_content: Path) -> Path:
    """Give each content folder its own state, so two wikis never share captures."""
    if content.resolve() == default_content.resolve():
        return default_state
    key = hashlib.sha256(str(content.resolve()).encode()).hexdigest()[:8]
    return default_state / "wikis" / f"{content.resolve().name}-{key}"


def typed_section(cls, raw: dict, where: str):
    """An instance of the dataclass `cls` from the mapping `raw`, checked as wiki.yaml's options are (a pass's
    own options); `where` names the section in messages."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{CONFIG_FILE}: {where}: expected a mapping")
    return _build(cls, raw, Path("."), f"{CONFIG_FILE}: {where}")


def _build(cls, raw: dict, base: Path, where: str):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = [_with_suggestion(name, fields) for name in sorted(map(str, set(raw) - set(fields)))]
    if unknown:
        raise ConfigError(f"{where}: unknown option(s): {', '.join(unknown)}")
    hints = typing.get_type_hints(cls)
    values = {}
    for name, value in raw.items():
        values[name] = _coerce(hints[name], value, f"{where}: {name}", base, name in PATH_FIELDS)
    try:
        return cls(**values)
    except TypeError as exc:  # pragma: no cover - guarded by the checks above
        raise ConfigError(f"{where}: {exc}") from None


def _with_suggestion(name: str, known) -> str:
    """`site_nmae (did you mean site_name?)`, or the name alone when no option is close."""
    import difflib  # only for a config that names an unknown option: every command reads the config

    close = difflib.get_close_matches(name, known, n=1)
    return f"{name} (did you mean {close[0]}?)" if close else name


def _coerce(hint, value, where: str, base: Path, is_path: bool):
    """Check `value` against a type hint and convert paths; raise ConfigError naming the option."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (types.UnionType, typing.Union):
        if value is None and type(None) in args:
            return None
        (inner,) = [a for a in args if a is not type(None)]
        return _coerce(inner, value, where, base, is_path)
    if dataclasses.is_dataclass(hint):
        if not isinstance(value, dict):
            raise ConfigError(f"{where}: expected a mapping")
        return _build(hint, value, base, where)
    if origin is Literal:
        if value not in args:
            raise ConfigError(f"{where}: expected one of {', '.join(map(str, args))}, got {value!r}")
        return value
    if origin is list:
        if not isinstance(value, list):
            raise ConfigError(f"{where}: expected a list")
        return [_coerce(args[0], item, where, base, is_path) for item in value]
    if hint is Path:
        if not isinstance(value, str):
            raise ConfigError(f"{where}: expected a path")
        return base / value if is_path else Path(value)
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
        raise ConfigError(f"{where}: expected {hint.__name__}, got {type(value).__name__}")
    return value


def worker_count(config: Config, requested: int | None = None) -> int:
    """The worker processes to use: `requested` (the command line's), else the config's; 0 means one per CPU."""
    count = requested if requested is not None else config.workers
    return count if count > 0 else (os.cpu_count() or 1)
