"""Queue throughput: a no-op pass through claim, validate, persist and complete, in one worker.

    python benchmarks/queue_throughput.py [--jobs 20000] [--batch 64]

Issue 6 asks for at least 10,000 jobs/s. The captures are tiny and the pass
returns a constant, so what is timed is the queue: claiming in batches,
validating against the contract, persisting the result and the fenced
completion, all in SQLite.
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

NOOP = types.SimpleNamespace(
    NAME="noop", VERSION=1, CONTRACT={"type": "object", "required": ["diagnostics"]}, run=lambda a, i: {"diagnostics": []}
)


def measure(jobs: int, batch: int, root: Path) -> tuple[int, float]:
    content = root / "content"
    content.mkdir()
    for number in range(jobs):
        (content / f"a{number:06d}.md").write_text(f"{number}\n")
    config = Config(content_dir=content, state_dir=root / "state", jobs=JobsConfig(batch_size=batch))
    conn = open_store(config.state_db)
    report = capture_content(conn, config)
    articles = load_articles(conn, report.new)
    spec = spec_of(NOOP)
    plan_round(conn, [spec], articles, Wiki(options={}, articles=articles), max_attempts=3, now=time.time())
    worker = Worker(dataclasses.replace(config), [spec])
    started = time.perf_counter()
    done = worker.run().done
    return done, time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--jobs", type=int, default=20_000)
    parser.add_argument("--batch", type=int, default=64)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        done, seconds = measure(args.jobs, args.batch, Path(folder))
    print(f"{done} no-op jobs in {seconds:.2f}s: {done / seconds:,.0f} jobs/s (batch {args.batch})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
