import { afterEach, describe, expect, it } from "vitest";
import { chmodSync, existsSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { create, toBinary } from "@bufbuild/protobuf";
import { JobSchema, Job_JobState } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { DataDirError, Store } from "../src/store.js";
import type { NodeRow } from "../src/store.js";
import { removeDir, tempDataDir } from "./harness.js";

const dirs: string[] = [];
const stores: Store[] = [];

function dataDir(): string {
  const dir = tempDataDir();
  dirs.push(dir);
  return dir;
}

function open(dir: string): Store {
  const store = new Store(dir);
  stores.push(store);
  return store;
}

afterEach(() => {
  for (const store of stores.splice(0)) store.close();
  for (const dir of dirs.splice(0)) removeDir(dir);
});

const bytes = (...values: number[]): Uint8Array => Uint8Array.from(values);

function entries(store: Store, jobId: string): number[][] {
  return store.history(jobId).map((row) => [...row.entry]);
}

describe("store", () => {
  it("creates the data dir and manager.sqlite in WAL mode", () => {
    const dir = join(dataDir(), "nested", "data");
    open(dir).insertJob("a", 1n, bytes(1));
    expect(existsSync(join(dir, "manager.sqlite"))).toBe(true);
    const db = new Database(join(dir, "manager.sqlite"), { readonly: true });
    expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
    db.close();
  });

  it("keeps nothing for :memory:", () => {
    const a = open(":memory:");
    a.insertJob("a", 1n, bytes(1));
    expect(a.hasJob("a")).toBe(true);
    const b = open(":memory:");
    expect(b.hasJob("a")).toBe(false);
    expect(existsSync(":memory:")).toBe(false);
  });

  it.each([
    ["the smallest int64", -(2n ** 63n)],
    ["the largest int64", 2n ** 63n - 1n],
    ["minus one", -1n],
    ["zero", 0n],
    ["beyond 2^53", 2n ** 53n + 1n],
  ])("keeps a hash of %s exact", (_name, hash) => {
    const store = open(":memory:");
    store.insertJob("a", hash, bytes(7));
    expect(store.job("a")).toEqual({ id: "a", hash, job: Buffer.from([7]) });
    expect(store.jobs()[0]?.hash).toBe(hash);
  });

  it("keeps job bytes exactly, including bytes it cannot parse", () => {
    const store = open(":memory:");
    const blob = bytes(0, 255, 0x80, 0xc3, 0x28);
    store.insertJob("a", 1n, blob);
    expect(new Uint8Array(store.job("a")?.job ?? [])).toEqual(blob);
  });

  it("lists jobs in id order (UTF-8 byte order)", () => {
    const store = open(":memory:");
    for (const id of ["b", "a", "B", "é", "a-2", "a10", "a2", "😀", "ｚ"]) store.insertJob(id, 0n, bytes());
    expect(store.jobs().map((r) => r.id)).toEqual(["B", "a", "a-2", "a10", "a2", "b", "é", "ｚ", "😀"]);
  });

  it("replaces and deletes a job, reporting whether it existed", () => {
    const store = open(":memory:");
    expect(store.replaceJob("a", 1n, bytes(1))).toBe(false);
    store.insertJob("a", 1n, bytes(1));
    expect(store.replaceJob("a", 2n, bytes(2))).toBe(true);
    expect(store.job("a")?.hash).toBe(2n);
    expect(store.deleteJob("a")).toBe(true);
    expect(store.deleteJob("a")).toBe(false);
    expect(store.job("a")).toBeUndefined();
  });

  it("refuses a second job with the same id", () => {
    const store = open(":memory:");
    store.insertJob("a", 1n, bytes(1));
    expect(() => {
      store.insertJob("a", 2n, bytes(2));
    }).toThrow(/UNIQUE/);
  });

  it("keeps history in append order per job, and deletes it with the job", () => {
    const store = open(":memory:");
    store.insertJob("a", 1n, bytes());
    store.insertJob("b", 1n, bytes());
    store.appendHistory("a", bytes(1));
    store.appendHistory("b", bytes(9));
    store.appendHistory("a", bytes(2));
    store.appendHistory("a", bytes(3));
    expect(entries(store, "a")).toEqual([[1], [2], [3]]);
    store.deleteJob("a");
    expect(store.history("a")).toEqual([]);
    expect(entries(store, "b")).toEqual([[9]]);
    // A job created again under the same id starts a fresh history.
    store.insertJob("a", 1n, bytes());
    store.appendHistory("a", bytes(4));
    expect(entries(store, "a")).toEqual([[4]]);
  });

  it("reads the newest entries alone, and counts what the latest write appended", () => {
    const store = open(":memory:");
    store.insertJob("a", 1n, bytes());
    store.write(() => {
      store.appendHistory("a", bytes(1));
    });
    expect(store.appendedByLastWrite("a")).toBe(1);
    store.write(() => {
      store.appendHistory("a", bytes(2));
      store.replaceJobChecked("a", 0n, 2n, bytes(), bytes(3));
    });
    expect(store.appendedByLastWrite("a")).toBe(2);
    expect(store.appendedByLastWrite("b")).toBe(0);
    expect(store.history("a", 2).map((row) => [...row.entry])).toEqual([[2], [3]]);
    expect(store.history("a", 1).map((row) => [...row.entry])).toEqual([[3]]);
    expect(store.history("a", 0)).toEqual([]);
    expect(entries(store, "a")).toEqual([[1], [2], [3]]);
    expect(() =>
      store.write(() => {
        store.appendHistory("a", bytes(4));
        throw new Error("abandoned");
      }),
    ).toThrow("abandoned");
    expect(store.appendedByLastWrite("a")).toBe(0);
    expect(entries(store, "a")).toEqual([[1], [2], [3]]);
    store.commit();
  });

  it("refuses history for a job it does not hold", () => {
    const store = open(":memory:");
    expect(() => {
      store.transaction(() => {
        store.appendHistory("ghost", bytes(1));
      });
    }).toThrow(/no job ghost/);
  });

  it.each([
    ["any hash when expected is 0", 0n, true],
    ["the stored hash", 5n, true],
    ["another hash", 6n, false],
  ])("replaces a job checked against %s, recording the bytes it replaced", (_name, expected, replaced) => {
    const store = open(":memory:");
    store.insertJob("a", 5n, bytes(1, 1));
    store.appendHistory("a", bytes(7));
    expect(store.replaceJobChecked("a", expected, 8n, bytes(2, 2), bytes(9))).toBe(replaced);
    if (replaced) {
      expect(store.job("a")).toEqual({ id: "a", hash: 8n, job: Buffer.from([2, 2]) });
      expect(store.history("a").map((row) => [[...row.entry], row.replaced === undefined ? undefined : [...row.replaced]])).toEqual([
        [[7], undefined],
        [[9], [1, 1]],
      ]);
    } else {
      expect(store.job("a")?.hash).toBe(5n);
      expect(entries(store, "a")).toEqual([[7]]);
    }
  });

  it("replaces nothing for a job it does not hold", () => {
    const store = open(":memory:");
    expect(store.replaceJobChecked("a", 0n, 8n, bytes(2), bytes(9))).toBe(false);
    expect(store.job("a")).toBeUndefined();
  });

  it("keeps instances by job and by node, one per role", () => {
    const store = open(":memory:");
    store.insertInstance({ jobId: "j1", role: "primary", nodeId: "n1" });
    store.insertInstance({ jobId: "j1", role: "backup", nodeId: "n2" });
    store.insertInstance({ jobId: "j2", role: "primary", nodeId: "n1" });
    expect(store.instancesOf("j1").map((i) => i.role)).toEqual(["backup", "primary"]);
    expect(store.instancesOn("n1")).toEqual([
      { jobId: "j1", role: "primary", nodeId: "n1" },
      { jobId: "j2", role: "primary", nodeId: "n1" },
    ]);
    expect(store.instancesByJob()).toEqual(
      new Map([
        ["j1", [{ jobId: "j1", role: "backup", nodeId: "n2" }, { jobId: "j1", role: "primary", nodeId: "n1" }]],
        ["j2", [{ jobId: "j2", role: "primary", nodeId: "n1" }]],
      ]),
    );
    expect(() => {
      store.insertInstance({ jobId: "j1", role: "primary", nodeId: "n3" });
    }).toThrow(/UNIQUE|PRIMARY/);
    expect(store.deleteInstance("j1", "primary")).toBe(true);
    expect(store.deleteInstance("j1", "primary")).toBe(false);
    store.deleteJob("j2");
    expect(store.instancesOn("n1")).toEqual([]);
  });

  it("upserts and deletes nodes", () => {
    const store = open(":memory:");
    const node: NodeRow = { id: "n1", kind: "aws", record: Buffer.from([1]), daemonVersion: "" };
    store.putNode(node);
    store.putNode({ id: "p1", kind: "physical", record: Buffer.from([2]), daemonVersion: "1.0" });
    store.putNode({ id: "p1", kind: "physical", record: Buffer.from([3]), daemonVersion: "1.1" });
    expect(store.node("n1")).toEqual(node);
    expect(store.nodes().map((n) => [n.id, n.daemonVersion, [...n.record]])).toEqual([
      ["n1", "", [1]],
      ["p1", "1.1", [3]],
    ]);
    expect(store.deleteNode("n1")).toBe(true);
    expect(store.deleteNode("n1")).toBe(false);
  });

  it("commits a transaction's writes together", () => {
    const store = open(":memory:");
    const result = store.transaction(() => {
      store.insertJob("a", 1n, bytes());
      store.appendHistory("a", bytes(1));
      return "done";
    });
    expect(result).toBe("done");
    expect(store.hasJob("a")).toBe(true);
    expect(store.history("a")).toHaveLength(1);
  });

  it("rolls a failed transaction back entirely and rethrows", () => {
    const store = open(":memory:");
    store.insertJob("a", 1n, bytes(1));
    expect(() => {
      store.transaction(() => {
        store.replaceJob("a", 2n, bytes(2));
        store.appendHistory("a", bytes(1));
        store.insertJob("a", 3n, bytes(3)); // fails: duplicate id
      });
    }).toThrow(/UNIQUE/);
    expect(store.job("a")?.hash).toBe(1n);
    expect(store.history("a")).toEqual([]);
    // The connection is usable afterwards.
    store.transaction(() => {
      store.appendHistory("a", bytes(5));
    });
    expect(store.history("a")).toHaveLength(1);
  });

  it("keeps everything across close and reopen of the same data dir", () => {
    const dir = dataDir();
    const first = open(dir);
    first.transaction(() => {
      first.insertJob("a", -5n, bytes(1, 2));
      first.appendHistory("a", bytes(3));
      first.insertInstance({ jobId: "a", role: "r", nodeId: "n" });
      first.putNode({ id: "n", kind: "oci", record: Buffer.from([4]), daemonVersion: "" });
    });
    first.close();
    expect(first.open).toBe(false);
    const second = open(dir);
    expect(second.job("a")).toEqual({ id: "a", hash: -5n, job: Buffer.from([1, 2]) });
    expect(entries(second, "a")).toEqual([[3]]);
    expect(second.instancesOf("a")).toEqual([{ jobId: "a", role: "r", nodeId: "n" }]);
    expect(second.node("n")?.kind).toBe("oci");
  });

  it("refuses a database written by a newer schema", () => {
    const dir = dataDir();
    open(dir).close();
    const db = new Database(join(dir, "manager.sqlite"));
    db.pragma("user_version = 99");
    db.close();
    expect(() => open(dir)).toThrow(/schema version 99/);
  });
});

/** The schema of version 1, as main wrote it before the job index (a real v1 file is made from it). */
const SCHEMA_V1 = `
  CREATE TABLE jobs (id TEXT PRIMARY KEY, hash INTEGER NOT NULL, job BLOB NOT NULL, last_history INTEGER);
  CREATE TABLE history (seq INTEGER PRIMARY KEY, job_id TEXT NOT NULL, previous INTEGER, entry BLOB NOT NULL, replaced BLOB);
  CREATE TABLE instances (job_id TEXT NOT NULL, role TEXT NOT NULL, node_id TEXT NOT NULL, PRIMARY KEY (job_id, role));
  CREATE INDEX instances_by_node ON instances (node_id);
  CREATE TABLE nodes (id TEXT PRIMARY KEY, kind TEXT NOT NULL, record BLOB NOT NULL, daemon_version TEXT NOT NULL DEFAULT '');
  PRAGMA user_version = 1;
`;

const jobBytes = (init: Parameters<typeof create<typeof JobSchema>>[1]): Uint8Array => toBinary(JobSchema, create(JobSchema, init));
const ids = (rows: readonly { id: string }[]): string[] => rows.map((r) => r.id);

describe("store: the job index", () => {
  it("selects jobs by state and by start time up to an instant, to the nanosecond, in id order", () => {
    const store = open(dataDir());
    store.insertJob("b-active", 1n, jobBytes({ state: Job_JobState.ACTIVE }));
    store.insertJob("a-active", 1n, jobBytes({ state: Job_JobState.ACTIVE, startDateTime: { seconds: 1n } }));
    store.insertJob("due-earlier", 1n, jobBytes({ startDateTime: { seconds: 99n, nanos: 999 } }));
    store.insertJob("due-exactly", 1n, jobBytes({ startDateTime: { seconds: 100n, nanos: 5 } }));
    store.insertJob("a-nano-late", 1n, jobBytes({ startDateTime: { seconds: 100n, nanos: 6 } }));
    store.insertJob("late", 1n, jobBytes({ startDateTime: { seconds: 101n } }));
    store.insertJob("no-start", 1n, jobBytes({}));
    store.insertJob("post", 1n, jobBytes({ state: Job_JobState.POST, startDateTime: { seconds: 1n } }));
    expect(ids(store.jobsInState(Job_JobState.ACTIVE))).toEqual(["a-active", "b-active"]);
    expect(ids(store.jobsStartingBy(Job_JobState.PRE, { seconds: 100n, nanos: 5 }))).toEqual(["due-earlier", "due-exactly"]);
    expect(ids(store.jobsStartingBy(Job_JobState.PRE, { seconds: -(2n ** 63n), nanos: 0 }))).toEqual([]);
    expect([...(store.jobsInState(Job_JobState.ACTIVE)[0]?.job ?? [])]).toEqual([...jobBytes({ state: Job_JobState.ACTIVE, startDateTime: { seconds: 1n } })]);
  });

  it("keeps the index current through every kind of write", () => {
    const store = open(dataDir());
    store.insertJob("j", 1n, jobBytes({}));
    expect(ids(store.jobsInState(Job_JobState.ACTIVE))).toEqual([]);
    store.replaceJob("j", 2n, jobBytes({ state: Job_JobState.ACTIVE }));
    expect(ids(store.jobsInState(Job_JobState.ACTIVE))).toEqual(["j"]);
    store.replaceJobChecked("j", 2n, 3n, jobBytes({ startDateTime: { seconds: 5n } }), bytes(1));
    expect(ids(store.jobsInState(Job_JobState.ACTIVE))).toEqual([]);
    expect(ids(store.jobsStartingBy(Job_JobState.PRE, { seconds: 5n, nanos: 0 }))).toEqual(["j"]);
    store.deleteJob("j");
    expect(ids(store.jobsStartingBy(Job_JobState.PRE, { seconds: 5n, nanos: 0 }))).toEqual([]);
  });

  it("answers the picture's queries from jobs_by_state, never by scanning the table", () => {
    const dir = dataDir();
    open(dir).insertJob("j", 1n, jobBytes({}));
    const db = new Database(join(dir, "manager.sqlite"), { readonly: true });
    const plan = (sql: string, ...params: number[]): string =>
      (db.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail).join("; ");
    // The store's two statements, written out again: their plans must search the index, not scan.
    const active = plan("SELECT id, job FROM jobs INDEXED BY jobs_by_state WHERE state = ? ORDER BY id", 1);
    const pending = plan("SELECT id, job FROM jobs INDEXED BY jobs_by_state WHERE state = ? AND start <= ? AND (start < ? OR start_nanos <= ?) ORDER BY id", 0, 1, 1, 0);
    db.close();
    expect(active).toMatch(/SEARCH jobs USING INDEX jobs_by_state \(state=\?\)/);
    expect(pending).toMatch(/SEARCH jobs USING INDEX jobs_by_state \(state=\? AND start<\?\)/);
  });

  it("migrates a version-1 database once: adds the index columns and fills them from the stored jobs", () => {
    const dir = dataDir();
    const file = join(dir, "manager.sqlite");
    const v1 = new Database(file);
    v1.exec(SCHEMA_V1);
    const insert = v1.prepare("INSERT INTO jobs (id, hash, job) VALUES (?, ?, ?)");
    insert.run("active", 1, jobBytes({ jobId: { jobId: "active" }, state: Job_JobState.ACTIVE }));
    insert.run("pending", 2, jobBytes({ jobId: { jobId: "pending" }, startDateTime: { seconds: 50n, nanos: 1 } }));
    insert.run("post", 3, jobBytes({ jobId: { jobId: "post" }, state: Job_JobState.POST }));
    insert.run("junk", 4, Buffer.from([0xff, 0xff]));
    v1.close();

    const store = open(dir);
    expect(ids(store.jobsInState(Job_JobState.ACTIVE))).toEqual(["active"]);
    expect(ids(store.jobsStartingBy(Job_JobState.PRE, { seconds: 50n, nanos: 1 }))).toEqual(["pending"]);
    expect(ids(store.jobsInState(Job_JobState.POST))).toEqual(["post"]);
    expect([...(store.job("junk")?.job ?? [])]).toEqual([0xff, 0xff]);
    store.close();

    const db = new Database(file);
    expect(db.pragma("user_version", { simple: true })).toBe(2);
    // Once: a reopened version-2 database is not filled again (this planted value survives).
    db.prepare("UPDATE jobs SET state = 2 WHERE id = 'active'").run();
    db.close();
    expect(ids(open(dir).jobsInState(Job_JobState.POST))).toEqual(["active", "post"]);
  });
});

describe("store: the data dir", () => {
  it("creates the data dir 0700 and manager.sqlite with its -wal and -shm 0600", () => {
    const dir = join(dataDir(), "new", "data");
    // Open, so that the -wal and -shm files exist.
    open(dir).insertJob("a", 1n, bytes(1));
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(join(dir, "..")).mode & 0o777).toBe(0o700);
    for (const name of ["manager.sqlite", "manager.sqlite-wal", "manager.sqlite-shm"]) {
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
    }
  });

  it("leaves the mode of a data dir and database the operator made as they are", () => {
    const dir = dataDir();
    chmodSync(dir, 0o750);
    writeFileSync(join(dir, "manager.sqlite"), "");
    chmodSync(join(dir, "manager.sqlite"), 0o640);
    open(dir).insertJob("a", 1n, bytes(1));
    expect(statSync(dir).mode & 0o777).toBe(0o750);
    expect(statSync(join(dir, "manager.sqlite")).mode & 0o777).toBe(0o640);
  });

  it("refuses a data dir it cannot use with a DataDirError naming the path and why", () => {
    const file = join(dataDir(), "file");
    writeFileSync(file, "");
    expect(() => open(join(file, "data"))).toThrow(new DataDirError(`cannot use the data dir ${join(file, "data")}: ENOTDIR: not a directory`));
    expect(() => open(file)).toThrow(new DataDirError(`cannot use the data dir ${file}: EEXIST: file already exists`));
  });

  it("refuses a database file SQLite cannot open with a DataDirError", () => {
    const dir = dataDir();
    mkdirSync(join(dir, "manager.sqlite"));
    expect(() => open(dir)).toThrow(DataDirError);
  });
});

describe("store: search pages", () => {
  it("bounds a page by count and by bytes, and always holds one job however large", () => {
    const store = open(dataDir());
    for (const [id, size] of [["a", 30], ["b", 30], ["c", 30], ["d", 100], ["e", 1]] as const) store.insertJob(id, 1n, new Uint8Array(size));
    const pages: string[][] = [];
    for (let after: string | undefined; ; ) {
      const page = store.jobPage(after, 4, 64);
      if (page.length === 0) break;
      pages.push(ids(page));
      after = page.at(-1)?.id;
    }
    expect(pages).toEqual([["a", "b"], ["c"], ["d"], ["e"]]);
    expect(ids(store.jobPage(undefined, 2))).toEqual(["a", "b"]);
  });
});
