"""Content folder -> immutable captures.

`capture_content` walks the content folder (which files it takes, and reads
how, safely: `scan`), hashes each Markdown file and
records a capture for every (path, bytes) pair it has not seen before; the
other files are captured as attachments (`attachments`), in the same transaction. A path
whose bytes match its current capture costs one read and one hash. Removals
are captures too (kind `removal`), and `capture_history` records which capture
each path pointed to over time. Nothing here ever writes to the content folder.
"""

from __future__ import annotations

import datetime
import hashlib
import os
import sqlite3
import time
from contextlib import closing
from dataclasses import dataclass, field, replace
from itertools import islice
from pathlib import Path
from typing import Iterator, NamedTuple

from pipeline.config import Config, worker_count
from pipeline.content.article import Article
from pipeline.content.attachments import AttachmentReport, capture_attachments
from pipeline.content.git_history import GitPlace, git_place
from pipeline.content.scan import Notice, Scan, history_mark, read_regular, scan_sources, skip_notice
from pipeline.content.source import ParsedSource, decode, parse_source
from pipeline.runtime import jsonio
from pipeline.runtime.forks import Later
from pipeline.runtime.records import made
from pipeline.storage.store import db_path, plain_rows, reader, rows_for_ids, write

@dataclass
class CaptureReport:
    """What one capture run saw."""

    files: int = 0  # the Markdown files (the attachments: `attachments`)
    new: list[int] = field(default_factory=list)  # capture ids created or restored this run
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)
    current: list[int] = field(default_factory=list)  # the captures that make up the wiki now, by path
    problems: list[tuple[str, int, str]] = field(default_factory=list)  # (path, line, message)
    notices: list[Notice] = field(default_factory=list)  # files left out or renamed (`scan`), reported as warnings
    git: GitPlace | None = None  # where the content folder is in its repository (`gather` reads its history there)
    attachments: AttachmentReport = field(default_factory=AttachmentReport)  # the other files: counted apart

    @property
    def commit(self) -> str | None:
        """git HEAD of the content folder (None outside a repository)."""
        return self.git.head if self.git is not None else None


class Current(NamedTuple):
    """The capture a path points at now (a named tuple: a build reads one per file)."""

    id: int
    sha256: str
    kind: str  # 'file' or 'removal'


def current_files(conn: sqlite3.Connection) -> dict[str, int]:
    """path -> capture id of each path the wiki holds a file at now: the newest history row of each path (kept
    by a trigger as each row is added: finding them in the history, which grows with every edit, cost
    more and more), removals left out."""
    return dict(plain_rows(conn).execute("SELECT path, capture_id FROM current_captures WHERE kind = 'file'"))


def _currents(conn: sqlite3.Connection, paths: list[str]) -> dict[str, Current]:
    """path -> the current capture (a file's or a removal's) of each of `paths` that has one: read for the
    files a capture reads and those it finds gone alone (few after an edit; their hashes, made into
    a record each, cost more than the rest of the table)."""
    sql = "SELECT path, capture_id, sha256, kind FROM current_captures WHERE path IN ({ids})"
    rows = list(rows_for_ids(conn, sql, paths))
    return dict(zip((row[0] for row in rows), made(Current, (row[1:] for row in rows))))


def current_capture_ids(conn: sqlite3.Connection) -> list[int]:
    """The captures that make up the wiki now (removed paths excluded), by path: in the order of the table's
    key (UTF-8 bytes compare as Python compares the paths' characters)."""
    rows = plain_rows(conn).execute("SELECT capture_id FROM current_captures WHERE kind = 'file' ORDER BY path")
    return [capture_id for (capture_id,) in rows]


# All in the covering index `captures_fields` (schema.py, v8): a column added here goes there too.
ARTICLE_COLUMNS = """id, path, sha256, size, decode_error, frontmatter, frontmatter_error,
    frontmatter_error_line, body_line, lang, slug"""


def load_articles(
    conn: sqlite3.Connection, ids: list[int], *, text: bool = True, known: dict[int, Article] | None = None
) -> list[Article]:
    """The captures `ids` as Articles, in the order given; without `text`, as StoredArticles.

    `known` (capture id -> Article of the same kind, from this store) is used instead of reading
    those captures again, and gets the ones read: a capture never changes.
    """
    found: dict[int, Article] = {} if known is None else {i: known[i] for i in ids if i in known}
    missing = [i for i in ids if i not in found]
    db = db_path(conn)
    # Without the bytes, every column is in the covering index (schema.py, v8): the rows are not read.
    source = "captures" if text else "captures INDEXED BY captures_fields"
    columns = f"{ARTICLE_COLUMNS}, raw" if text else ARTICLE_COLUMNS
    for row in rows_for_ids(conn, f"SELECT {columns} FROM {source} WHERE id IN ({{ids}})", missing):
        if text:
            found[row[0]] = Article(text=decode(row[11])[0], frontmatter=_decoded(row[5]), **_fields(row))
        else:
            found[row[0]] = StoredArticle.of(row, db)
    if known is not None:
        known.update(found)
    return [found[i] for i in ids if i in found]


def _fields(row: tuple) -> dict:
    """An Article's fields but `text` and `frontmatter`, from a row of ARTICLE_COLUMNS (tuples: a
    sqlite3.Row per article cost more)."""
    ident, path, sha, size, decode_error, _, meta_error, meta_error_line, body_line, lang, slug = row[:11]
    return {
        "capture_id": ident, "path": path, "sha256": sha, "size": size, "decode_error": decode_error,
        "frontmatter_error": meta_error, "frontmatter_error_line": meta_error_line, "body_line": body_line or 1,
        "lang": lang, "slug": slug,
    }  # fmt: skip


def _decoded(frontmatter_json: str | None) -> dict | None:
    return None if frontmatter_json is None else jsonio.loads(frontmatter_json)


class _TextInStore:
    """`StoredArticle.text`: read from the store at each use, never kept (a non-data descriptor)."""

    def __get__(self, article, owner=None):
        if article is None:
            return self
        row = reader(article.db).execute("SELECT raw FROM captures WHERE id = ?", (article.capture_id,)).fetchone()
        return decode(row[0])[0] if row else None


class _FrontmatterAsJson:
    """`StoredArticle.frontmatter`: decoded from the JSON the store holds when first read, then kept (a
    non-data descriptor: the decoded value, in the instance, is found first from then on)."""

    def __get__(self, article, owner=None):
        if article is None:
            return self
        article.__dict__["frontmatter"] = value = _decoded(article.frontmatter_json)
        return value


class StoredArticle(Article):
    """An Article whose text (and so body) stays in the store until read, and whose frontmatter
    is decoded when first read.

    The build's main process holds every article but reads the text
    of few: an embedded article's body, the page of a failed html job. An
    edit build reads the frontmatter of none but for a key or two
    (`frontmatter_field`): decoding them all cost every build. Workers load
    Articles with their text. Same fields and preconditions as Article;
    `frontmatter_json` is the frontmatter as the store holds it.
    """

    text = _TextInStore()
    frontmatter = _FrontmatterAsJson()
    body = property(Article.body.func)  # derived at each use, not cached: caching would keep it

    @classmethod
    def of(cls, row: tuple, db: str) -> StoredArticle:
        """From a row of ARTICLE_COLUMNS (not through __init__, which would set `text`)."""
        stored = cls.__new__(cls)
        stored.__dict__.update(_fields(row), frontmatter_json=row[5], db=db)
        return stored


PARSE_CHUNK = 2000  # files read and parsed at a time: memory stays flat however big the wiki
MIN_FILES_PER_PROCESS = 250  # below this, forking costs more than parsing here


def capture_content(
    conn: sqlite3.Connection, config: Config, now: str | None = None, workers: int | None = None,
    scanned: Scan | None = None,
) -> CaptureReport:
    """Capture every source file; record removals of files that are gone.

    The folder was walked and stat'ed already when `scanned` is given (a build's forked helper makes
    that scan while it loads its passes), else here; a scan made before another capture was
    recorded is made again. New files are parsed (frontmatter YAML is most of a cold capture) by `workers`
    processes (default: the config's), a chunk at a time, each while the one before is
    inserted here (`_parsed_chunks`).
    """
    report = CaptureReport(git=git_place(Path(config.content_dir)))
    commit = report.commit
    now = now or utc_now()
    workers = worker_count(config, workers)
    with write(conn):
        current_ids = current_files(conn)
        fresh = scanned is not None and scanned.history == history_mark(conn)
        scan = scanned if fresh else scan_sources(config, db_path(conn))
        paths = scan.paths
        changed = _changed_files(conn, config, scan, _currents(conn, list(scan.unvouched)), report)
        with closing(_parsed_chunks(changed, config.default_language, workers)) as chunks:
            for chunk, parses in chunks:
                for (rel, raw, sha), parsed in zip(chunk, parses):
                    capture_id = _file_capture(conn, rel, raw, sha, parsed, now, commit, report)
                    _observe(conn, rel, capture_id, now, commit)
                    report.new.append(capture_id)
                    current_ids[rel] = capture_id
        gone = sorted(current_ids.keys() - set(paths))
        gone_from = _currents(conn, gone)
        for rel in gone:
            _observe(conn, rel, _removal_capture(conn, rel, gone_from[rel].sha256, now, commit), now, commit)
            report.removed.append(rel)
            del current_ids[rel]
        report.attachments = capture_attachments(conn, config, scan, now, commit, report.notices)
    report.current = [current_ids[rel] for rel in sorted(current_ids)]  # what current_capture_ids reads back
    report.problems.sort()  # by path, whichever process or step found them
    report.notices.sort()
    return report


def _parsed_chunks(changed: Iterator[tuple[str, bytes, str]], default_language: str, workers: int):
    """Each chunk of the `changed` files (`_changed_files`) with their parses (`_recorded`), in order.

    The next chunk is read, and its parse started in forked processes, before a chunk is handed
    over: the caller's inserts overlap that parse. Parsing a chunk in `workers` processes, then
    inserting it here while they waited, kept a cold capture from using both cores.
    A chunk too small to share is parsed here, when its turn comes.
    """
    parse = lambda file: _recorded(file, default_language)  # noqa: E731
    ahead: tuple[list, Later] | None = None
    running: Later | None = None
    try:
        while True:
            chunk = list(islice(changed, PARSE_CHUNK))
            running = Later(parse, chunk, max(1, min(workers, len(chunk) // MIN_FILES_PER_PROCESS)))
            if ahead is not None:
                yield ahead[0], ahead[1].result()
            ahead = (chunk, running)
            if not chunk:
                return
    finally:  # the caller stopped early (an insert failed): the parse it would have had next is not waited for
        if running is not None:
            running.stop()


def _recorded(file: tuple[str, bytes, str], default_language: str) -> ParsedSource:
    """What a capture records of a file's parse: all but the text, which is decoded from the bytes
    when read. A forked parse sends back only this: with the texts, a cold capture
    pickled every file's text from process to process."""
    return replace(parse_source(file[0], file[1], default_language), text=None)


def _changed_files(conn, config: Config, scan: Scan, state: dict[str, Current], report: CaptureReport):
    """(path, bytes, sha256) of each file whose bytes are not its current capture's, counting the rest: the
    files the scan vouched for are not read; the others are read and hashed (and their stat kept)."""
    report.notices += scan.notices
    report.files = len(scan.paths) - len(scan.unread)
    report.unchanged = report.files - len(scan.unvouched)
    folder = os.path.join(config.content_dir, "")  # with its separator: no join per file
    real_root = os.path.realpath(folder)
    for rel, (_, mtime) in scan.unvouched.items():
        current = state.get(rel)
        try:
            raw = read_regular(folder + scan.on_disk.get(rel, rel), real_root)
        except OSError as exc:  # vanished, unreadable or swapped since the scan: report it, keep its last capture
            report.notices.append(skip_notice(rel, exc))
            report.files -= 1
            continue
        sha = hashlib.sha256(raw).hexdigest()
        # The stat taken before the read: a write since leaves a newer mtime, which the next scan reads again.
        conn.execute("INSERT OR REPLACE INTO file_stats VALUES (?, ?, ?, ?, ?)", (rel, len(raw), mtime, sha, time.time_ns()))
        if current is not None and current.kind == "file" and sha == current.sha256:
            report.unchanged += 1
        else:
            yield rel, raw, sha


def _file_capture(conn, rel: str, raw: bytes, sha: str, parsed, now: str, commit: str | None, report) -> int:
    existing = conn.execute(
        "SELECT id FROM captures WHERE path = ? AND sha256 = ? AND kind = 'file'", (rel, sha)
    ).fetchone()
    if existing:
        return existing["id"]
    if parsed.decode_error:
        report.problems.append((rel, 1, parsed.decode_error))
    if parsed.frontmatter_error:
        report.problems.append((rel, parsed.frontmatter_error_line or 1, parsed.frontmatter_error))
    cursor = conn.execute(
        """INSERT INTO captures (path, sha256, kind, size, raw, text, decode_error, frontmatter,
               frontmatter_error, frontmatter_error_line, body_line, lang, slug, git_commit, captured_at)
           VALUES (?, ?, 'file', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)""",
        (
            rel, sha, len(raw), raw, None, parsed.decode_error,  # text: decoded from raw when read
            None if parsed.frontmatter is None else jsonio.dumps(parsed.frontmatter),
            parsed.frontmatter_error, parsed.frontmatter_error_line, parsed.body_line,
            parsed.lang, parsed.slug, commit, now,
        ),
    )  # fmt: skip
    return cursor.lastrowid


def _removal_capture(conn, rel: str, sha: str, now: str, commit: str | None) -> int:
    existing = conn.execute(
        "SELECT id FROM captures WHERE path = ? AND sha256 = ? AND kind = 'removal'", (rel, sha)
    ).fetchone()
    if existing:
        return existing["id"]
    cursor = conn.execute(
        "INSERT INTO captures (path, sha256, kind, size, git_commit, captured_at) VALUES (?, ?, 'removal', 0, ?, ?)",
        (rel, sha, commit, now),
    )
    return cursor.lastrowid


def _observe(conn, rel: str, capture_id: int, now: str, commit: str | None) -> None:
    conn.execute(
        "INSERT INTO capture_history (path, capture_id, observed_at, git_commit) VALUES (?, ?, ?, ?)",
        (rel, capture_id, now, commit),
    )


def utc_now() -> str:
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="microseconds")
