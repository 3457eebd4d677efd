// The store's write batches (src/store.ts, "Contracts"): write() adds to one open
// transaction that only commit() makes durable, rollback() undoes it, and a COMMIT that fails
// leaves nothing half-written. What is committed is checked from a second connection to the
// same file, as another process would see it.
import { afterEach, describe, expect, it } from "vitest";
import { join } from "node:path";
import Database from "better-sqlite3";
import { Store } from "../src/store.js";
import { removeDir, tempDataDir } from "./harness.js";

const dirs: string[] = [];
const closers: (() => void)[] = [];

afterEach(() => {
  for (const close of closers.splice(0)) close();
  for (const dir of dirs.splice(0)) removeDir(dir);
});

/** A store on disk, and the job ids another connection to its file sees committed. */
function storeOnDisk(): { store: Store; committed: () => string[] } {
  const dir = tempDataDir();
  dirs.push(dir);
  const store = new Store(dir);
  const reader = new Database(join(dir, "manager.sqlite"), { readonly: true });
  closers.push(() => {
    reader.close();
    store.close();
  });
  const ids = reader.prepare<[], { id: string }>("SELECT id FROM jobs ORDER BY id");
  return { store, committed: () => ids.all().map((row) => row.id) };
}

const job = Uint8Array.from([1]);

describe("store batches", () => {
  it("keeps write()'s writes pending, unseen by other connections, until commit()", () => {
    const { store, committed } = storeOnDisk();
    store.write(() => {
      store.insertJob("a", 1n, job);
    });
    store.write(() => {
      store.insertJob("b", 1n, job);
    });
    expect(store.pending).toBe(true);
    expect(store.hasJob("a")).toBe(true); // the store's own reads see the batch
    expect(committed()).toEqual([]);
    store.commit();
    expect(store.pending).toBe(false);
    expect(committed()).toEqual(["a", "b"]);
  });

  it("rollback() undoes every write of the open batch and keeps what was committed", () => {
    const { store, committed } = storeOnDisk();
    store.transaction(() => {
      store.insertJob("a", 1n, job);
    });
    store.write(() => {
      store.insertJob("b", 1n, job);
    });
    store.write(() => {
      store.replaceJob("a", 2n, job);
    });
    store.rollback();
    expect(store.pending).toBe(false);
    expect(store.jobs().map((row) => [row.id, row.hash])).toEqual([["a", 1n]]);
    expect(committed()).toEqual(["a"]);
  });

  it("commit() and rollback() with nothing pending do nothing", () => {
    const { store, committed } = storeOnDisk();
    expect(() => {
      store.commit();
      store.rollback();
    }).not.toThrow();
    expect(store.pending).toBe(false);
    expect(committed()).toEqual([]);
  });

  it("rethrows the error of a write whose function committed the batch itself, keeping what it committed", () => {
    const { store, committed } = storeOnDisk();
    expect(() =>
      store.write(() => {
        store.insertJob("a", 1n, job);
        store.commit();
        throw new Error("after the commit");
      }),
    ).toThrow("after the commit");
    expect(committed()).toEqual(["a"]);
    expect(store.pending).toBe(false);
  });

  it("rolls the whole batch back and rethrows when COMMIT fails (a disk error)", () => {
    const { store, committed } = storeOnDisk();
    store.write(() => {
      store.insertJob("a", 1n, job);
    });
    // A disk cannot be made to fail on cue: the COMMIT statement is made to throw what
    // SQLite's would, everything else runs for real.
    const statement = Object.getPrototypeOf(new Database(":memory:").prepare("SELECT 1")) as { run: (...args: unknown[]) => unknown };
    const run = statement.run;
    statement.run = function (this: { source: string }, ...args: unknown[]) {
      if (this.source === "COMMIT") throw new Error("disk I/O error");
      return run.apply(this, args);
    };
    try {
      expect(() => {
        store.commit();
      }).toThrow("disk I/O error");
    } finally {
      statement.run = run;
    }
    expect(store.pending).toBe(false);
    expect(store.hasJob("a")).toBe(false);
    expect(committed()).toEqual([]);
  });
});
