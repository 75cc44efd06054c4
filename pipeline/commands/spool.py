"""`pipeline spool push|drain|status|requeue-poison|schema`: the editorial event spool."""

from __future__ import annotations

import argparse
import functools
import json
import signal
import sys
import threading
from dataclasses import asdict
from typing import Callable, TextIO

from pipeline.commands.options import add_format, add_state, config_from
from pipeline.errors import UserError
from pipeline.runtime import lifespan
from pipeline.spool import SCHEMA, EventError, enqueue
from pipeline.spool.admin import poison_entries, requeue_poison, status
from pipeline.spool.drain import DrainOptions, Drainer


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "spool", help="hand in, drain and inspect editorial events",
        description="The editorial event spool: events wait in queue/ until a drain appends them to the corpus.",
    )
    commands = parser.add_subparsers(dest="spool_command", metavar="SUBCOMMAND", required=True)

    push = commands.add_parser("push", help="enqueue events, one JSON object per line")
    push.add_argument("file", nargs="?", default="-", metavar="FILE|-", help="events file (default: - for stdin)")
    add_state(push)
    push.set_defaults(func=os_errors_as_user_errors(run_push))

    drain = commands.add_parser("drain", help="append queued events to the corpus")
    drain.add_argument("--once", action="store_true", help="drain what is there, then exit")
    drain.add_argument("--interval", type=_seconds, default=1.0, metavar="S",
                       help="seconds between polls of an empty queue (default: 1)")
    drain.add_argument("--lease", type=_seconds, metavar="S",
                       help="seconds without a heartbeat before an in-flight event is requeued "
                            "(default: spool.lease_seconds, 30)")
    add_state(drain)
    drain.set_defaults(func=os_errors_as_user_errors(run_drain))

    stat = commands.add_parser("status", help="event counts per directory, oldest age, poison entries")
    add_state(stat)
    add_format(stat)
    stat.set_defaults(func=os_errors_as_user_errors(run_status))

    requeue = commands.add_parser("requeue-poison", help="move a poison entry back into queue/")
    requeue.add_argument("id", metavar="ID", help="its file name, base name (as `status` lists) or event_id")
    add_state(requeue)
    requeue.set_defaults(func=os_errors_as_user_errors(run_requeue))

    schema = commands.add_parser("schema", help="print the JSON Schema of an event")
    add_state(schema)
    schema.set_defaults(func=lambda args: print(json.dumps(SCHEMA, indent=2)) or 0)


def os_errors_as_user_errors(run: Callable[[argparse.Namespace], int]) -> Callable[[argparse.Namespace], int]:
    """An unusable spool or corpus path (not a folder, unwritable) is one line, not a traceback."""

    @functools.wraps(run)
    def wrapped(args: argparse.Namespace) -> int:
        try:
            return run(args)
        except OSError as exc:
            raise UserError(f"{exc.filename or 'spool'}: {exc.strerror or exc}") from None

    return wrapped


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be greater than 0: {text!r}")
    return value


def run_push(args: argparse.Namespace) -> int:
    spool_dir = config_from(args).spool_dir
    if args.file == "-":
        return _push_lines(sys.stdin, spool_dir)
    with open(args.file, encoding="utf-8") as stream:  # a missing file: one line via the wrapper
        return _push_lines(stream, spool_dir)


def _push_lines(stream: TextIO, spool_dir) -> int:
    """Enqueue each line as it arrives, so a long-lived producer can pipe events in."""
    rejected = 0
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            event_id = enqueue(_json_line(line), spool_dir)
        except EventError as exc:
            print(f"pipeline spool push: line {number}: {exc}", file=sys.stderr)
            rejected += 1
            continue
        print(event_id, flush=True)
    if rejected:
        raise UserError(f"{rejected} line(s) rejected; the other events were enqueued")
    return 0


def _json_line(line: str):
    try:
        return json.loads(line)
    except json.JSONDecodeError as exc:
        raise EventError(f"not JSON: {exc}") from None


def run_drain(args: argparse.Namespace) -> int:
    lifespan.long_lived()  # it may run for days: its cyclic garbage must be collected (`cli.entry` turned it off)
    options = DrainOptions.from_config(config_from(args), lease=args.lease, interval=args.interval)
    stop = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):  # finish the event at hand, then stop
        signal.signal(signum, lambda *_: stop.set())
    with Drainer(options) as drainer:
        stats = drainer.run(once=args.once, stop=stop)
    print(f"drained: {stats.summary()}")
    return 0


def run_status(args: argparse.Namespace) -> int:
    spool_dir = config_from(args).spool_dir
    dirs, poison = status(spool_dir), poison_entries(spool_dir)
    if args.format == "json":
        report = {"spool": str(spool_dir), "dirs": [asdict(d) for d in dirs], "poison": [asdict(p) for p in poison]}
        print(json.dumps(report, indent=2))
        return 0
    print(f"spool: {spool_dir}")
    for d in dirs:
        oldest = f"  oldest {format_age(d.oldest_age)}" if d.oldest_age is not None else ""
        print(f"{d.name:<16} {d.count:>7}{oldest}")
    for entry in poison:
        print(f"poison {entry.base}  {entry.event_id or '-'}  {entry.reason}")
    return 0


def format_age(seconds: float) -> str:
    units = (("d", 86400), ("h", 3600), ("m", 60))
    for (unit, size), (sub, sub_size) in zip(units, units[1:] + (("s", 1),)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} {int(seconds % size // sub_size)}{sub}"
    return f"{seconds:.1f}s"


def run_requeue(args: argparse.Namespace) -> int:
    for name in requeue_poison(config_from(args).spool_dir, args.id):
        print(f"requeued queue/{name}")
    return 0
