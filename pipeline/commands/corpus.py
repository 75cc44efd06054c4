"""`pipeline corpus stats|export`: read the long-term editorial event corpus."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from pipeline.commands.options import add_format, add_state, config_from
from pipeline.commands.spool import os_errors_as_user_errors
from pipeline.spool.corpus import CorpusScan, export, stats


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "corpus", help="statistics and export of the editorial event corpus",
        description="Read the JSONL corpus that `pipeline spool drain` appends to (duplicates dropped).",
    )
    commands = parser.add_subparsers(dest="corpus_command", metavar="SUBCOMMAND", required=True)

    stat = commands.add_parser("stats", help="events per type and pass")
    add_state(stat)
    add_format(stat)
    stat.set_defaults(func=os_errors_as_user_errors(run_stats))

    out = commands.add_parser("export", help="write the deduplicated corpus as JSONL")
    out.add_argument("--output", "-o", type=Path, metavar="FILE", help="output file (default: stdout)")
    add_state(out)
    out.set_defaults(func=os_errors_as_user_errors(run_export))


def run_stats(args: argparse.Namespace) -> int:
    path = config_from(args).corpus_path
    scan = stats(path)
    rows = sorted(scan.by_type_and_pass.items(), key=lambda item: (-item[1], item[0]))
    if args.format == "json":
        report = {"corpus": str(path), **_totals(scan),
                  "by_type_and_pass": [{"type": t, "pass": p, "events": n} for (t, p), n in rows]}
        print(json.dumps(report, indent=2))
        return 0
    print(f"corpus: {path}")
    print(", ".join(f"{key.replace('_', ' ')} {value}" for key, value in _totals(scan).items()))
    if rows:
        width = max(len(t) for (t, _), _ in rows)
        print(f"{'type':<{width}}  {'pass':<20} events")
        for (event_type, pass_name), count in rows:
            print(f"{event_type:<{width}}  {pass_name:<20} {count}")
    return 0


def _totals(scan: CorpusScan) -> dict:
    return {"events": scan.events, "lines": scan.lines, "duplicates": scan.duplicates,
            "bad_lines": scan.bad_lines, "torn_bytes": scan.torn_bytes}


def run_export(args: argparse.Namespace) -> int:
    path = config_from(args).corpus_path
    if args.output is None:
        scan = export(path, sys.stdout.buffer)
        sys.stdout.buffer.flush()
    else:
        tmp = args.output.with_name(f".{args.output.name}.tmp")
        with open(tmp, "wb") as out:  # write aside, then rename: never a half export
            scan = export(path, out)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, args.output)
    print(f"exported {scan.events} events ({scan.duplicates} duplicates dropped)", file=sys.stderr)
    return 0
