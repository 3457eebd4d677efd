// The reference Manager's SQLite schema (see store.ts for how it is used). Protobuf messages
// are stored as BLOBs of their binary encoding; SCHEMA_VERSION is PRAGMA user_version, and a
// database written by a newer schema is refused rather than misread.
//
// Version 2 added the job index columns (state, start, start_nanos: see job-index.ts) and
// jobs_by_state; a version-1 database is migrated once when opened (store.ts, migrate).
export const SCHEMA_VERSION = 2;

/** The version-1 jobs table gains the index columns; their values are filled in by the store. */
export const MIGRATE_1_TO_2 = `
  ALTER TABLE jobs ADD COLUMN state INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE jobs ADD COLUMN start INTEGER;
  ALTER TABLE jobs ADD COLUMN start_nanos INTEGER;
`;

export const SCHEMA = `
  CREATE TABLE IF NOT EXISTS jobs (
    id   TEXT PRIMARY KEY,
    hash INTEGER NOT NULL,
    job  BLOB NOT NULL,         -- norsk.api.manager.Job, current_hash = hash
    last_history INTEGER,       -- seq of the job's latest history entry
    -- Read from job's bytes on every write (job-index.ts), for the current picture's queries.
    -- After the BLOB, as ALTER TABLE adds them to a version-1 table: the picture reads them
    -- through jobs_by_state, never from the row.
    state       INTEGER NOT NULL DEFAULT 0, -- Job.state
    start       INTEGER,                    -- Job.start_date_time.seconds, NULL when unset
    start_nanos INTEGER                     -- Job.start_date_time.nanos
  );
  CREATE INDEX IF NOT EXISTS jobs_by_state ON jobs (state, start, start_nanos);
  -- A job's history is a chain from jobs.last_history back through history.previous, not an
  -- index on job_id: appending then writes the table's last page and the job's own row (which
  -- the same write changes anyway) instead of one more index page per job and commit.
  CREATE TABLE IF NOT EXISTS history (
    seq      INTEGER PRIMARY KEY, -- rowid: increasing, so it orders a job's entries
    job_id   TEXT NOT NULL,
    previous INTEGER,             -- seq of the job's entry before this one
    entry    BLOB NOT NULL,       -- norsk.api.manager.JobHistoryEntry
    replaced BLOB                 -- the job's bytes before this entry's change, when recorded
  );
  CREATE TABLE IF NOT EXISTS instances (
    job_id  TEXT NOT NULL,
    role    TEXT NOT NULL,
    node_id TEXT NOT NULL,
    PRIMARY KEY (job_id, role)
  );
  CREATE INDEX IF NOT EXISTS instances_by_node ON instances (node_id);
  CREATE TABLE IF NOT EXISTS nodes (
    id     TEXT PRIMARY KEY,
    kind   TEXT NOT NULL,       -- 'aws' | 'oci' | 'physical'
    record BLOB NOT NULL,       -- NodeStarted for cloud nodes, PhysicalNode for physical ones
    daemon_version TEXT NOT NULL DEFAULT ''
  );
`;
