"""CPU utilisation per phase of one build: how many cores each stage of `build` kept busy (issue 43 item 4).

    python benchmarks/phases.py WIKI [--state DIR] [--out DIR] [--workers 2]

Builds WIKI once, in this process, into fresh state and output folders (temporary ones unless given), and times
each stage of `pipeline.build` as it runs: capture, each round's planning and work, the diagnostics, the render
and the rest. For each: wall seconds, CPU seconds of this process and every process it forked (those still running,
read from /proc, and those that ended), and their ratio, the cores it kept busy. A wiki.yaml beside WIKI is read
as `pipeline build` reads one in the current folder.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pipeline.build as building
import pipeline.jobs.rounds as rounds
from pipeline.config import load_config

TICKS = os.sysconf("SC_CLK_TCK")


def tree_cpu() -> float:
    """CPU seconds of this process, of its children that ended, and of its descendants still running."""
    own = os.times()
    total = own.user + own.system + own.children_user + own.children_system
    return total + sum(_cpu_of(pid) for pid in _descendants(os.getpid()))


def _descendants(root: int) -> list[int]:
    parents = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            fields = _stat(int(entry))
            if fields:
                parents[int(entry)] = int(fields[1])
    found, frontier = [], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def _stat(pid: int) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (state, parent pid, ...), or None once it ended."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    return text[text.rindex(")") + 2:].split()


def _cpu_of(pid: int) -> float:
    fields = _stat(pid)
    return (int(fields[11]) + int(fields[12])) / TICKS if fields else 0.0  # utime, stime (fields 14, 15)


@dataclass
class Phases:
    """Wall and CPU seconds of each phase, in the order they ran (a phase met twice adds up)."""

    times: dict[str, list[float]] = field(default_factory=dict)
    round: str = ""  # the passes of the round planned last, which the next work phase runs

    def timed(self, name, function):
        def run(*args, **kwargs):
            wall, cpu = time.perf_counter(), tree_cpu()
            try:
                return function(*args, **kwargs)
            finally:
                spent = self.times.setdefault(name(args) if callable(name) else name, [0.0, 0.0])
                spent[0] += time.perf_counter() - wall
                spent[1] += tree_cpu() - cpu

        return run


    def plan_label(self, args) -> str:
        self.round = "+".join(spec.name for spec in args[1])  # plan_round(conn, specs, ...)
        return "plan " + self.round

    def work_label(self, args) -> str:
        return "work " + self.round


def measure(wiki: Path, state: Path, out: Path, workers: int) -> tuple[Phases, float, float]:
    """(phases, whole wall, whole CPU) of one cold build of `wiki`."""
    beside = wiki.parent / "wiki.yaml"
    config = load_config(beside if beside.exists() else None, content=wiki, state=state, out=out)
    phases = Phases()
    originals = {(building, name): getattr(building, name)
                 for name in ("capture", "stamp_build", "gather", "list_diagnostics", "render", "finish")}  # fmt: skip
    originals.update({(rounds, "plan_round"): rounds.plan_round, (rounds, "run_plan"): rounds.run_plan})
    for (module, name), function in originals.items():
        label = {"plan_round": phases.plan_label, "run_plan": phases.work_label}.get(name, name)
        setattr(module, name, phases.timed(label, function))
    try:
        wall, cpu = time.perf_counter(), tree_cpu()
        building.build(config, workers=workers, site=True)
        return phases, time.perf_counter() - wall, tree_cpu() - cpu
    finally:
        for (module, name), function in originals.items():
            setattr(module, name, function)


def report(phases: Phases, wall: float, cpu: float) -> None:
    print(f"{'phase':44} {'wall s':>8} {'cpu s':>8} {'cores':>6}")
    for name, (spent_wall, spent_cpu) in phases.times.items():
        print(f"{name:44} {spent_wall:8.2f} {spent_cpu:8.2f} {spent_cpu / max(spent_wall, 1e-9):6.2f}")
    rest_wall = wall - sum(spent[0] for spent in phases.times.values())
    rest_cpu = cpu - sum(spent[1] for spent in phases.times.values())
    print(f"{'the rest (locks, helpers, stamps)':44} {rest_wall:8.2f} {rest_cpu:8.2f}")
    print(f"{'whole build':44} {wall:8.2f} {cpu:8.2f} {cpu / wall:6.2f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wiki", type=Path)
    parser.add_argument("--state", type=Path)
    parser.add_argument("--out", type=Path)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        state, out = args.state or Path(folder) / "state", args.out or Path(folder) / "site"
        report(*measure(args.wiki, state, out, args.workers))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
