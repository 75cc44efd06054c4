"""The build lock, between real processes: a second build waits (saying so once) or, with `--no-wait`,
exits 75; a waiting build goes on when the lock is let go; a build's forked processes never hold it."""

from __future__ import annotations

import os
import subprocess
import sys

from pipeline.runtime import build_lock
from pipeline.runtime.build_lock import BUSY_STATUS, WAITING
from tests.conftest import write_files
from tests.site.helpers import SITE

DEADLINE = 120  # seconds: a bound on a process that should end, never a wait

# Takes the lock as a build does, says so, and lets go when told (a line on its stdin) or when its stdin ends.
HOLDER = (
    "import sys\nfrom pipeline.runtime.build_lock import build_lock\n"
    "with build_lock(sys.argv[1]):\n    print('held', flush=True)\n    sys.stdin.readline()\n"
)
# Tries the lock without waiting; prints whether it got it.
PROBE = (
    "import fcntl, os, sys\nfd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT)\n"
    "try:\n    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)\n    print('free')\n"
    "except BlockingIOError:\n    print('held')\n"
)


def wiki(tmp_path):
    write_files(tmp_path / "content", SITE)
    (tmp_path / "wiki.yaml").write_text("search: false\nworkers: 1\n")
    return tmp_path


def pipeline_build(root, *options, **popen):
    argv = [sys.executable, "-m", "pipeline", "build", "--content", "content", "--state", "state", "--out", "site"]
    return subprocess.Popen([*argv, *options], cwd=root, text=True, **popen)


def holding(state_dir):
    """A process holding the lock of `state_dir` (told to let go by a line on its stdin)."""
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(state_dir)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )  # fmt: skip
    assert holder.stdout.readline() == "held\n"  # a pipe, not a sleep: it holds the lock from here on
    return holder


def probe(state_dir) -> str:
    lock = str(build_lock.lock_file(state_dir))
    done = subprocess.run([sys.executable, "-c", PROBE, lock], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_build_told_not_to_wait_exits_75_with_one_line_while_another_holds_the_lock(tmp_path):
    root = wiki(tmp_path)
    holder = holding(root / "state")
    try:
        build = pipeline_build(root, "--no-wait", stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out, err = build.communicate(timeout=DEADLINE)
    finally:
        holder.communicate("\n", timeout=DEADLINE)
    assert build.returncode == BUSY_STATUS == 75
    busy = "pipeline: error: state/build.lock: another build of this wiki is running; try again when it ends"
    assert err.splitlines() == [busy]
    assert not (root / "site").exists() and not (root / "state" / "state.db").exists()


def test_a_waiting_build_says_so_once_and_builds_when_the_lock_is_let_go(tmp_path):
    root = wiki(tmp_path)
    holder = holding(root / "state")
    build = pipeline_build(root, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        first = build.stderr.readline()  # written before it waits (a pipe: no sleep, no guess)
        assert first == f"pipeline: {WAITING}\n"
        assert not (root / "site").exists()  # waiting: nothing written while the other holds the lock
        holder.communicate("\n", timeout=DEADLINE)
        out, rest = build.communicate(timeout=DEADLINE)
    finally:
        for process in (holder, build):
            if process.poll() is None:
                process.kill()
    assert build.returncode == 0, rest
    assert WAITING not in rest  # said once
    assert (root / "site" / "alpha" / "index.html").is_file() and "\npages " in out
    assert probe(root / "state") == "free"  # let go at the end


def test_a_hold_shared_with_a_thread_keeps_the_lock_until_the_last_is_let_go(tmp_path):
    state = tmp_path / "state"
    fd = build_lock.take(state)
    shared = build_lock.share(state)
    again = build_lock.take(state)  # held here already: shared, not waited for
    build_lock.release(fd)
    build_lock.release(again)
    assert probe(state) == "held"
    build_lock.release(shared)
    assert probe(state) == "free"
    assert build_lock.share(state) is None  # nothing held here any more


def test_a_forked_process_does_not_keep_the_lock(tmp_path):
    state = tmp_path / "state"
    read, write = os.pipe()
    with build_lock.build_lock(state):
        pid = os.fork()
        if pid == 0:  # the child outlives its parent's hold: it must not hold the lock itself
            os.close(write)
            os.read(read, 1)  # until the parent has let go and probed
            os._exit(0)
        os.close(read)
    try:
        assert probe(state) == "free"
    finally:
        os.write(write, b"x")
        os.close(write)
        os.waitpid(pid, 0)
