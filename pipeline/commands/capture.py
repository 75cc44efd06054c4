"""`pipeline capture`: record the content folder as captures and plan their first jobs."""

from __future__ import annotations

from pipeline.jobs.rounds import plan_captures
from pipeline.passes.registry import passes_for
from pipeline.commands.options import add_state, config_from
from pipeline.content.capture import capture_content
from pipeline.content.scan import require_content_folder
from pipeline.storage.store import open_store


def register(subparsers) -> None:
    parser = subparsers.add_parser("capture", help="record every source file as an immutable capture")
    add_state(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    config = config_from(args)
    require_content_folder(config.content_dir)  # before the state folder is written: a capture that fails makes nothing
    specs = passes_for(config)
    conn = open_store(config.state_db)
    try:
        report = capture_content(conn, config)
        jobs = plan_captures(conn, config, specs)
    finally:
        conn.close()
    for path, line, message in report.problems:
        print(f"{path}:{line}: {message}")
    for path, code, message in report.notices:
        print(f"{path}: {code}: {message}")
    attached = report.attachments
    print(
        f"captured {report.files} files: {len(report.new)} new, {report.unchanged} unchanged, "
        f"{len(report.removed)} removed; {attached.files} attachments: {len(attached.new)} new, "
        f"{attached.unchanged} unchanged, {len(attached.removed)} removed; {jobs} jobs planned"
    )
    return 0
