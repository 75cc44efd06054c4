"""The git history of the content folder's articles: one streamed `git log` a build at most, kept in the state folder.

When the content folder is in a git repository (or is one), `read_history`
returns a `GitLog`: every commit that touched a Markdown file of the folder
(time, author, subject) with each file's change (status, paths, blob ids),
and each file's *lineage*, keyed by its path at HEAD, newest first, renames
followed (`git log -M`: the rename commit and the older name's commits
belong to the file under its new name).

It costs one `git log -z --raw -M` over the whole folder, streamed, the
first time; it is kept in the state folder (`KEPT`) by HEAD, so the next
build logs only the commits since (`old..HEAD`, when the old HEAD is an
ancestor of the new; else the whole log again) and a build whose HEAD did
not move runs no `git log` at all. Git is run with fixed arguments, no
shell, `core.quotepath=off` and NUL-separated paths. Outside a repository,
in one with no commits, or when git is missing or fails, it returns None
and the capture history stays; a shallow clone gives the commits it has,
marked `shallow` (history pages say that older history is not in the clone).

Diffs are made when a history page is rendered (`Diffs`): each revision's
two blobs read through one `git cat-file --batch` per rendering process,
compared with difflib, and cut at `MAX_DIFF_LINES`.
"""

from __future__ import annotations

import os
import pickle
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import IO, Iterator, NamedTuple

from pipeline.content.scan import MARKDOWN_SUFFIXES
from pipeline.runtime import jsonio

KEPT = "git-history.pickle"  # in the state folder: the last build's GitLog
FORMAT_VERSION = 1  # of what KEPT holds
GIT = ("git", "-c", "core.quotepath=off", "-c", "log.showSignature=false")
EMPTY_BLOB = "0" * 40
MAX_DIFF_LINES = 400  # lines of one revision's diff shown; the rest counted
MAX_BLOB_BYTES = 1 << 20  # a bigger file's diff is not shown
TIMEOUT = 600  # seconds a `git log` of the whole folder may take
ASK = "ask"  # `read_history`'s place when the caller has not asked git where the folder is


class Commit(NamedTuple):
    sha: str
    time: str  # ISO 8601, UTC (the author date)
    author: str
    message: str  # the subject line


class FileChange(NamedTuple):
    """One file's change in one commit, as `git log --raw -M` tells it."""

    commit: str  # its sha
    status: str  # A (added), M (modified), D (deleted), R (renamed), T (type changed)
    path: str  # relative to the content folder, after the commit
    old_path: str | None  # before a rename
    before: str | None  # blob ids (None: no such side)
    after: str | None


@dataclass
class GitLog:
    top: str  # the repository's top folder
    prefix: str  # the content folder inside it ("" or ending with "/")
    head: str
    shallow: bool
    commits: dict[str, Commit] = field(default_factory=dict)  # sha -> commit, newest first
    lineages: dict[str, list[FileChange]] = field(default_factory=dict)  # path at HEAD -> its changes, newest first

    def times(self) -> dict[str, int]:
        """path -> unix time of the newest commit of it (`facts["git_times"]`, which pairing reads)."""
        found = {}
        for path, changes in self.lineages.items():
            if changes[0].status != "D":
                found[path] = int(datetime.fromisoformat(self.commits[changes[0].commit].time).timestamp())
        return found

    def __repr__(self) -> str:  # what a digest of the facts reads of it (a pass that reads every fact): its HEAD
        return f"GitLog({self.top!r}, {self.prefix!r}, {self.head!r}, shallow={self.shallow})"

    def as_json(self) -> str:
        return repr(self)


class GitPlace(NamedTuple):
    """Where a folder sits in its git repository, and the repository's HEAD."""

    top: str  # the repository's top folder
    prefix: str  # the folder inside it ("" or ending with "/")
    shallow: bool
    head: str


def git_place(folder: Path) -> GitPlace | None:
    """The repository holding `folder`, or None outside one, in one with no commit yet, or without git: one
    `git rev-parse` a build, which capture (HEAD, on each capture) and the history both read; none where no
    repository can hold the folder (`in_no_work_tree`)."""
    if in_no_work_tree(folder):
        return None
    try:
        where = _run(folder, "rev-parse", "--show-toplevel", "--show-prefix", "--is-shallow-repository", "HEAD")
    except (OSError, subprocess.SubprocessError):
        return None
    lines = where.splitlines() if where is not None else []
    if len(lines) != 4 or len(lines[3]) != 40:
        return None
    top, prefix, shallow, head = lines
    return GitPlace(top, prefix, shallow == "true", head)


def in_no_work_tree(folder: Path) -> bool:
    """Whether git would find no work tree holding `folder`: neither it nor a folder above it has a `.git` (a folder,
    or the file a linked work tree or submodule has), and no `GIT_DIR` or `GIT_WORK_TREE` names one. Looked up
    without running git: a build outside a repository then starts no process for it."""
    if os.environ.get("GIT_DIR") or os.environ.get("GIT_WORK_TREE"):
        return False
    # Git walks up from the folder's real path; the path as given is looked along too, which can only make it ask.
    starts = {Path(os.path.realpath(folder)), Path(os.path.abspath(folder))}
    return not any(os.path.lexists(each / ".git") for start in starts for each in (start, *start.parents))


def read_history(folder: Path, state_dir: Path | None = None, place: GitPlace | None | str = ASK) -> GitLog | None:
    """The git history of `folder`'s Markdown files, or None without one (see the module's docstring).
    `place`: the folder's `git_place` (None: outside a repository), when the caller has it; else asked here."""
    if place is ASK:
        place = git_place(folder)
    if place is None:
        return None
    top, prefix, shallow, head = place
    kept = _kept(state_dir / KEPT if state_dir else None, top, prefix)
    if kept is not None and kept.head == head and kept.shallow == shallow:
        return kept
    try:
        since = kept.head if kept is not None and not kept.shallow and _is_ancestor(folder, kept.head) else None
        found = _log(folder, f"{since}..{head}" if since else head)
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    if found is None:
        return None
    log = GitLog(top, prefix, head, shallow)
    log.commits, log.lineages = _joined(found, kept if since else None)
    if state_dir is not None:
        try:
            jsonio.save_bytes(state_dir / KEPT, pickle.dumps((FORMAT_VERSION, log), protocol=5))
        except OSError:  # a cache: kept another time
            pass
    return log


def _run(folder: Path, *args: str) -> str | None:
    done = subprocess.run([*GIT, "-C", str(folder), *args], capture_output=True, timeout=60)
    return os.fsdecode(done.stdout) if done.returncode == 0 else None


def _is_ancestor(folder: Path, sha: str) -> bool:
    done = subprocess.run([*GIT, "-C", str(folder), "merge-base", "--is-ancestor", sha, "HEAD"], capture_output=True, timeout=60)
    return done.returncode == 0


def _kept(file: Path | None, top: str, prefix: str) -> GitLog | None:
    if file is None:
        return None
    try:
        version, log = pickle.loads(file.read_bytes())
    except Exception:  # a cache: missing, torn, another version's
        return None
    whole = version == FORMAT_VERSION and isinstance(log, GitLog)
    return log if whole and (log.top, log.prefix) == (top, prefix) else None


def _log(folder: Path, revisions: str) -> list[tuple[Commit, list[FileChange]]] | None:
    """Each commit of `revisions` touching the folder, newest first (children before parents), with its changes."""
    command = [*GIT, "-C", str(folder), "log", "-z", "--raw", "--no-abbrev", "-M", "--relative", "--date-order",
               "--format=%H%x00%aI%x00%an%x00%s", revisions, "--", "."]  # fmt: skip
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL) as process:
        try:
            found = list(_commits(_fields(process.stdout)))
        except BaseException:
            process.kill()
            raise
        returned = process.wait(timeout=TIMEOUT)
    return found if returned == 0 else None


def _fields(stream: IO[bytes]) -> Iterator[bytes]:
    """The NUL-separated fields of `stream`, read a chunk at a time."""
    rest = b""
    while chunk := stream.read(1 << 16):
        parts = (rest + chunk).split(b"\0")
        rest = parts.pop()
        yield from parts
    if rest:
        yield rest


def _commits(fields: Iterator[bytes]) -> Iterator[tuple[Commit, list[FileChange]]]:
    """Parse `git log -z --raw` with the format of `_log`: four header fields, then `:modes blobs status` fields,
    each followed by its path (two for a rename or copy). A subject holds no NUL, so the count is exact."""
    field_of = iter(fields)
    pending = next(field_of, None)
    while pending is not None:
        sha = pending.strip().decode("ascii")
        when, author, subject = (next(field_of).decode("utf-8", "replace") for _ in range(3))
        commit = Commit(sha, _utc(when), author, subject)
        changes = []
        pending = next(field_of, None)
        while pending is not None and pending.lstrip(b"\n").startswith(b":"):
            _, _, before, after, status = pending.lstrip(b"\n").decode("ascii").split(" ")
            paths = [os.fsdecode(next(field_of)) for _ in range(2 if status[0] in "RC" else 1)]
            path, old = (paths[1], paths[0]) if len(paths) == 2 else (paths[0], None)
            if path.lower().endswith(MARKDOWN_SUFFIXES) or (old or "").lower().endswith(MARKDOWN_SUFFIXES):
                changes.append(FileChange(sha, status[0], path, old, _blob(before), _blob(after)))
            pending = next(field_of, None)
        if changes:
            yield commit, changes


def _utc(iso: str) -> str:
    return datetime.fromisoformat(iso).astimezone(timezone.utc).isoformat()


def _blob(sha: str) -> str | None:
    return None if sha == EMPTY_BLOB else sha


def _joined(
    found: list[tuple[Commit, list[FileChange]]], kept: GitLog | None
) -> tuple[dict[str, Commit], dict[str, list[FileChange]]]:
    """The commits and lineages of `found` (newest first), followed by those of `kept` (the log up to the commit
    `found` starts from), its lineages renamed by what `found` renamed."""
    commits = {commit.sha: commit for commit, _ in found}
    lineages: dict[str, list[FileChange]] = {}
    owner: dict[str, str | None] = {}  # a name, as of the older commits -> the path at HEAD it is (None: none)
    for _, changes in found:
        # Who each change belongs to, from the names as they were after this commit (a commit may swap two names).
        owners = [owner.get(change.path, change.path) for change in changes]
        for change, key in zip(changes, owners):
            if key is not None:
                lineages.setdefault(key, []).append(change)
        for change, key in zip(changes, owners):
            if change.status in "AR":  # before it, the name was another file's, or none
                owner[change.path] = None
            if change.status == "R":
                owner[change.old_path] = key
    if kept is not None:
        commits.update(kept.commits)
        for path, changes in kept.lineages.items():
            key = owner.get(path, path)
            if key is not None:
                lineages.setdefault(key, []).extend(changes)
    return commits, lineages


class Diffs:
    """Each revision's diff, read when a history page is rendered: the two blobs through one `git cat-file --batch`
    of this process (a page rendered in a forked process starts its own), compared line by line."""

    def __init__(self, top: str) -> None:
        self.top = top
        self._process: subprocess.Popen | None = None
        self._pid = 0

    def as_json(self) -> str:  # a page's digest: the blob ids of its revisions name every diff
        return f"git:{self.top}"

    def lines(self, change: FileChange | None) -> list[tuple[str, str]]:
        """(kind, text) of each line of the change's unified diff: `add`, `del`, `hunk`, `same`, or `more` (the count
        of lines left out); empty when there is none to show (no change, a binary or very big file)."""
        if change is None or change.before == change.after:
            return []
        try:
            old, new = self._text(change.before), self._text(change.after)
        except (OSError, ValueError, subprocess.SubprocessError):
            return []
        if old is None or new is None:
            return []
        import difflib  # here: only a history page's diff needs it, and every build imports this module

        diff = difflib.unified_diff(old.splitlines(), new.splitlines(), n=3, lineterm="")
        shown = []
        for line in diff:
            if line.startswith(("---", "+++")) and not shown:
                continue
            if len(shown) == MAX_DIFF_LINES:
                shown.append(("more", str(1 + sum(1 for _ in diff))))
                break
            kind = {"@": "hunk", "+": "add", "-": "del"}.get(line[:1], "same")
            shown.append((kind, line))
        return shown

    def _text(self, blob: str | None) -> str | None:
        """The blob's text ("" for no blob), or None when it is binary, too big or not in this clone."""
        if blob is None:
            return ""
        process = self._cat_file()
        process.stdin.write(f"{blob}\n".encode("ascii"))
        process.stdin.flush()
        header = process.stdout.readline().split()
        if len(header) != 3:  # `<sha> missing` (a shallow clone's boundary)
            return None
        data = process.stdout.read(int(header[2]) + 1)[:-1]
        if header[1] != b"blob" or len(data) > MAX_BLOB_BYTES or b"\0" in data:
            return None
        return data.decode("utf-8", "replace")

    def _cat_file(self) -> subprocess.Popen:
        if self._process is None or self._pid != os.getpid():  # one of another process is not this one's to use
            self._process = subprocess.Popen(
                [*GIT, "-C", self.top, "cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
            )  # fmt: skip
            self._pid = os.getpid()
        return self._process

    def close(self) -> None:
        if self._process is not None and self._pid == os.getpid():
            self._process.stdin.close()
            self._process.wait(timeout=10)
            self._process.stdout.close()
        self._process = None

    def __reduce__(self):  # pickled (a digest's fallback) as where it reads from
        return Diffs, (self.top,)
