"""`pipeline work`: drain the job queue with one or more worker processes.

It runs the jobs that exist; it plans none. `capture` plans the first round
and `build`/`check` plan every round, once the inputs of each exist.
"""

from __future__ import annotations

from pipeline.build import passes_for
from pipeline.commands.options import add_state, add_workers, config_from
from pipeline.config import worker_count
from pipeline.jobs.worker import run_workers
from pipeline.storage.store import open_store


def register(subparsers) -> None:
    parser = subparsers.add_parser("work", help="run queued jobs until none is eligible")
    add_state(parser)
    add_workers(parser)
    parser.add_argument("--once", action="store_true", help="claim and run one batch, then exit")
    parser.set_defaults(func=run)


def run(args) -> int:
    config = config_from(args)
    # Its jobs are in a store `capture` or `build` made (none: an error, and nothing made); migrated here,
    # once, before the workers open it.
    open_store(config.state_db, create=False).close()
    report = run_workers(config, passes_for(config), worker_count(config, args.workers), once=args.once)
    for job_id, error in report.failures:
        print(f"job {job_id} failed: {error}")
    print(
        f"jobs: {report.done} done, {report.failed} failed, "
        f"{report.rejected} stale completions rejected, {report.recovered} recovered"
    )
    return 0
