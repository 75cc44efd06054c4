"""Typed, validated configuration: one `Config` read from an optional `wiki.yaml`.

Every option has a default, so a wiki needs no file at all. Relative paths in
`wiki.yaml` are relative to the file's folder; paths given on the command line
are relative to the current directory. Command-line options win over the file.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import types
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import yaml

from pipeline.errors import ConfigError

CONFIG_FILE = "wiki.yaml"


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
    """All options of a wiki. See the README's Configuration section."""

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
    search: bool = True  # index the built site with Pagefind and show a search box
    passes: list[str] = field(default_factory=list)  # extra pass modules: dotted names or .py paths
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


PATH_FIELDS = {"content_dir", "out_dir", "state_dir", "templates_dir", "dir", "corpus", "passes"}


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
        try:
            raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except yaml.YAMLError as exc:
            raise ConfigError(f"{path}: invalid YAML: {exc}") from None
        if not isinstance(raw, dict):
            raise ConfigError(f"{path}: the top level must be a mapping of options")
    elif explicit:
        raise ConfigError(f"{path}: no such config file")
    base = path.parent
    config = _build(Config, raw, base, str(path))
    overrides = {k: Path(v) for k, v in (("content_dir", content), ("out_dir", out), ("state_dir", state)) if v}
    if "state_dir" not in overrides and "state_dir" not in raw and "content_dir" in overrides:
        overrides["state_dir"] = _state_for(config.state_dir, Path(overrides["content_dir"]), config.content_dir)
    if base_url is not None:
        overrides["base_url"] = base_url
    return dataclasses.replace(config, **overrides)


def _state_for(default_state: Path, content: Path, default_content: Path) -> Path:
    """Give each content folder its own state, so two wikis never share captures."""
    if content.resolve() == default_content.resolve():
        return default_state
    key = hashlib.sha256(str(content.resolve()).encode()).hexdigest()[:8]
    return default_state / "wikis" / f"{content.resolve().name}-{key}"


def _build(cls, raw: dict, base: Path, where: str):
    fields = {f.name: f for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - set(fields))
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
    if hint is str and is_path and isinstance(value, str) and value.endswith(".py"):
        return str(base / value)  # a pass file named in wiki.yaml is relative to wiki.yaml
    if hint is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
        raise ConfigError(f"{where}: expected {hint.__name__}, got {type(value).__name__}")
    return value


def worker_count(config: Config, requested: int | None = None) -> int:
    """The worker processes to use: `requested` (the command line's), else the config's; 0 means one per CPU."""
    count = requested if requested is not None else config.workers
    return count if count > 0 else (os.cpu_count() or 1)
