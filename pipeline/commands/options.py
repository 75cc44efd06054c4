"""Options shared by several commands, and the one place that turns them into a Config."""

from __future__ import annotations

import argparse
from pathlib import Path

from pipeline.config import Config, load_config
from pipeline.errors import require_folder


def add_state(parser: argparse.ArgumentParser) -> None:
    """--config, --state and --content (which also picks the content's own state folder)."""
    parser.add_argument("--config", type=Path, metavar="FILE", help="config file (default: ./wiki.yaml when present)")
    parser.add_argument("--state", metavar="DIR", help="state folder (default: .pipeline)")
    parser.add_argument("--content", metavar="DIR", help="content folder (default: content)")


def add_workers(parser: argparse.ArgumentParser) -> None:
    """--workers N: 0 or more (0, as when not given, is one per CPU)."""
    parser.add_argument("--workers", type=_workers, metavar="N", help="worker processes (default: one per CPU)")


def _workers(text: str) -> int:
    count = int(text) if text.strip().isdecimal() else None  # a sign, a fraction or a word: not a count
    if count is None:
        raise argparse.ArgumentTypeError(f"expected 0 (one per CPU) or more worker processes, got {text!r}")
    return count


def add_format(parser: argparse.ArgumentParser, choices=("text", "json")) -> None:
    parser.add_argument("--format", choices=choices, default="text", help="output format")


def config_from(args: argparse.Namespace) -> Config:
    """The Config of the command line; a content folder named there must exist, whatever the command (its
    state folder is named after it: one made for a folder that is not there would be left behind), and the state
    folder must be one, or one that can be made."""
    if getattr(args, "content", None):
        from pipeline.content.scan import require_content_folder  # here: the spool's commands never load the store

        require_content_folder(Path(args.content))
    config = load_config(
        args.config,
        content=getattr(args, "content", None),
        out=getattr(args, "out", None),
        state=args.state,
        base_url=getattr(args, "base_url", None),
    )
    require_folder(config.state_dir, "state")  # every command makes it, or reads in it
    return config
