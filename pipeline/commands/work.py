"""`pipeline work`: drain the job queue with one or more worker processes."""

from __future__ import annotations

from pipeline.build import passes_for, process, worker_count
from pipeline.commands.options import add_state, config_from
from pipeline.store import open_store
from pipeline.worker import run_workers


def register(subparsers) -> None:
    parser = subparsers.add_parser("work", help="run queued jobs (planning later rounds as results arrive)")
    add_state(parser)
    parser.add_argument("--workers", type=int, metavar="N", help="worker processes (default: one per CPU)")
    parser.add_argument("--once", action="store_true", help="claim and run one batch, then exit")
    parser.set_defaults(func=run)


def run(args) -> int:
    config = config_from(args)
    specs = passes_for(config)
    workers = worker_count(config, args.workers)
    if args.once:
        report = run_workers(config, specs, 1, once=True)
        created = 0
    else:
        conn = open_store(config.state_db)
        try:
            processed = process(conn, config, specs, workers)
        finally:
            conn.close()
        report, created = processed.work, processed.created
    for job_id, error in report.failures:
        print(f"job {job_id} failed: {error}")
    print(
        f"jobs: {created} planned, {report.done} done, {report.failed} failed, "
        f"{report.rejected} stale completions rejected, {report.recovered} recovered"
    )
    return 0
