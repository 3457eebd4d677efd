// An --api-keys file for a test, written as the gateway reads it (docs/operations/authentication.md):
// each entry given by its key, stored as the key's SHA-256 in hex, in a folder of its own.
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface KeyEntry {
  readonly name: string;
  /** The key a client sends as X-API-Key; the file holds only its digest. */
  readonly key: string;
  readonly scopes: readonly string[];
}

export interface ApiKeysFile {
  /** The file's path, for --api-keys or ApiKeys. */
  readonly file: string;
  /** Its folder, for whatever else the test writes beside it. */
  readonly dir: string;
  /** Replaces the file's entries (then SIGHUP, or a new ApiKeys, reads them). */
  write(entries: readonly KeyEntry[]): Promise<void>;
  /** Deletes the folder. */
  remove(): Promise<void>;
}

/** The hex SHA-256 of `text`, as an entry's `sha256` holds a key. */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Writes `entries` to api-keys.json in a new temporary folder. */
export async function apiKeysFile(entries: readonly KeyEntry[]): Promise<ApiKeysFile> {
  const dir = await mkdtemp(join(tmpdir(), "gateway-api-keys-"));
  const file = join(dir, "api-keys.json");
  const write = (list: readonly KeyEntry[]): Promise<void> =>
    writeFile(file, JSON.stringify(list.map(({ name, key, scopes }) => ({ name, sha256: sha256Hex(key), scopes }))));
  await write(entries);
  return { file, dir, write, remove: () => rm(dir, { recursive: true, force: true }) };
}
