"""`pipeline jobs list|show|retry|recover`: inspect and steer the job queue."""

from __future__ import annotations

import json
import sys
import time

from pipeline.commands.options import add_state, config_from
from pipeline.errors import UserError
from pipeline.jobs.queue import PASS_ERROR, job_state, recover_stale, retry
from pipeline.storage.store import open_store

STATES = ("pending", "processing", "done", "failed-waiting", "failed-ready", "failed-terminal")


def register(subparsers) -> None:
    parser = subparsers.add_parser("jobs", help="list, show, retry and recover processing jobs")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="jobs by state (failed ones split into waiting, ready, terminal)")
    add_state(listing)
    listing.add_argument("--state-filter", dest="only", choices=STATES, metavar="STATE",
                         help=f"only jobs in this state: {', '.join(STATES)}")
    listing.add_argument("--limit", type=int, default=50, metavar="N", help="rows per state (default 50)")
    listing.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json")
    listing.set_defaults(func=run_list)
    show = actions.add_parser("show", help="one job with every attempt")
    add_state(show)
    show.add_argument("id", type=int, metavar="ID", help="the job's id (as `jobs list` shows it)")
    show.set_defaults(func=run_show)
    again = actions.add_parser("retry", help="put failed jobs back to pending, keeping their history")
    add_state(again)
    again.add_argument("ids", type=int, nargs="*", metavar="ID", help="the jobs' ids (as `jobs list` shows them)")
    again.add_argument("--failed", action="store_true", help="every failed job")
    again.set_defaults(func=run_retry)
    recover = actions.add_parser("recover", help="return stale processing jobs to pending")
    add_state(recover)
    recover.add_argument("--stale-after", type=float, metavar="SECONDS", help="instead of the lease, use this age")
    recover.set_defaults(func=run_recover)


def _open(args):
    return open_store(config_from(args).state_db, create=False)


def run_list(args) -> int:
    conn, now = _open(args), time.time()
    rows = conn.execute(
        """SELECT j.*, c.path FROM processing_jobs j JOIN captures c ON c.id = j.capture_id ORDER BY j.id"""
    ).fetchall()
    groups: dict[str, list] = {state: [] for state in STATES}
    for row in rows:
        groups[job_state(row, now)].append(row)
    if args.format == "json":
        print(json.dumps({s: [_job_dict(r, now) for r in groups[s]] for s in STATES if not args.only or s == args.only}))
        return 0
    for state in STATES:
        if (args.only and state != args.only) or not groups[state]:
            continue
        print(f"{state} ({len(groups[state])})")
        for row in groups[state][: args.limit]:
            print("  " + _job_line(row, now))
    return 0


def _job_dict(row, now: float) -> dict:
    keys = ("id", "capture_id", "path", "pass_name", "pass_version", "status", "attempts", "max_attempts",
            "last_error", "error_kind", "next_retry_at", "created_at", "started_at", "finished_at")  # fmt: skip
    return {**{k: row[k] for k in keys}, "state": job_state(row, now)}


def _job_line(row, now: float) -> str:
    line = f"#{row['id']} {row['pass_name']} {row['path']} attempts {row['attempts']}/{row['max_attempts']}"
    if row["status"] == "failed" and row["next_retry_at"] and row["next_retry_at"] > now:
        line += f" retry in {row['next_retry_at'] - now:.0f}s"
    if row["last_error"]:
        line += f" - {row['last_error']}"
    return line


def run_show(args) -> int:
    conn, now = _open(args), time.time()
    row = conn.execute(
        "SELECT j.*, c.path FROM processing_jobs j JOIN captures c ON c.id = j.capture_id WHERE j.id = ?", (args.id,)
    ).fetchone()
    if row is None:
        raise UserError(f"no job {args.id}")
    for key, value in _job_dict(row, now).items():
        print(f"{key}: {value}")
    print(f"input_fingerprint: {row['input_fingerprint']}")
    for line in _pass_lines(conn, args.id):
        print(line)
    for attempt in conn.execute("SELECT * FROM job_attempts WHERE job_id = ? ORDER BY id", (args.id,)):
        print(
            f"attempt {attempt['attempt']}: {attempt['outcome'] or 'running'} by {attempt['worker']}"
            + (f" - {attempt['error']}" if attempt["error"] else "")
        )
    return 0


def _pass_lines(conn, job_id: int) -> list[str]:
    """Each pass the job runs: its version, fingerprint, and whether it has a result or its last failure (a job
    made before passes failed apart, schema v17, has only its own)."""
    rows = conn.execute(
        f"""SELECT p.pass_name, p.pass_version, p.input_fingerprint, r.id IS NOT NULL AS done, {PASS_ERROR} AS error
           FROM job_passes p JOIN processing_jobs j ON j.id = p.job_id
           LEFT JOIN processing_results r ON r.job_id = p.id WHERE p.job_id = ? ORDER BY p.id""",
        (job_id,),
    )
    return [f"pass {name} v{version} ({fingerprint[:12]}): " + ("done" if done else f"no result - {error}" if error
            else "no result") for name, version, fingerprint, done, error in rows]  # fmt: skip


def run_retry(args) -> int:
    """Put the named failed jobs (or every failed one) back to pending; a named job that is not failed is said to
    be left as it is, and one that does not exist is an error (exit 1), as `jobs show` says of it."""
    if not args.ids and not args.failed:
        raise UserError("name job ids or pass --failed")
    conn = _open(args)
    ids = retry(conn, None if args.failed else args.ids)
    print(f"{len(ids)} job(s) back to pending" + (f": {', '.join(map(str, ids))}" if ids else ""))
    named = [] if args.failed else sorted(set(args.ids) - set(ids))
    found = dict(conn.execute(f"SELECT id, status FROM processing_jobs WHERE id IN ({','.join('?' * len(named))})",
                              named).fetchall()) if named else {}  # fmt: skip
    for job_id in named:
        if job_id in found:
            print(f"pipeline: job {job_id} is {found[job_id]}, not failed: left as it is", file=sys.stderr)
        else:
            print(f"pipeline: error: no job {job_id}", file=sys.stderr)
    return int(any(job_id not in found for job_id in named))


def run_recover(args) -> int:
    ids = recover_stale(_open(args), now=time.time(), stale_after=args.stale_after)
    print(f"recovered {len(ids)} stale job(s)")
    return 0
