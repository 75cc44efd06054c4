"""The `pipeline` command: parses arguments and dispatches to `pipeline.commands`.

Each command lives in its own module under `pipeline/commands/` and exposes
`register(subparsers)`; `pipeline/commands/__init__.py` lists them, in the
order `--help` shows. Only the module of the command being run is imported
(with every option of it), unless the command line names none: then all are.
Expected errors (`UserError`) print one line and exit 1 (or the error's `status`); usage errors exit 2.
`entry` is the console command: `main` without the cyclic garbage collector, then an exit that
skips tearing down the heap.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from pipeline import __version__
from pipeline.commands import COMMANDS
from pipeline.errors import UserError
from pipeline.runtime import lifespan


def build_parser(argv: list[str] = ()) -> argparse.ArgumentParser:
    """The parser for `argv` (with the default, for every command)."""
    parser = argparse.ArgumentParser(
        prog="pipeline",
        description="Turn a folder of Markdown wiki articles into a published documentation wiki.",
    )
    parser.add_argument("--version", action="version", version=f"pipeline {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in commands_for(argv):
        importlib.import_module(f"pipeline.commands.{name}").register(subparsers)
    _describe(parser)
    return parser


def _describe(parser: argparse.ArgumentParser) -> None:
    """Give each (sub)command without a description its one-line help as one, so its own --help says what it does."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for choice in action._choices_actions:
                command = action.choices[choice.dest]
                if command.description is None and choice.help:
                    command.description = f"{choice.help[0].upper()}{choice.help[1:]}."
                _describe(command)


def commands_for(argv: list[str]) -> tuple[str, ...]:
    """The command the arguments name (the first word not starting with '-'), else every command."""
    first = next((word for word in argv if not word.startswith("-")), None)
    return (first,) if first in COMMANDS else COMMANDS


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser(argv).parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except UserError as exc:
        print(f"pipeline: error: {exc}", file=sys.stderr)
        return getattr(exc, "status", 1)  # 1, or the error's own (a build another holds the lock of: 75)
    except Exception as exc:
        if not _from_the_store(exc):
            raise
        print(f"pipeline: error: the state database failed: {exc}; if it is damaged, move the state folder aside "
              "and build again (see Troubleshooting)", file=sys.stderr)  # fmt: skip
        return 1
    except KeyboardInterrupt:
        return 130


def _from_the_store(exc: Exception) -> bool:
    """Whether `exc` is SQLite's: what reading the state database raised where no expected error is caught (its
    pages damaged). Only a command that loaded `sqlite3` can raise one, and this module does not load it."""
    sqlite3 = sys.modules.get("sqlite3")
    return sqlite3 is not None and isinstance(exc, sqlite3.Error)


def entry() -> None:
    """`pipeline` on the command line: `main` without the cyclic garbage collector, then exit at once.

    A command is a short process that makes almost no cyclic garbage (see
    `build.collector_paused`): the collector would only walk what it holds, once more
    when a build ends. A long-lived command turns it back on itself
    (`serve`, `spool drain`). Everything a command writes is committed before `main`
    returns, and its store connections are closed here (so the store is checkpointed
    as on a normal exit), so tearing down the interpreter's heap (freeing every object
    a build still holds, and one last full collection) is work for nothing, and a
    noticeable part of a small edit build. For the same reason, what a build is done with
    before its end (its site model) is left for the exit too (`lifespan`). Tests call
    `main`, which returns.
    """
    lifespan.short_lived()
    code = main()
    store = sys.modules.get("pipeline.storage.store")  # a command that never opened the store never imported it
    if store is not None:
        store.close_all()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
