"""`pipeline check`: capture, run every pass, print the diagnostics."""

from __future__ import annotations

import sys

from pipeline.commands.options import add_state, add_workers, config_from
from pipeline.diagnostics import FORMATS, default_format, emit, exit_status, summary


def register(subparsers) -> None:
    parser = subparsers.add_parser("check", help="report every problem in the wiki (no output written)")
    add_state(parser)
    add_check_options(parser)
    parser.set_defaults(func=run)


def add_check_options(parser) -> None:
    """Options shared with `build`: how diagnostics are shown and whether they fail the run."""
    parser.add_argument("--format", choices=FORMATS, help="text, json (one object per line) or github")
    parser.add_argument("--strict", action="store_true", default=None, help="exit 1 on any warning or error")
    add_workers(parser)
    parser.add_argument("--info", action="store_true", help="also print info diagnostics (suggestions)")


def report_diagnostics(args, config, processed) -> int:
    """Print the diagnostics of a processed wiki; return the exit status."""
    diagnostics = processed.diagnostics
    shown = diagnostics if args.info else [d for d in diagnostics if d.severity != "info"]
    emit(shown, args.format or default_format(), config.content_dir)
    print(summary(diagnostics, processed.unlisted_info), file=sys.stderr)
    strict = config.strict if args.strict is None else args.strict
    return exit_status(diagnostics, strict)


def run(args) -> int:
    from pipeline.build import build  # loaded once the command line is read (see `commands/build.py`)

    config = config_from(args)
    report = build(config, workers=args.workers, info=args.info)
    return report_diagnostics(args, config, report.process)
