"""`pipeline build`: capture, plan, work and report."""

from __future__ import annotations

from pipeline.build import build
from pipeline.commands.options import add_state, config_from


def register(subparsers) -> None:
    parser = subparsers.add_parser("build", help="capture the content, run every pass and report")
    add_state(parser)
    parser.add_argument("--out", metavar="DIR", help="output folder (default: site)")
    parser.add_argument("--workers", type=int, metavar="N", help="worker processes (default: one per CPU)")
    parser.add_argument("--strict", action="store_true", help="exit 1 when there is any warning or error")
    parser.set_defaults(func=run)


def run(args) -> int:
    config = config_from(args)
    report = build(config, workers=args.workers)
    captured, processed = report.capture, report.process
    print(
        f"captured {captured.files} files ({len(captured.new)} new, {captured.unchanged} unchanged, "
        f"{len(captured.removed)} removed); jobs {processed.work.done} run, {processed.reused} reused, "
        f"{processed.work.failed} failed; {report.seconds:.2f}s"
    )
    return 0
