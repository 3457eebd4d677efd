// The --api-keys file: read and checked at start, found by digest, re-read on demand (SIGHUP),
// a bad file on re-read keeping the keys in force.
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
});
