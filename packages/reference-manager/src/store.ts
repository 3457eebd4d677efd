// Persistence of the reference Manager: one SQLite file, <dataDir>/manager.sqlite, written
// through better-sqlite3. The store is byte-level: jobs, history entries and node records are
// kept as their protobuf encodings, so fields this build does not know (a newer client's)
// survive byte for byte; the layers above decode what they need.
//
// Contracts:
// - Every method is synchronous (better-sqlite3), so a commit has happened when commit()
//   returns.
// - Writes are grouped: `write(fn)` applies fn's writes inside the open batch transaction
//   (opening one if needed) as one savepoint, all or nothing; `commit()` commits the batch.
//   Several requests' writes can thus share one COMMIT (group commit, see commits.ts), which
//   costs far less per write than a transaction each; `transaction(fn)` is write + commit.
//   Reads see the batch's uncommitted writes (one connection), so callers that answer with
//   what they read commit the batch first.
// - Durability: WAL with synchronous=NORMAL. A commit is in the WAL (the OS's page cache) when
//   it returns, so it survives the process being killed (kill -9) at any point after the reply;
//   only an OS crash or power loss can lose the last commits. FULL would fsync on every commit
//   (several times the cost of a commit) for a protection the design does not ask for
// (docs/architecture.md, "The reference Manager"); the WAL is still fsynced before each checkpoint.
// - Statements are prepared once, in the constructor.
import { closeSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import type { Statement } from "better-sqlite3";
import { jobIndexOf } from "./job-index.js";
import { MIGRATE_1_TO_2, SCHEMA, SCHEMA_VERSION } from "./schema.js";

/**
 * The data dir cannot be used (not a directory, not writable, a file SQLite cannot open):
 * an operator's mistake, which the commands report in one line naming the path (exit 2).
 */
export class DataDirError extends Error {
  override name = "DataDirError";
}

/** `dataDir` value that keeps everything in memory and nothing on disk. */
export const IN_MEMORY = ":memory:";

export interface JobRow {
  readonly id: string;
  readonly hash: bigint;
  readonly job: Uint8Array;
}

/** A job as the current picture sends it: its id and stored bytes. */
export interface StoredJob {
  readonly id: string;
  readonly job: Uint8Array;
}

/** A point in time as Timestamp's two fields. */
export interface Instant {
  readonly seconds: bigint;
  readonly nanos: number;
}

export interface HistoryRow {
  readonly entry: Uint8Array;
  /** The job as it was before the change the entry records (replaceJobChecked), else undefined. */
  readonly replaced: Uint8Array | undefined;
}

export interface InstanceRow {
  readonly jobId: string;
  readonly role: string;
  readonly nodeId: string;
}

export type NodeKind = "aws" | "oci" | "physical";

export interface NodeRow {
  readonly id: string;
  readonly kind: NodeKind;
  readonly record: Uint8Array;
  readonly daemonVersion: string;
}

interface RawInstance {
  job_id: string;
  role: string;
  node_id: string;
}

interface RawNode {
  id: string;
  kind: NodeKind;
  record: Buffer;
  daemon_version: string;
}

/** The job index columns, set together from indexColumns(). */
const SET_INDEXED = "state = ?, start = ?, start_nanos = ?";

export class Store {
  readonly #db: Database.Database;
  readonly #begin: Statement;
  readonly #commit: Statement;
  readonly #rollback: Statement;
  readonly #savepoint: Statement;
  readonly #release: Statement;
  readonly #rollbackToSavepoint: Statement;
  readonly #jobById: Statement<[string], JobRow>;
  readonly #hasJob: Statement<[string], { one: number }>;
  readonly #allJobs: Statement<[], JobRow>;
  readonly #pages: PageStatements;
  readonly #jobsInState: Statement<[number], StoredJob>;
  readonly #jobsStartingBy: Statement<[number, bigint, bigint, number], StoredJob>;
  readonly #insertJob: Statement<[string, bigint, Uint8Array, number, bigint | null, number | null]>;
  readonly #updateJob: Statement<[bigint, Uint8Array, number, bigint | null, number | null, string]>;
  readonly #deleteJob: Statement<[string]>;
  readonly #appendHistory: Statement<[string, string, Uint8Array]>;
  readonly #linkHistory: Statement<[string]>;
  readonly #historyOf: Statement<[string, number], { entry: Buffer; replaced: Buffer | null }>;
  readonly #historyEntriesOf: Statement<[string, number], { entry: Buffer }>;
  /** History entries appended by the latest write(), per job id: what its change's events carry. */
  #appended = new Map<string, number>();
  readonly #recordReplaced: Statement<[Uint8Array, string, bigint, bigint]>;
  readonly #replaceAfterRecord: Statement<[bigint, Uint8Array, number, bigint | null, number | null, string]>;
  readonly #deleteHistory: Statement<[string, number]>;
  readonly #instancesOf: Statement<[string], RawInstance>;
  readonly #instancesOn: Statement<[string], RawInstance>;
  readonly #allInstances: Statement<[], RawInstance>;
  readonly #instancesBetween: Statement<[string, string], RawInstance>;
  readonly #insertInstance: Statement<[string, string, string]>;
  readonly #deleteInstance: Statement<[string, string]>;
  readonly #deleteInstancesOf: Statement<[string]>;
  readonly #nodeById: Statement<[string], RawNode>;
  readonly #allNodes: Statement<[], RawNode>;
  readonly #upsertNode: Statement<[string, NodeKind, Uint8Array, string]>;
  readonly #deleteNode: Statement<[string]>;

  /** Opens (creating if needed) the store of `dataDir`; `":memory:"` keeps nothing. */
  constructor(dataDir: string) {
    const db = openDatabase(dataDir);
    this.#db = db;
    this.#begin = db.prepare("BEGIN");
    this.#commit = db.prepare("COMMIT");
    this.#rollback = db.prepare("ROLLBACK");
    this.#savepoint = db.prepare("SAVEPOINT write");
    this.#release = db.prepare("RELEASE write");
    this.#rollbackToSavepoint = db.prepare("ROLLBACK TO write");
    // Hashes are read as BigInt: they use the whole signed 64-bit range.
    this.#jobById = db.prepare<[string], JobRow>("SELECT id, hash, job FROM jobs WHERE id = ?").safeIntegers(true);
    this.#hasJob = db.prepare<[string], { one: number }>("SELECT 1 AS one FROM jobs WHERE id = ?");
    this.#allJobs = db.prepare<[], JobRow>("SELECT id, hash, job FROM jobs ORDER BY id").safeIntegers(true);
    this.#pages = preparePages(db);
    // The current picture's jobs, through jobs_by_state: rows of other jobs are never read.
    this.#jobsInState = db.prepare<[number], StoredJob>("SELECT id, job FROM jobs INDEXED BY jobs_by_state WHERE state = ? ORDER BY id");
    const startingBy = "state = ? AND start <= ? AND (start < ? OR start_nanos <= ?)";
    this.#jobsStartingBy = db.prepare(`SELECT id, job FROM jobs INDEXED BY jobs_by_state WHERE ${startingBy} ORDER BY id`);
    this.#insertJob = db.prepare("INSERT INTO jobs (id, hash, job, state, start, start_nanos) VALUES (?, ?, ?, ?, ?, ?)");
    this.#updateJob = db.prepare(`UPDATE jobs SET hash = ?, job = ?, ${SET_INDEXED} WHERE id = ?`);
    this.#deleteJob = db.prepare("DELETE FROM jobs WHERE id = ?");
    this.#appendHistory = db.prepare(
      "INSERT INTO history (job_id, previous, entry) VALUES (?, (SELECT last_history FROM jobs WHERE id = ?), ?)",
    );
    this.#linkHistory = db.prepare("UPDATE jobs SET last_history = last_insert_rowid() WHERE id = ?");
    // A job's history chain, newest first, at most `depth` entries deep.
    const chain =
      "WITH RECURSIVE chain (seq, previous, depth) AS (" +
      "SELECT h.seq, h.previous, 1 FROM jobs j JOIN history h ON h.seq = j.last_history WHERE j.id = ? " +
      "UNION ALL SELECT h.seq, h.previous, c.depth + 1 FROM chain c JOIN history h ON h.seq = c.previous WHERE c.depth < ?) ";
    this.#historyOf = db.prepare<[string, number], { entry: Buffer; replaced: Buffer | null }>(
      `${chain}SELECT h.entry, h.replaced FROM chain c JOIN history h ON h.seq = c.seq ORDER BY c.seq`,
    );
    // The same without the replaced jobs: `replaced` is the row's last column, so SQLite does
    // not read its overflow pages.
    this.#historyEntriesOf = db.prepare<[string, number], { entry: Buffer }>(
      `${chain}SELECT h.entry FROM chain c JOIN history h ON h.seq = c.seq ORDER BY c.seq`,
    );
    // The update path in two statements: the old bytes are copied into history inside SQLite
    // (never read into JavaScript), and the compare-and-swap is the INSERT's WHERE clause.
    this.#recordReplaced = db.prepare(
      "INSERT INTO history (job_id, previous, entry, replaced) SELECT id, last_history, ?, job FROM jobs " +
        "WHERE id = ? AND (? = 0 OR hash = ?)",
    );
    this.#replaceAfterRecord = db.prepare(`UPDATE jobs SET hash = ?, job = ?, ${SET_INDEXED}, last_history = last_insert_rowid() WHERE id = ?`);
    this.#deleteHistory = db.prepare(`${chain}DELETE FROM history WHERE seq IN (SELECT seq FROM chain)`);
    this.#instancesOf = db.prepare<[string], RawInstance>("SELECT job_id, role, node_id FROM instances WHERE job_id = ? ORDER BY role");
    this.#instancesOn = db.prepare<[string], RawInstance>(
      "SELECT job_id, role, node_id FROM instances WHERE node_id = ? ORDER BY job_id, role",
    );
    this.#allInstances = db.prepare<[], RawInstance>("SELECT job_id, role, node_id FROM instances ORDER BY job_id, role");
    this.#instancesBetween = db.prepare<[string, string], RawInstance>(
      "SELECT job_id, role, node_id FROM instances WHERE job_id >= ? AND job_id <= ? ORDER BY job_id, role",
    );
    this.#insertInstance = db.prepare("INSERT INTO instances (job_id, role, node_id) VALUES (?, ?, ?)");
    this.#deleteInstance = db.prepare("DELETE FROM instances WHERE job_id = ? AND role = ?");
    this.#deleteInstancesOf = db.prepare("DELETE FROM instances WHERE job_id = ?");
    this.#nodeById = db.prepare<[string], RawNode>("SELECT id, kind, record, daemon_version FROM nodes WHERE id = ?");
    this.#allNodes = db.prepare<[], RawNode>("SELECT id, kind, record, daemon_version FROM nodes ORDER BY id");
    this.#upsertNode = db.prepare(
      "INSERT INTO nodes (id, kind, record, daemon_version) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT (id) DO UPDATE SET kind = excluded.kind, record = excluded.record, daemon_version = excluded.daemon_version",
    );
    this.#deleteNode = db.prepare("DELETE FROM nodes WHERE id = ?");
  }

  /**
   * Applies `fn`'s writes inside the open batch (opening one if none is open), all or
   * nothing: when `fn` throws, its writes are undone (the batch's earlier ones are kept) and
   * the error is rethrown. Nothing is durable until commit(). Not re-entrant.
   */
  write<T>(fn: () => T): T {
    this.#appended = new Map();
    if (!this.#db.inTransaction) this.#begin.run();
    this.#savepoint.run();
    try {
      const result = fn();
      this.#release.run();
      return result;
    } catch (error) {
      this.#appended = new Map();
      if (this.#db.inTransaction) {
        this.#rollbackToSavepoint.run();
        this.#release.run();
      }
      throw error;
    }
  }

  /** Whether a batch holds writes that are not committed yet. */
  get pending(): boolean {
    return this.#db.inTransaction;
  }

  /** Commits the open batch, if any. When COMMIT fails, the batch is rolled back and the error rethrown. */
  commit(): void {
    if (!this.#db.inTransaction) return;
    try {
      this.#commit.run();
    } catch (error) {
      this.rollback();
      throw error;
    }
  }

  /** Undoes every write of the open batch. */
  rollback(): void {
    if (this.#db.inTransaction) this.#rollback.run();
  }

  /** write(fn), then commit(): `fn`'s writes (and the batch's) have committed when it returns. */
  transaction<T>(fn: () => T): T {
    const result = this.write(fn);
    this.commit();
    return result;
  }

  get open(): boolean {
    return this.#db.open;
  }

  /** Closes the database; writes not committed yet are lost (callers commit first). */
  close(): void {
    if (this.#db.open) this.#db.close();
  }

  // ---- jobs ----

  job(id: string): JobRow | undefined {
    return this.#jobById.get(id);
  }

  hasJob(id: string): boolean {
    return this.#hasJob.get(id) !== undefined;
  }

  /** Every job, in id order (SQLite's BINARY collation: UTF-8 byte order). */
  jobs(): JobRow[] {
    return this.#allJobs.all();
  }

  /**
   * At most `limit` jobs in id order, the first ones or those after the id `after`, and no
   * more than `maxBytes` of job bytes together (but always one job, however large). Paging
   * with the last id of each page reads every job once, however the table changes between.
   */
  jobPage(after: string | undefined, limit: number, maxBytes: number = Number.POSITIVE_INFINITY): JobRow[] {
    let last: string | undefined;
    let bytes = 0;
    const pages = this.#pages;
    for (const { id, size } of after === undefined ? pages.firstSizes.all(limit) : pages.sizesAfter.all(after, limit)) {
      bytes += size;
      if (last !== undefined && bytes > maxBytes) break;
      last = id;
    }
    if (last === undefined) return [];
    return after === undefined ? pages.jobsUpTo.all(last) : pages.jobsBetween.all(after, last);
  }

  /**
   * The jobs whose indexed state is `state`, in id order, as stored; read through the index,
   * so the cost is that of the jobs returned, not of the table.
   */
  jobsInState(state: number): StoredJob[] {
    return this.#jobsInState.all(state);
  }

  /** The jobs in `state` whose start_date_time is set and at most `by`, in id order, as stored. */
  jobsStartingBy(state: number, by: Instant): StoredJob[] {
    return this.#jobsStartingBy.all(state, by.seconds, by.seconds, by.nanos);
  }

  insertJob(id: string, hash: bigint, job: Uint8Array): void {
    this.#insertJob.run(id, hash, job, ...indexColumns(job));
  }

  /** Replaces an existing job; returns false when there is none. */
  replaceJob(id: string, hash: bigint, job: Uint8Array): boolean {
    return this.#updateJob.run(hash, job, ...indexColumns(job), id).changes === 1;
  }

  /** Deletes a job with its history and instances; returns false when there is none. */
  deleteJob(id: string): boolean {
    this.#deleteHistory.run(id, Number.MAX_SAFE_INTEGER);
    this.#deleteInstancesOf.run(id);
    return this.#deleteJob.run(id).changes === 1;
  }

  /**
   * Replaces job `id` when its hash is `expected` (whatever it is when `expected` is 0n),
   * appending `entry` to its history together with the bytes replaced. Returns false, having
   * written nothing, when there is no such job or its hash differs.
   */
  replaceJobChecked(id: string, expected: bigint, hash: bigint, job: Uint8Array, entry: Uint8Array): boolean {
    if (this.#recordReplaced.run(entry, id, expected, expected).changes !== 1) return false;
    this.#replaceAfterRecord.run(hash, job, ...indexColumns(job), id);
    this.#countAppended(id);
    return true;
  }

  /** Appends an entry to an existing job's history (throws when there is no such job). */
  appendHistory(jobId: string, entry: Uint8Array): void {
    this.#appendHistory.run(jobId, jobId, entry);
    if (this.#linkHistory.run(jobId).changes !== 1) throw new Error(`no job ${jobId} to append history to`);
    this.#countAppended(jobId);
  }

  #countAppended(jobId: string): void {
    this.#appended.set(jobId, (this.#appended.get(jobId) ?? 0) + 1);
  }

  /** How many history entries the latest write() appended to `jobId` (0 after a failed one). */
  appendedByLastWrite(jobId: string): number {
    return this.#appended.get(jobId) ?? 0;
  }

  /** A job's history entries, oldest first; with `latest`, only that many of the newest. */
  history(jobId: string, latest = Number.MAX_SAFE_INTEGER): HistoryRow[] {
    if (latest < 1) return [];
    return this.#historyOf.all(jobId, latest).map((row) => ({ entry: row.entry, replaced: row.replaced ?? undefined }));
  }

  /**
   * The newest `latest` history entries of a job, oldest first, as stored: a job_updated entry
   * without its previous_job (the replaced job is not read).
   */
  historyEntries(jobId: string, latest: number): Uint8Array[] {
    if (latest < 1) return [];
    return this.#historyEntriesOf.all(jobId, latest).map((row) => row.entry);
  }

  // ---- instances (RunningJob) ----

  instancesOf(jobId: string): InstanceRow[] {
    return this.#instancesOf.all(jobId).map(toInstance);
  }

  instancesOn(nodeId: string): InstanceRow[] {
    return this.#instancesOn.all(nodeId).map(toInstance);
  }

  /** Every instance, grouped by job id; with `first` and `last`, those of the job ids from one to the other. */
  instancesByJob(range?: { readonly first: string; readonly last: string }): Map<string, InstanceRow[]> {
    const byJob = new Map<string, InstanceRow[]>();
    const rows = range === undefined ? this.#allInstances.all() : this.#instancesBetween.all(range.first, range.last);
    for (const raw of rows) {
      const list = byJob.get(raw.job_id);
      if (list === undefined) byJob.set(raw.job_id, [toInstance(raw)]);
      else list.push(toInstance(raw));
    }
    return byJob;
  }

  insertInstance(instance: InstanceRow): void {
    this.#insertInstance.run(instance.jobId, instance.role, instance.nodeId);
  }

  deleteInstance(jobId: string, role: string): boolean {
    return this.#deleteInstance.run(jobId, role).changes === 1;
  }

  // ---- nodes ----

  node(id: string): NodeRow | undefined {
    const raw = this.#nodeById.get(id);
    return raw === undefined ? undefined : toNode(raw);
  }

  /** Every node, in id order. */
  nodes(): NodeRow[] {
    return this.#allNodes.all().map(toNode);
  }

  putNode(node: NodeRow): void {
    this.#upsertNode.run(node.id, node.kind, node.record, node.daemonVersion);
  }

  deleteNode(id: string): boolean {
    return this.#deleteNode.run(id).changes === 1;
  }
}

interface PageStatements {
  readonly firstSizes: Statement<[number], { id: string; size: number }>;
  readonly sizesAfter: Statement<[string, number], { id: string; size: number }>;
  readonly jobsUpTo: Statement<[string], JobRow>;
  readonly jobsBetween: Statement<[string, string], JobRow>;
}

/**
 * Store.jobPage's statements. Pages go in id order, each after the last id of the one before
 * (a seek on the primary key): first the sizes (length() of a BLOB reads its record header,
 * not its bytes), then the rows that fit.
 */
function preparePages(db: Database.Database): PageStatements {
  return {
    firstSizes: db.prepare("SELECT id, length(job) AS size FROM jobs ORDER BY id LIMIT ?"),
    sizesAfter: db.prepare("SELECT id, length(job) AS size FROM jobs WHERE id > ? ORDER BY id LIMIT ?"),
    jobsUpTo: db.prepare<[string], JobRow>("SELECT id, hash, job FROM jobs WHERE id <= ? ORDER BY id").safeIntegers(true),
    jobsBetween: db.prepare<[string, string], JobRow>("SELECT id, hash, job FROM jobs WHERE id > ? AND id <= ? ORDER BY id").safeIntegers(true),
  };
}

/** state, start and start_nanos of a job's row (job-index.ts). */
function indexColumns(job: Uint8Array): [number, bigint | null, number | null] {
  const { state, start } = jobIndexOf(job);
  return [state, start?.seconds ?? null, start?.nanos ?? null];
}

function toInstance(raw: RawInstance): InstanceRow {
  return { jobId: raw.job_id, role: raw.role, nodeId: raw.node_id };
}

function toNode(raw: RawNode): NodeRow {
  return { id: raw.id, kind: raw.kind, record: raw.record, daemonVersion: raw.daemon_version };
}

function hasTable(db: Database.Database, table: string): boolean {
  return db.prepare("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?").get(table) !== undefined;
}

function hasColumn(db: Database.Database, table: string, column: string): boolean {
  return (db.pragma(`table_info(${table})`) as { name: string }[]).some((c) => c.name === column);
}

/**
 * Schema 1 to 2: adds the job index columns and fills them from every stored job, once (the
 * caller's transaction also sets user_version, so an interrupted migration is redone whole).
 * Rows are read a page at a time, so a large store is not held in memory.
 */
function migrate1To2(db: Database.Database): void {
  db.exec(MIGRATE_1_TO_2);
  const update = db.prepare<[number, bigint | null, number | null, number]>(
    "UPDATE jobs SET state = ?, start = ?, start_nanos = ? WHERE rowid = ?",
  );
  const page = db.prepare<[number], { rowid: number; job: Buffer }>("SELECT rowid, job FROM jobs WHERE rowid > ? ORDER BY rowid LIMIT 64");
  for (let after = Number.MIN_SAFE_INTEGER; ; ) {
    const rows = page.all(after);
    for (const row of rows) update.run(...indexColumns(row.job), row.rowid);
    const last = rows.at(-1);
    if (last === undefined) return;
    after = last.rowid;
  }
}

/**
 * The path of `dataDir`'s database. What this creates is private to the Manager's user: the
 * data dir (and missing parents) 0700, manager.sqlite 0600, whose mode SQLite gives its -wal
 * and -shm files too. A dir or file that already exists keeps the mode its owner chose.
 */
function createPrivately(dataDir: string): string {
  const file = join(dataDir, "manager.sqlite");
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    // "a": created when missing (with this mode), left as it is when present.
    closeSync(openSync(file, "a", 0o600));
  } catch (error) {
    throw new DataDirError(`cannot use the data dir ${dataDir}: ${reason(error)}`);
  }
  return file;
}

/** Why a file operation failed, without the path (the caller names it once): "ENOTDIR: not a directory". */
function reason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split(", ")[0] ?? message;
}

/** The SQLite database of `dataDir` (created, or migrated to SCHEMA_VERSION); refuses a newer one. */
function openDatabase(dataDir: string): Database.Database {
  const file = dataDir === IN_MEMORY ? IN_MEMORY : createPrivately(dataDir);
  let db: Database.Database;
  try {
    db = new Database(file);
  } catch (error) {
    throw new DataDirError(`cannot use the data dir ${dataDir}: ${reason(error)}`);
  }
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = OFF");
    const version = db.pragma("user_version", { simple: true }) as number;
    if (version > SCHEMA_VERSION) {
      throw new Error(`${file} has schema version ${version}; this build knows up to ${SCHEMA_VERSION}`);
    }
    db.transaction(() => {
      if (version < 2 && hasTable(db, "jobs") && !hasColumn(db, "jobs", "state")) migrate1To2(db);
      db.exec(SCHEMA);
      db.pragma(`user_version = ${SCHEMA_VERSION}`);
    })();
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
