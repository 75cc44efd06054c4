"""Queue throughput: a no-op pass through claim, validate, persist and complete, in one worker.

    python benchmarks/queue_throughput.py [--jobs 20000] [--batch 64] [--passes 1]

Issue 6 asks for at least 10,000 jobs/s. The captures are tiny and the pass
returns a constant, so what is timed is the queue: claiming in batches,
validating against the contract, persisting the result and the fenced
completion, all in SQLite. With `--passes N`, each capture has N no-op passes
in one round (one job with N results each, since issue 43's one job per
capture and round): the cost per job and per result apart.
"""

from __future__ import annotations

import argparse
import dataclasses
import tempfile
import time
import types
from pathlib import Path

from pipeline.config import Config, JobsConfig
from pipeline.content.capture import capture_content, load_articles
from pipeline.jobs.plan import plan_round
from pipeline.jobs.worker import Worker
from pipeline.passes.base import Wiki
from pipeline.passes.registry import spec_of
from pipeline.storage.store import open_store

def noop(number: int) -> types.SimpleNamespace:
    contract = {"type": "object", "required": ["diagnostics"]}
    return types.SimpleNamespace(NAME=f"noop{number}", VERSION=1, CONTRACT=contract, run=lambda a, i: {"diagnostics": []})


def measure(jobs: int, batch: int, root: Path, passes: int = 1) -> tuple[int, int, float]:
    """(jobs done, results stored, seconds) for `jobs` captures with `passes` no-op passes each."""
    content = root / "content"
    content.mkdir()
    for number in range(jobs):
        (content / f"a{number:06d}.md").write_text(f"{number}\n")
    config = Config(content_dir=content, state_dir=root / "state", jobs=JobsConfig(batch_size=batch))
    conn = open_store(config.state_db)
    report = capture_content(conn, config)
    articles = load_articles(conn, report.new)
    specs = [spec_of(noop(number)) for number in range(passes)]
    plan_round(conn, specs, articles, Wiki(options={}, articles=articles), max_attempts=3, now=time.time())
    worker = Worker(dataclasses.replace(config), specs)
    started = time.perf_counter()
    done = worker.run().done
    seconds = time.perf_counter() - started
    (results,) = conn.execute("SELECT COUNT(*) FROM processing_results").fetchone()
    return done, results, seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--passes", type=int, default=1, help="no-op passes per capture, in one round")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        done, results, seconds = measure(args.jobs, args.batch, Path(folder), args.passes)
    print(f"{done} no-op jobs ({results} results) in {seconds:.2f}s: {done / seconds:,.0f} jobs/s, "
          f"{results / seconds:,.0f} results/s, {seconds / results * 1e6:.0f} µs a result (batch {args.batch})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
