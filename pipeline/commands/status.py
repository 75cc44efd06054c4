"""`pipeline status`: row counts per table and jobs per status."""

from __future__ import annotations

import json

from pipeline.commands.options import add_format, add_state, config_from
from pipeline.storage.store import open_store

TABLES = (
    "captures", "capture_history", "attachment_captures", "processing_jobs", "job_passes", "job_attempts",
    "pass_failures", "processing_results", "result_fields", "result_digests",
)  # fmt: skip


def register(subparsers) -> None:
    parser = subparsers.add_parser("status", help="counts per table and jobs per status")
    add_state(parser)
    add_format(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    conn = open_store(config_from(args).state_db, create=False)
    counts = {table: conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0] for table in TABLES}
    statuses = {"pending": 0, "processing": 0, "done": 0, "failed": 0}
    for row in conn.execute("SELECT status, COUNT(*) AS n FROM processing_jobs GROUP BY status"):
        statuses[row["status"]] = row["n"]
    if args.format == "json":
        print(json.dumps({"tables": counts, "jobs": statuses}))
        return 0
    for table, count in counts.items():
        print(f"{table}: {count}")
    print("jobs: " + ", ".join(f"{status} {count}" for status, count in statuses.items()))
    return 0
