"""The report of a build's rounds of passes (`rounds.py`), apart from them: a build that has nothing to do reports
the last one's without loading the planning and work code."""

from __future__ import annotations

from dataclasses import dataclass, field

from pipeline.diagnostics import Diagnostic
from pipeline.passes.base import Wiki


@dataclass
class WorkerReport:
    """What one or more workers did."""

    done: int = 0
    failed: int = 0
    passes: int = 0  # the passes the done and failed jobs ran
    rejected: int = 0
    recovered: int = 0
    batches: int = 0
    failures: list[tuple[int, str]] = field(default_factory=list)  # (job id, error)

    def add(self, other: "WorkerReport") -> None:
        self.done += other.done
        self.failed += other.failed
        self.passes += other.passes
        self.rejected += other.rejected
        self.recovered += other.recovered
        self.batches += other.batches
        self.failures += other.failures


@dataclass
class ProcessReport:
    """Jobs planned and run over all rounds, and the results of the current captures."""

    created_passes: list[tuple[str, str]] = field(default_factory=list)  # (path, pass name) of new job passes
    created_jobs: int = 0  # the jobs made to run them (one per capture and round)
    reused: int = 0  # job passes whose result (or job) was there
    work: WorkerReport = field(default_factory=WorkerReport)
    wiki: Wiki | None = None
    problems: list[tuple[str, int, str]] = field(default_factory=list)  # data files that did not parse
    failures: list[tuple[str, str, str]] = field(default_factory=list)  # (path, pass, error) of failed jobs
    notices: list[tuple[str, str, str]] = field(default_factory=list)  # files the capture left out or renamed
    diagnostics: list[Diagnostic] = field(default_factory=list)  # the info ones too, unless asked for none
    unlisted_info: int = 0  # info diagnostics counted but not listed (a build asked for none: `info=False`)
    skipped: bool = False  # nothing the build reads had changed since the last complete one

    def add_plan(self, created: list[tuple[str, str]], jobs: int, reused: int) -> None:
        """Count a round's plan: the (path, pass name) of each job pass it made, the jobs it made, the passes it reused."""
        self.created_passes += created
        self.created_jobs += jobs
        self.reused += reused
