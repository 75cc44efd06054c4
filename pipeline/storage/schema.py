"""The SQLite schema of the state database, as forward migrations: one script per version.

`MIGRATIONS[i]` takes a database from `PRAGMA user_version` i to i + 1;
`store.migrate` applies those a database has not seen. Triggers make the
lifecycle tables append-only (`_immutable`, `_no_replace`); the caches (`file_stats`,
`plan_memo`, `kept_memos`, `result_mentions`) may lose rows at the cost of
work done again.
"""

from __future__ import annotations

# A diagnostic is an object (contracts check it) and the store's JSON is compact: an output that
# reports any holds this text. One without it reports none; one with it may report none.
SOME_DIAGNOSTIC = '"diagnostics":[{'


def _immutable(table: str) -> str:
    return f"""
    CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table}
    BEGIN SELECT RAISE(ABORT, '{table} is immutable: rows cannot be updated'); END;
    CREATE TRIGGER {table}_no_delete BEFORE DELETE ON {table}
    BEGIN SELECT RAISE(ABORT, '{table} is immutable: rows cannot be deleted'); END;
    """


def _results_table(name: str, jobs: str) -> str:
    """The results table as `name`, each result the result of a row of `jobs` (a job; since v17, a job pass)."""
    return f"""
    CREATE TABLE {name} (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL UNIQUE REFERENCES {jobs}(id),
        capture_id INTEGER NOT NULL REFERENCES captures(id),
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        contract_version INTEGER NOT NULL,
        input_fingerprint TEXT NOT NULL,
        output TEXT NOT NULL,             -- JSON, valid against the pass's contract
        created_at REAL NOT NULL
    );
    """


SCHEMA_V1 = (
    """
    CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);

    -- One row per distinct (path, bytes) ever seen, plus one per removal.
    CREATE TABLE captures (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,               -- relative to the content folder, '/' separated
        sha256 TEXT NOT NULL,             -- of the raw bytes (of the removed bytes, for a removal)
        kind TEXT NOT NULL CHECK (kind IN ('file', 'removal')),
        size INTEGER NOT NULL,
        raw BLOB,
        text TEXT,                        -- no longer written: read as raw decoded (older rows may hold it)
        decode_error TEXT,
        frontmatter TEXT,                 -- JSON object, or NULL
        frontmatter_error TEXT,
        frontmatter_error_line INTEGER,
        body TEXT,                        -- unused (NULL): the body is derived from text and body_line
        body_line INTEGER,                -- line of the file where the body starts (1-based)
        lang TEXT,
        slug TEXT,
        git_commit TEXT,
        captured_at TEXT NOT NULL,
        UNIQUE (path, sha256, kind)
    );

    -- Which capture a path pointed to, and since when; the newest row per path is current.
    CREATE TABLE capture_history (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        capture_id INTEGER NOT NULL REFERENCES captures(id),
        observed_at TEXT NOT NULL,
        git_commit TEXT
    );
    CREATE INDEX capture_history_path ON capture_history (path, id);

    -- Content-addressed slices of the wiki that jobs read (shared between jobs).
    CREATE TABLE job_inputs (sha256 TEXT PRIMARY KEY, json TEXT NOT NULL);

    CREATE TABLE processing_jobs (
        id INTEGER PRIMARY KEY,
        capture_id INTEGER NOT NULL REFERENCES captures(id),
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        input_fingerprint TEXT NOT NULL,
        inputs TEXT NOT NULL DEFAULT '{}',  -- JSON: input name -> job_inputs.sha256
        status TEXT NOT NULL DEFAULT 'pending'
            CHECK (status IN ('pending', 'processing', 'done', 'failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        max_attempts INTEGER NOT NULL,
        last_error TEXT,
        error_kind TEXT CHECK (error_kind IN ('retryable', 'permanent')),
        next_retry_at REAL,
        created_at REAL NOT NULL,
        started_at REAL,
        finished_at REAL,
        claim_token TEXT,
        lease_expires_at REAL,
        worker TEXT,
        UNIQUE (capture_id, pass_name, pass_version, input_fingerprint)
    );
    CREATE INDEX processing_jobs_status ON processing_jobs (status, id);

    -- Every claim of a job, kept forever: start, end, outcome, error.
    CREATE TABLE job_attempts (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL REFERENCES processing_jobs(id),
        attempt INTEGER NOT NULL,
        claim_token TEXT NOT NULL,
        worker TEXT,
        started_at REAL NOT NULL,
        finished_at REAL,
        outcome TEXT CHECK (outcome IN ('done', 'failed', 'recovered')),
        error TEXT,
        error_kind TEXT
    );
    CREATE INDEX job_attempts_job ON job_attempts (job_id);
    CREATE UNIQUE INDEX job_attempts_token ON job_attempts (claim_token);

    -- A worker tried to finish a job after its claim was recovered; the fence refused it.
    CREATE TABLE rejected_completions (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL REFERENCES processing_jobs(id),
        claim_token TEXT NOT NULL,
        attempted TEXT NOT NULL CHECK (attempted IN ('done', 'failed')),
        error TEXT,
        at REAL NOT NULL
    );

    """
    + _results_table("processing_results", "processing_jobs")
    + """
    CREATE INDEX processing_results_capture ON processing_results (capture_id, pass_name);
    """
    + _immutable("captures")
    + _immutable("capture_history")
    + _immutable("job_inputs")
    + _immutable("processing_results")
    + _immutable("rejected_completions")
    + """
    CREATE TRIGGER job_attempts_no_delete BEFORE DELETE ON job_attempts
    BEGIN SELECT RAISE(ABORT, 'job_attempts is append-only: rows cannot be deleted'); END;
    CREATE TRIGGER job_attempts_closed BEFORE UPDATE ON job_attempts WHEN OLD.outcome IS NOT NULL
    BEGIN SELECT RAISE(ABORT, 'job_attempts is append-only: a finished attempt cannot change'); END;
    """
)

# v2: a cache of (size, mtime) -> sha256 per source file, so an unchanged file is not read again.
# It is not a lifecycle table: rows are replaced freely, and deleting them all only costs one full read.
SCHEMA_V2 = """
    CREATE TABLE file_stats (
        path TEXT PRIMARY KEY,
        size INTEGER NOT NULL,
        mtime_ns INTEGER NOT NULL,
        sha256 TEXT NOT NULL,
        checked_ns INTEGER NOT NULL       -- when the file was hashed (see capture.py: racy timestamps)
    );
"""

# v3: the identity of every capture in a small covering index, so the capture log and the current
# state (read by every build, even one with nothing to do) never touch the rows holding the bytes.
SCHEMA_V3 = """
    CREATE INDEX captures_identity ON captures (id, sha256, kind);
"""

# v4: the last plan of each pass version, for the planner to pass on to the next (job_reuse.py). A cache,
# like file_stats: rows are replaced freely, and losing them only costs one full plan.
SCHEMA_V4 = """
    CREATE TABLE plan_worlds (
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        world TEXT NOT NULL,              -- digest of what the pass's select reads beyond the article
        PRIMARY KEY (pass_name, pass_version)
    );
    CREATE TABLE plan_memo (
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        capture_id INTEGER NOT NULL,
        own TEXT NOT NULL,                -- digest of the article's own results the select reads
        job_id INTEGER NOT NULL,
        PRIMARY KEY (pass_name, pass_version, capture_id)
    );
"""

# v5: a result's lazy fields (a pass's LAZY_FIELDS: page HTML) beside its output instead of in it, so
# loading a build's results never reads them, nor has SQLite take them out of the JSON. Immutable too.
SCHEMA_V5 = (
    """
    CREATE TABLE result_fields (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL REFERENCES processing_results(job_id),
        field TEXT NOT NULL,
        value TEXT NOT NULL,              -- JSON
        UNIQUE (job_id, field)
    );
    """
    + _immutable("result_fields")
)

# v6: what a pass's selects build from its read set alone (its KEEP memos: the link index), kept with
# the read set they were built in, so that a build in the same read set loads them. A cache, like plan_memo.
SCHEMA_V6 = """
    CREATE TABLE kept_memos (
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        key TEXT NOT NULL,                -- the key the pass memoizes it under (`Wiki.memo`)
        world TEXT NOT NULL,              -- digest of the pass's world and of the code that built it
        value BLOB NOT NULL,              -- pickled
        PRIMARY KEY (pass_name, pass_version, key)
    );
"""

# v7: each result's digest and whether it reports a diagnostic, written with it, so that a build
# reads only the outputs it uses instead of every output to digest it. Immutable too. Results from
# before v7 get theirs here (`pipeline_sha256`: registered on every connection `open_store` makes).
SCHEMA_V7 = (
    f"""
    CREATE TABLE result_digests (
        job_id INTEGER PRIMARY KEY REFERENCES processing_results(job_id),
        sha256 TEXT NOT NULL,             -- of the output JSON (as UTF-8)
        reports INTEGER NOT NULL          -- 1 when the output may report a diagnostic (it holds SOME_DIAGNOSTIC)
    );
    INSERT INTO result_digests (job_id, sha256, reports)
        SELECT job_id, pipeline_sha256(output), instr(output, '{SOME_DIAGNOSTIC}') > 0 FROM processing_results;
    """
    + _immutable("result_digests")
)

# v8: every column of a capture an Article holds but its bytes, in a covering index. A capture's
# bytes (an article's text is often bigger than a table page) overflow it and come before its frontmatter,
# so reading the frontmatter of a row walked its overflow pages: loading the articles of a
# big wiki read all their bytes through the table, and reads only their fields through this index.
SCHEMA_V8 = """
    CREATE INDEX captures_fields ON captures (id, path, sha256, size, decode_error, frontmatter,
        frontmatter_error, frontmatter_error_line, body_line, lang, slug);
"""

# v9: whether a result's output holds a text, once a build has searched it for that text
# (`StoredOutputs.mentioning`: the html pass looks for the wikilinks outputs that embed an article).
# Outputs never change, so neither does a row; a missing row only costs one search of that output.
SCHEMA_V9 = """
    CREATE TABLE result_mentions (
        text TEXT NOT NULL,
        job_id INTEGER NOT NULL,
        present INTEGER NOT NULL,         -- 1 when the output's JSON holds the text
        PRIMARY KEY (text, job_id)
    ) WITHOUT ROWID;
"""

# v10: the edit events a completed job handed to the spool, by event id (the same pass version
# proposing the same edit of the same bytes: see `Worker.send_edits`). A job that proposes one again,
# as every mentions job does after a title changes, sends nothing: the corpus has it. A row is
# written with its job's result, after the event is in the spool: delivery stays at least once.
SCHEMA_V10 = """
    CREATE TABLE sent_edits (event_id TEXT PRIMARY KEY) WITHOUT ROWID;
"""

# v11: the diagnostics of each result that reports some, apart from its output: a build lists every
# diagnostic, and in a big wiki with mention suggestions, decoding every mentions output for
# them was a large part of an edit build. Results from before v11 get theirs here, where SQLite reads
# their JSON; the few it cannot (an older version's `NaN`) are read from their output when reported.
SCHEMA_V11 = (
    f"""
    CREATE TABLE result_diagnostics (
        job_id INTEGER PRIMARY KEY REFERENCES processing_results(job_id),
        diagnostics TEXT NOT NULL         -- the output's non-empty "diagnostics" list, as JSON
    );
    INSERT INTO result_diagnostics (job_id, diagnostics)
        SELECT job_id, json_extract(output, '$.diagnostics') FROM processing_results
        WHERE instr(output, '{SOME_DIAGNOSTIC}') > 0 AND json_valid(output)
            AND json_type(output, '$.diagnostics') = 'array' AND json_array_length(output, '$.diagnostics') > 0;
    """
    + _immutable("result_diagnostics")
)

# v12: the plan memo packed (job_reuse.py): a row per plan that added entries to a pass version's memo,
# its entries as JSON columns with their results' digests, instead of a row per capture. Reading and
# joining a row per article and pass was a large part of every edit build.
# A cache still; the rows of v4 are packed here, a part per pass version (their digests unknown: the
# next plan looks them up and packs them in), so the first build after the upgrade plans no more.
SCHEMA_V12 = """
    CREATE TABLE plan_memo_packed (
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        part INTEGER NOT NULL,            -- 0, 1, ...: a later part's entry for a capture replaces an earlier one's
        entries BLOB NOT NULL,            -- JSON: [capture ids, own digests, job ids, result digests or null, reports]
        PRIMARY KEY (pass_name, pass_version, part)
    );
    INSERT INTO plan_memo_packed
        SELECT pass_name, pass_version, 0, json_array(json_group_array(capture_id), json_group_array(own),
            json_group_array(job_id), json_group_array(NULL), json_group_array(NULL))
        FROM plan_memo GROUP BY pass_name, pass_version;
    DROP TABLE plan_memo;
    ALTER TABLE plan_memo_packed RENAME TO plan_memo;
"""

# v13: what a read set is made of, and what each memo entry's select read of it (job_reuse.py), so that a
# pass whose read set changed in its results alone selects again only for the articles that read the change.
SCHEMA_V13 = """
    ALTER TABLE plan_worlds ADD COLUMN parts TEXT;   -- JSON: part name -> digest (NULL: planned before v13)
    ALTER TABLE plan_memo ADD COLUMN touched BLOB;   -- JSON: [[capture id, [keys]], ...] (the pass's TOUCHES)
"""

# v14: the capture each path points at now, kept by a trigger as each history row is added: every build
# reads it, and finding the newest row of each path in the history (which grows with every edit) took
# twice as long. Derived from `capture_history`, never written otherwise.
SCHEMA_V14 = """
    CREATE TABLE current_captures (
        path TEXT PRIMARY KEY,
        capture_id INTEGER NOT NULL REFERENCES captures(id),
        sha256 TEXT NOT NULL,             -- the capture's
        kind TEXT NOT NULL                -- the capture's: 'file' or 'removal'
    ) WITHOUT ROWID;
    INSERT INTO current_captures
        SELECT h.path, c.id, c.sha256, c.kind FROM capture_history h JOIN captures c ON c.id = h.capture_id
        WHERE h.id IN (SELECT MAX(id) FROM capture_history GROUP BY path);
    CREATE TRIGGER capture_history_current AFTER INSERT ON capture_history
    BEGIN
        INSERT OR REPLACE INTO current_captures
            SELECT NEW.path, id, sha256, kind FROM captures WHERE id = NEW.capture_id;
    END;
"""



def _no_replace(table: str, *keys: str) -> str:
    """A trigger refusing a row whose key (each of `keys`: a condition on NEW) another row holds.

    `REPLACE` (and `INSERT OR REPLACE`) deletes the row it displaces without firing its delete trigger
    (SQLite fires none while `recursive_triggers` is off, as it is on any connection that does not set
    it), so without this the bytes of a capture could change under its sha256.
    """
    taken = " OR ".join(f"EXISTS (SELECT 1 FROM {table} WHERE {key})" for key in keys)
    return f"""
    CREATE TRIGGER {table}_no_replace BEFORE INSERT ON {table} WHEN {taken}
    BEGIN SELECT RAISE(ABORT, '{table} is immutable: rows cannot be replaced'); END;
    """


# v15: every immutable (and append-only) table refuses an insert that would displace a row, by any of
# its unique keys. `job_inputs` is content-addressed: the planner inserts an input it may hold already
# (`INSERT OR IGNORE`), so the same text under its digest passes; other text under it does not.
SCHEMA_V15 = (
    _no_replace("captures", "id = NEW.id", "path = NEW.path AND sha256 = NEW.sha256 AND kind = NEW.kind")
    + _no_replace("capture_history", "id = NEW.id")
    + _no_replace("job_inputs", "rowid = NEW.rowid", "sha256 = NEW.sha256 AND json IS NOT NEW.json")
    + _no_replace("processing_results", "id = NEW.id", "job_id = NEW.job_id")
    + _no_replace("rejected_completions", "id = NEW.id")
    + _no_replace("result_fields", "id = NEW.id", "job_id = NEW.job_id AND field = NEW.field")
    + _no_replace("result_digests", "job_id = NEW.job_id")
    + _no_replace("result_diagnostics", "job_id = NEW.job_id")
    + _no_replace("job_attempts", "id = NEW.id", "claim_token = NEW.claim_token")
)

# v16: the content folder's other files (attachments: images, PDFs, video...), captured by content hash, their
# bytes in the state folder (`content/attachments.py`), not here. A row per change of a path (its new bytes, or
# a removal): the table is its own history. `current_attachments` is derived, as `current_captures` is (v14).
SCHEMA_V16 = (
    """
    CREATE TABLE attachment_captures (
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,               -- relative to the content folder, '/' separated (as captures')
        sha256 TEXT NOT NULL,             -- of the bytes (of the removed bytes, for a removal)
        size INTEGER NOT NULL,            -- 0 for a removal
        kind TEXT NOT NULL CHECK (kind IN ('file', 'removal')),
        captured_at TEXT NOT NULL,
        git_commit TEXT
    );
    CREATE INDEX attachment_captures_path ON attachment_captures (path, id);
    CREATE TABLE current_attachments (
        path TEXT PRIMARY KEY,
        capture_id INTEGER NOT NULL REFERENCES attachment_captures(id),
        sha256 TEXT NOT NULL,
        size INTEGER NOT NULL,
        kind TEXT NOT NULL
    ) WITHOUT ROWID;
    CREATE TRIGGER attachment_captures_current AFTER INSERT ON attachment_captures
    BEGIN
        INSERT OR REPLACE INTO current_attachments VALUES (NEW.path, NEW.id, NEW.sha256, NEW.size, NEW.kind);
    END;
    """
    + _immutable("attachment_captures")
    + _no_replace("attachment_captures", "id = NEW.id")
)

# v17: one job per capture and round (issue 43): a job runs the passes of one round for one capture, each a
# row of `job_passes`, whose id the pass's result is stored under (the result tables' `job_id` names it). A
# job made from v17 on names its passes in `pass_name` (comma-separated), with `pass_version` 0 and
# `input_fingerprint` a digest of its passes' identities; its own `inputs` is empty. A job made before
# v17 ran one pass: it becomes a job with that one pass, under the job's id. `pass_failures` keeps each
# failure of a pass, by attempt (its claim token): a job fails when any of its passes does, and its
# passes that did not fail keep their results.
SCHEMA_V17 = (
    """
    CREATE TABLE job_passes (
        id INTEGER PRIMARY KEY,
        job_id INTEGER NOT NULL REFERENCES processing_jobs(id),
        capture_id INTEGER NOT NULL REFERENCES captures(id),
        pass_name TEXT NOT NULL,
        pass_version INTEGER NOT NULL,
        input_fingerprint TEXT NOT NULL,
        inputs TEXT NOT NULL,             -- JSON: input name -> job_inputs.sha256
        UNIQUE (capture_id, pass_name, pass_version, input_fingerprint)
    );
    CREATE INDEX job_passes_job ON job_passes (job_id);
    INSERT INTO job_passes (id, job_id, capture_id, pass_name, pass_version, input_fingerprint, inputs)
        SELECT id, id, capture_id, pass_name, pass_version, input_fingerprint, inputs FROM processing_jobs;
    CREATE TABLE pass_failures (
        id INTEGER PRIMARY KEY,
        job_pass_id INTEGER NOT NULL REFERENCES job_passes(id),
        claim_token TEXT NOT NULL,        -- the attempt's (job_attempts.claim_token)
        error TEXT NOT NULL,
        error_kind TEXT NOT NULL CHECK (error_kind IN ('retryable', 'permanent'))
    );
    CREATE INDEX pass_failures_pass ON pass_failures (job_pass_id, id);

    -- A result is a job pass's: the table made again with its key referring to job_passes (SQLite cannot
    -- change a key's reference in place; `store.migrate` turns foreign keys off meanwhile).
    """
    + _results_table("processing_results_v17", "job_passes")
    + """
    INSERT INTO processing_results_v17 SELECT * FROM processing_results;
    DROP TABLE processing_results;
    ALTER TABLE processing_results_v17 RENAME TO processing_results;
    CREATE INDEX processing_results_capture ON processing_results (capture_id, pass_name);
    """
    + _immutable("processing_results")
    + _no_replace("processing_results", "id = NEW.id", "job_id = NEW.job_id")
    + _immutable("job_passes")
    + _no_replace("job_passes", "id = NEW.id", "capture_id = NEW.capture_id AND pass_name = NEW.pass_name AND "
                  "pass_version = NEW.pass_version AND input_fingerprint = NEW.input_fingerprint")
    + _immutable("pass_failures")
    + _no_replace("pass_failures", "id = NEW.id")
)

# v18: the tables of read sets named as the code names them: `plan_read_sets`, and each read set's digest
# `read_set` there and in `kept_memos` (v4 and v6 named them otherwise).
SCHEMA_V18 = """
    ALTER TABLE plan_worlds RENAME TO plan_read_sets;
    ALTER TABLE plan_read_sets RENAME COLUMN world TO read_set;
    ALTER TABLE kept_memos RENAME COLUMN world TO read_set;
"""

# Forward migrations: MIGRATIONS[i] takes the schema from user_version i to i + 1.
MIGRATIONS: tuple[str, ...] = (
    SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5, SCHEMA_V6, SCHEMA_V7, SCHEMA_V8, SCHEMA_V9, SCHEMA_V10,
    SCHEMA_V11, SCHEMA_V12, SCHEMA_V13, SCHEMA_V14, SCHEMA_V15, SCHEMA_V16, SCHEMA_V17, SCHEMA_V18,
)  # fmt: skip
SCHEMA_VERSION = len(MIGRATIONS)
