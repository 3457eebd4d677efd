// The --api-keys file: read and checked at start, found by digest, re-read on demand (SIGHUP),
// a bad file on re-read keeping the keys in force, and each entry the re-read removed or changed
// revoked (its signal aborted), the ones it kept as they were not.
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/api-keys.js";

const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex");

describe("API keys", () => {
  let folder: string;
  let file: string;
  beforeAll(async () => {
    folder = await mkdtemp(join(tmpdir(), "api-keys-"));
    file = join(folder, "keys.json");
  });
  afterAll(async () => {
    await rm(folder, { recursive: true, force: true });
  });

  it("finds a key by its digest, never a cert: entry by a key, and a certificate's entry by its CN", async () => {
    await writeFile(file, JSON.stringify([
      { name: "ci", sha256: sha256("key-one"), scopes: ["jobs:read"] },
      { name: "cert:build-agent", sha256: sha256("key-two"), scopes: ["jobs:write"] },
    ]));
    const keys = new ApiKeys(file);
    expect(keys.find("key-one")).toMatchObject({ name: "ci", scopes: new Set(["jobs:read"]) });
    expect(keys.find("key-onf")).toBeUndefined();
    expect(keys.find("")).toBeUndefined();
    expect(keys.find("key-two")).toBeUndefined();
    expect(keys.certificate("build-agent")?.scopes).toEqual(new Set(["jobs:write"]));
    expect(keys.certificate("ci")).toBeUndefined();
  });

  it("finds a key whose digest the file writes in upper case, and gives a digest listed twice to the first entry", async () => {
    await writeFile(file, JSON.stringify([
      { name: "upper", sha256: sha256("key-upper").toUpperCase(), scopes: ["jobs:read"] },
      { name: "first", sha256: sha256("key-shared"), scopes: ["jobs:read"] },
      { name: "second", sha256: sha256("key-shared"), scopes: ["jobs:write"] },
    ]));
    const keys = new ApiKeys(file);
    expect(keys.find("key-upper")?.name).toBe("upper");
    expect(keys.find("key-shared")?.name).toBe("first");
  });

  it.each([
    ["not JSON", "[", /is not JSON/],
    ["an unknown scope", JSON.stringify([{ name: "a", sha256: sha256("k"), scopes: ["jobs:admin"] }]), /at \/0\/scopes\/0/],
    ["a digest that is not 64 hex digits", JSON.stringify([{ name: "a", sha256: "abc", scopes: [] }]), /at \/0\/sha256/],
    ["an unknown field", JSON.stringify([{ name: "a", sha256: sha256("k"), scopes: [], key: "k" }]), /at \/0/],
    ["a name used twice", JSON.stringify([{ name: "a", sha256: sha256("k"), scopes: [] }, { name: "a", sha256: sha256("l"), scopes: [] }]), /at \/1\/name/],
  ])("refuses a file with %s, saying where", async (_name, text, message) => {
    await writeFile(file, text);
    expect(() => new ApiKeys(file)).toThrow(message);
  });

  it("re-reads the file, and keeps the keys in force when the new file is not valid", async () => {
    await writeFile(file, JSON.stringify([{ name: "old", sha256: sha256("old-key"), scopes: ["jobs:read"] }]));
    const keys = new ApiKeys(file);
    await writeFile(file, JSON.stringify([{ name: "new", sha256: sha256("new-key"), scopes: ["jobs:read"] }]));
    keys.reload();
    expect(keys.find("old-key")).toBeUndefined();
    expect(keys.find("new-key")?.name).toBe("new");
    await writeFile(file, "{ broken");
    expect(() => { keys.reload(); }).toThrow(/is not JSON/);
    expect(keys.find("new-key")?.name).toBe("new");
  });

  it("revokes on re-read each entry removed or changed (its key, its scopes), and none kept as it was nor one a bad file left", async () => {
    const entry = (name: string, key: string, scopes: string[]) => ({ name, sha256: sha256(key), scopes });
    await writeFile(file, JSON.stringify([
      entry("kept", "k-kept", ["events:read"]),
      entry("removed", "k-removed", ["events:read"]),
      entry("rekeyed", "k-rekeyed", ["events:read"]),
      entry("narrowed", "k-narrowed", ["events:read", "jobs:read"]),
      entry("reordered", "k-reordered", ["events:read", "jobs:read"]),
      entry("cert:agent", "unused", ["events:read"]),
      entry("cert:gone", "unused", ["events:read"]),
    ]));
    const keys = new ApiKeys(file);
    const signals = Object.fromEntries(["kept", "removed", "rekeyed", "narrowed", "reordered"].map((name) => [name, keys.find(`k-${name}`)?.revoked]));
    const agent = keys.certificate("agent")?.revoked;
    const gone = keys.certificate("gone")?.revoked;
    await writeFile(file, JSON.stringify([
      entry("kept", "k-kept", ["events:read"]),
      entry("rekeyed", "k-rekeyed-2", ["events:read"]),
      entry("narrowed", "k-narrowed", ["jobs:read"]),
      entry("reordered", "k-reordered", ["jobs:read", "events:read"]),
      entry("cert:agent", "unused", ["events:read"]),
    ]));
    keys.reload();
    const aborted = Object.fromEntries(Object.entries(signals).map(([name, signal]) => [name, signal?.aborted]));
    expect(aborted).toEqual({ kept: false, removed: true, rekeyed: true, narrowed: true, reordered: false });
    expect([agent?.aborted, gone?.aborted]).toEqual([false, true]);
    expect(keys.find("k-kept")?.revoked).toBe(signals.kept);
    expect(keys.find("k-rekeyed-2")?.revoked.aborted).toBe(false);
    await writeFile(file, "[");
    expect(() => { keys.reload(); }).toThrow(/is not JSON/);
    expect(keys.find("k-kept")?.revoked.aborted).toBe(false);
  });
});
