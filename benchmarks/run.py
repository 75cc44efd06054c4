"""Time pipeline side by side with Hugo and MkDocs on one synthetic wiki.

    python benchmarks/run.py [--sizes 1000 10000] [--profile {wiki,vault,both}] [--workdir DIR] [--no-hugo]
                             [--no-mkdocs] [--baseline DIR] [--repeat N] [--cold N]

For each size it generates a wiki (benchmarks/generate.py; with `--profile
vault` an Obsidian-style vault, benchmarks/vault.py, built with the settings
that read it as Obsidian does; `both`: the wiki, then the vault) and times, in
one run: a cold build, a rebuild with no change, a rebuild after editing one
article's body, after adding a link in it, after changing its title, and after
adding one article, and as a CI job builds after restoring only the state
folder (`ci`: the output folder set aside and every source touched, as a fresh
checkout leaves them; Hugo and MkDocs build all again). It reports wall time, CPU time, CPU utilisation (CPU
seconds over wall seconds: how many cores a build kept busy), peak RSS, pages
rewritten, and passes run and reused. When `hugo` (Debian package) and `mkdocs`
with the Material theme are installed, it builds the same articles, in every
language, with them, the same way, and prints ratios. With `--baseline DIR`
(another checkout of pipeline, e.g. a `git worktree` of an older commit) it
times that version too, on its own copy of the wiki, so before and after are a
ratio in one run. With `--repeat N` each rebuild scenario is made N times
(each time another edit of the same kind), every tool starting a repeat in
turn, and the median is reported with the range: the tool that runs first
after another's build is slower (its writes, the page cache), which a single
run cannot tell from the code. With `--cold N` the cold build is made N times
too, the same way, each after the tool's output and state folders from the
last are set aside: a cold build of a big wiki is a minute, over which this
machine's speed drifts as much as the changes being measured. Never run by
CI: timing goals live here, not in tests.

A tree an earlier run left in the work folder is deleted after this run's
timing, not before (`set_aside`): on this machine's disk, making files just
after deleting many is several times slower. Leave a few minutes between runs.
Each pipeline's package folder and source digest are printed before timing
and checked after: a run of an editable install edited meanwhile is void.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import re
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import vault  # noqa: E402
from generate import Shape, article_text, generate, hugo_tree, mkdocs_tree, path_of, retitled, slug_of  # noqa: E402

SCENARIOS = ("cold", "no-change", "edit-body", "edit-link", "edit-title", "add-article", "ci")
# Passes run and reused: a version before one job per capture and round ran a job per pass (`jobs N run`).
SUMMARY = re.compile(r"pages (\d+) written.*jobs (\d+) run(?: \((\d+) passes\))?, (\d+)(?: passes)? reused")


@dataclass(frozen=True)
class Profile:
    """A corpus to time at one size (generate.py's wiki or vault.py's vault): how to write it, the wiki.yaml
    lines pipeline builds it with, its Hugo and MkDocs copies, and what the scenarios' edits need."""

    name: str
    size: int  # articles (a vault's: notes in its default language, translations on top)
    write: Callable[[Path], int]  # writes the corpus into a folder; returns its number of files
    path_of: Callable[[int], str]  # article N's file (in the default language)
    text_of: Callable[[int], str]  # article N's text: add-article writes the one numbered `size`
    link_to: Callable[[int], str]  # a wikilink to article N
    hugo_tree: Callable[[Path, Path], None]
    mkdocs_tree: Callable[[Path, Path], None]
    settings: str = ""


def profile_of(name: str, size: int) -> Profile:
    if name == "vault":
        shape = vault.VaultShape(notes=size)
        return Profile(name, size, partial(vault.generate_vault, shape=shape), partial(vault.path_of, shape=shape),
                       partial(vault.note_text, shape=shape), partial(vault.link_to, shape=shape),
                       partial(vault.hugo_tree, shape=shape), vault.mkdocs_tree, vault.settings(shape))  # fmt: skip
    shape = Shape(articles=size)
    return Profile(name, size, partial(generate, shape=shape), path_of, partial(article_text, shape=shape),
                   lambda number: f"[[{slug_of(number)}]]", hugo_tree, mkdocs_tree)  # fmt: skip


@dataclass
class Timing:
    wall: float
    cpu: float
    rss_mb: float
    pages: int | None = None
    passes_run: int | None = None
    passes_reused: int | None = None


@dataclass
class Tool:
    """How to build one corpus with one tool, and where its sources live."""

    name: str
    command: list[str]
    sources: Path  # where an article's English file lives, for the edits
    cwd: Path
    results: dict[str, Timing] = field(default_factory=dict)  # the median run of each scenario
    runs: dict[str, list[Timing]] = field(default_factory=dict)  # every run of each scenario
    env: dict[str, str] | None = None
    out: Path | None = None  # its output folder
    state: Path | None = None  # a pipeline's state folder
    code: str | None = None  # a pipeline's: where its package is and the digest of its source (`code_of`)


def code_of(env: dict[str, str] | None, cwd: Path) -> str:
    """`<package folder> <digest>` of the pipeline the environment imports from `cwd` (where the tool runs: `-c`
    imports from the current folder first): a run whose code changes while it runs (an editable install
    being edited) times two versions, and is void."""
    where = subprocess.run(
        [sys.executable, "-c", "import pipeline, pathlib; print(pathlib.Path(pipeline.__file__).parent)"],
        env=env, cwd=cwd, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    digest = hashlib.sha256()
    files = [Path(folder, name) for folder, _, names in os.walk(where, followlinks=True) for name in names]  # `importable`'s links
    for file in sorted(file for file in files if file.suffix == ".py"):
        digest.update(file.read_bytes())
    return f"{where} {digest.hexdigest()[:12]}"


def timed(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[Timing, str]:
    """Run `command`, returning wall and CPU time and the peak RSS of its process tree.

    The writes of the run before are flushed first (not timed): on a small
    machine their writeback otherwise slows whichever tool runs next.
    """
    os.sync()
    started = time.perf_counter()
    process = subprocess.Popen(
        command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise RuntimeError(f"{' '.join(command)} failed:\n{output[-2000:]}")
    timing = Timing(wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
    match = SUMMARY.search(output)
    if match:
        pages, jobs, passes, reused = match.groups()
        timing.pages, timing.passes_run, timing.passes_reused = int(pages), int(passes or jobs), int(reused)
    return timing, output


def edit(tool: Tool, scenario: str, profile: Profile, repeat: int = 0, aside: list[Path] | None = None) -> None:
    """Apply one scenario's change to the tool's copy of the sources (its `repeat`-th: each is another change);
    `ci` sets the output folder aside (into `aside`, deleted after timing) and touches every source file; a cold
    build after the first sets the output and state folders aside."""
    target = tool.sources / profile.path_of(7)
    if scenario == "cold" and repeat:  # another cold build: nothing of the last one left
        for folder in (tool.out, tool.state):
            move_aside(folder, aside)
    if scenario == "ci":
        move_aside(tool.out, aside)
        for path in tool.sources.rglob("*"):
            if path.is_file():
                os.utime(path)
    elif scenario == "edit-body":
        target.write_text(target.read_text(encoding="utf-8") + "\nOne more sentence about the build.\n", encoding="utf-8")
    elif scenario == "edit-link":  # a body edit that links to one more article (whose "What links here" changes)
        link = f"\nSee also {profile.link_to(11 + repeat)}.\n"
        target.write_text(target.read_text(encoding="utf-8") + link, encoding="utf-8")
    elif scenario == "edit-title":
        text, title = target.read_text(encoding="utf-8"), "A Renamed Topic" + (f" {repeat + 1}" if repeat else "")
        target.write_text(retitled(text, title), encoding="utf-8")
    elif scenario == "add-article":
        new = tool.sources / profile.path_of(profile.size + repeat)
        new.parent.mkdir(parents=True, exist_ok=True)  # a vault's new note may start a folder (a month's)
        new.write_text(profile.text_of(profile.size + repeat), encoding="utf-8")


def move_aside(folder: Path | None, aside: list[Path] | None) -> None:
    """Set `folder` aside (`set_aside`) into `aside`, deleted after timing; without `aside`, delete it now."""
    old = set_aside(folder) if folder is not None else None
    if old is not None and aside is not None:
        aside.append(old)
    elif old is not None:
        shutil.rmtree(old)


def pipeline_tool(name: str, root: Path, wiki: Path, suffix: str = "", env: dict | None = None) -> Tool:
    command = [sys.executable, "-m", "pipeline", "build", "--content", str(wiki), "--state", str(root / f"state{suffix}"),
               "--out", str(root / f"site{suffix}")]  # fmt: skip
    return Tool(name, command, wiki, root, env=env, out=root / f"site{suffix}", state=root / f"state{suffix}")


def importable(checkout: Path, overlay: Path) -> Path:
    """The folder to put on PYTHONPATH so that Python imports `checkout`'s pipeline, its theme included.

    A checkout whose theme is its top-level `templates/` (installed as `pipeline.theme`) cannot be imported
    from PYTHONPATH alone: `pipeline.theme` is not in its `pipeline/`, and an editable install of the other
    pipeline (the README's) would answer for it, so the baseline would render with the other's templates.
    `overlay` gets a `pipeline/` of links to the checkout's package and its `templates/` as `theme`.
    """
    templates = checkout / "templates"
    if not (templates / "__init__.py").exists() or (checkout / "pipeline" / "theme").exists():
        return checkout
    package = overlay / "pipeline"
    shutil.rmtree(overlay, ignore_errors=True)
    package.mkdir(parents=True)
    for entry in (checkout / "pipeline").iterdir():
        (package / entry.name).symlink_to(entry)
    (package / "theme").symlink_to(templates)
    return overlay


def compiled(root: Path, env: dict | None = None) -> dict:
    """The environment of an installed tool: Python's bytecode cached between runs.

    pip compiles an installed package's bytecode; an editable install or a
    PYTHONDONTWRITEBYTECODE environment would recompile every module on every
    run (`docs/performance.md` says what that costs). The cache lives under `root`, so nothing is written beside
    the sources.
    """
    env = {**(env or os.environ), "PYTHONPYCACHEPREFIX": str(root / "pycache")}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


def warm_up(tool: Tool, root: Path, profile: str) -> None:
    """Build a three-article corpus of the profile once with the tool's Python (and the wiki.yaml of the timed
    builds), so its bytecode is cached before timing."""
    wiki = root / "warm-up" / "wiki"
    if not wiki.exists():
        profile_of(profile, 3).write(wiki)
    command = [*tool.command[: tool.command.index("--content")], "--content", str(wiki),
               "--state", str(wiki.parent / f"state-{tool.name}"), "--out", str(wiki.parent / f"site-{tool.name}")]  # fmt: skip
    timed(command, root, tool.env)


def tools_for(
    root: Path, wiki: Path, profile: Profile, hugo: bool, mkdocs: bool, search: bool = False,
    baseline: Path | None = None,
) -> list[Tool]:
    # Hugo and MkDocs build no full-text index here, so by default neither does pipeline (--search turns it on).
    (root / "wiki.yaml").write_text(f"search: {'true' if search else 'false'}\n{profile.settings}")
    tools = [pipeline_tool("pipeline", root, wiki, env=compiled(root))]
    if baseline is not None:
        shutil.copytree(wiki, root / "wiki-baseline")
        env = compiled(root, {**os.environ, "PYTHONPATH": str(importable(baseline.resolve(), root / "baseline-import"))})
        tools.append(pipeline_tool("baseline", root, root / "wiki-baseline", "-baseline", env))
    for tool in tools:
        warm_up(tool, root, profile.name)
        tool.code = code_of(tool.env, tool.cwd)
        print(f"{tool.name}: {tool.code}")
    if hugo and shutil.which("hugo"):
        profile.hugo_tree(wiki, root / "hugo")
        tools.append(Tool("hugo", ["hugo", "--quiet", "-d", str(root / "hugo-out")], root / "hugo" / "content", root / "hugo",
                          out=root / "hugo-out"))  # fmt: skip
    if mkdocs and shutil.which("mkdocs"):
        profile.mkdocs_tree(wiki, root / "mkdocs")
        tools.append(Tool("mkdocs", ["mkdocs", "build", "-q", "-d", str(root / "mkdocs-out")], root / "mkdocs" / "docs",
                          root / "mkdocs", out=root / "mkdocs-out"))  # fmt: skip
    return tools


def set_aside(root: Path) -> Path | None:
    """Move a tree an earlier run left at `root` out of the way; return where it went (delete it after timing).

    On ext4 without a journal, the file system of these machines, the kernel will not hand out
    an inode freed in the last minutes, and scans past each such inode to make a file or folder:
    deleting the last run's tree before timing made the cold build of whichever tool ran first pay
    for it, pipeline's (measured in `docs/performance.md`).
    """
    if not root.exists():
        return None
    aside = root.with_name(f".{root.name}-old-{time.time_ns()}")
    root.rename(aside)
    return aside


def run_size(
    articles: int, workdir: Path, hugo: bool, mkdocs: bool, search: bool = False, baseline: Path | None = None,
    aside: list[Path] | None = None, repeat: int = 1, profile: str = "wiki", cold: int = 1,
) -> list[Tool]:
    """Generate a corpus of the profile (`wiki` or `vault`) of `articles` and time every tool on every
    scenario (each rebuild `repeat` times, the cold build `cold` times); a tree an earlier run left is set aside into `aside` (the
    caller deletes those once done timing), or else deleted first."""
    corpus = profile_of(profile, articles)
    root = workdir / (f"n{articles}" if profile == "wiki" else f"{profile}-n{articles}")
    old = set_aside(root)
    if old is not None:
        if aside is None:
            shutil.rmtree(old)
        else:
            aside.append(old)
    wiki = root / "wiki"
    files = corpus.write(wiki)
    print(f"\n== {articles} articles, {profile} profile ({files} files) ==")
    tools = tools_for(root, wiki, corpus, hugo, mkdocs and articles <= 1000, search, baseline)
    for scenario in SCENARIOS:
        for number in range(cold if scenario == "cold" else repeat):
            for tool in tools[number % len(tools) :] + tools[: number % len(tools)]:  # each tool first in turn
                edit(tool, scenario, corpus, number, aside)
                tool.runs.setdefault(scenario, []).append(timed(tool.command, tool.cwd, tool.env)[0])
    for tool in tools:
        tool.results = {scenario: median(runs) for scenario, runs in tool.runs.items()}
    for tool in tools:
        if tool.code is not None and code_of(tool.env, tool.cwd) != tool.code:
            print(f"WARNING: {tool.name}'s code changed during the run: its numbers are void")
    return tools


def median(runs: list[Timing]) -> Timing:
    """The run of median wall time (of an even number, the faster of the two in the middle)."""
    return sorted(runs, key=lambda t: t.wall)[(len(runs) - 1) // 2]


def report(tools: list[Tool]) -> None:
    print(f"{'tool':10} {'scenario':12} {'wall s':>8} {'range s':>13} {'cpu s':>8} {'cpu/wall':>8} {'rss MB':>8} "
          f"{'pages':>7} {'passes run':>10} {'reused':>7}")
    for tool in tools:
        for scenario, t in tool.results.items():
            walls = [run.wall for run in tool.runs.get(scenario, [t])]
            spread = f"{min(walls):.2f}-{max(walls):.2f}" if len(walls) > 1 else ""
            extra = f"{t.pages:>7} {t.passes_run:>10} {t.passes_reused:>7}" if t.pages is not None else ""
            print(f"{tool.name:10} {scenario:12} {t.wall:8.2f} {spread:>13} {t.cpu:8.2f} {t.cpu / t.wall:8.2f} "
                  f"{t.rss_mb:8.0f} {extra}")
    for other in tools[1:]:
        for scenario in SCENARIOS:
            ratio = tools[0].results[scenario].wall / other.results[scenario].wall
            print(f"pipeline / {other.name} {scenario}: {ratio:#.3g}x{paired(tools[0], other, scenario)}")


def paired(ours: Tool, other: Tool, scenario: str) -> str:
    """The ratio of each repeat's two runs, made one right after the other: the machine's speed drifts
    less within a pair than across a run, so these say whether a tenth is real better than the medians."""
    ratios = sorted(a.wall / b.wall for a, b in zip(ours.runs.get(scenario, []), other.runs.get(scenario, [])))
    if len(ratios) < 2:
        return ""
    # Three significant digits, trailing zeros kept: a target of 0.1x read from "0.10" may be 0.095 or 0.104.
    return f" (each repeat: {', '.join(f'{ratio:#.3g}' for ratio in ratios)}; median {statistics.median(ratios):#.3g}x)"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--workdir", type=Path, default=Path("/tmp/pipeline-bench"))
    parser.add_argument("--no-hugo", action="store_true")
    parser.add_argument("--no-mkdocs", action="store_true")
    parser.add_argument("--search", action="store_true", help="let pipeline build its Pagefind index too")
    parser.add_argument("--baseline", type=Path, help="another checkout of pipeline to time side by side")
    parser.add_argument("--repeat", type=int, default=1, help="make each rebuild N times, report the median")
    parser.add_argument("--cold", type=int, default=1, help="make the cold build N times, report the median")
    parser.add_argument("--profile", choices=("wiki", "vault", "both"), default="wiki",
                        help="generate.py's wiki, vault.py's Obsidian-style vault, or each in turn")  # fmt: skip
    args = parser.parse_args(argv)
    aside: list[Path] = []
    for size in args.sizes:
        for profile in ("wiki", "vault") if args.profile == "both" else (args.profile,):
            tools = run_size(size, args.workdir, not args.no_hugo, not args.no_mkdocs, args.search, args.baseline,
                             aside, max(1, args.repeat), profile, max(1, args.cold))  # fmt: skip
            report(tools)
    for tree in aside:  # after all timing (see `set_aside`); the next run had best start a few minutes later
        shutil.rmtree(tree, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
