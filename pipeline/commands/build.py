"""`pipeline build`: capture, plan, work, render and report."""

from __future__ import annotations

from pipeline.build import build
from pipeline.commands.check import add_check_options, report_diagnostics
from pipeline.commands.options import add_state, config_from


def register(subparsers) -> None:
    parser = subparsers.add_parser("build", help="capture the content, run every pass, write the site and report")
    add_state(parser)
    parser.add_argument("--out", metavar="DIR", help="output folder (default: site)")
    add_check_options(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    config = config_from(args)
    report = build(config, workers=args.workers)
    status = report_diagnostics(args, config, report.process)
    captured, processed = report.capture, report.process
    print(
        f"captured {captured.files} files ({len(captured.new)} new, {captured.unchanged} unchanged, "
        f"{len(captured.removed)} removed); jobs {processed.work.done} run, {processed.reused} reused, "
        f"{processed.work.failed} failed; {report.seconds:.2f}s"
    )
    return status
