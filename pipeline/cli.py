"""The `pipeline` command: parses arguments and dispatches to `pipeline.commands`.

Each command lives in its own module under `pipeline/commands/` and exposes
`register(subparsers)`; this file only lists them, in the order `--help` shows.
Expected errors (`UserError`) print one line and exit 1; usage errors exit 2.
"""

from __future__ import annotations

import argparse
import sys

from pipeline import __version__
from pipeline.commands import COMMANDS
from pipeline.errors import UserError


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="pipeline",
        description="Turn a folder of Markdown wiki articles into a published documentation wiki.",
    )
    parser.add_argument("--version", action="version", version=f"pipeline {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in COMMANDS:
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"pipeline: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
