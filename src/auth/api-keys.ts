// API keys (--api-keys FILE): a JSON array of {"name", "sha256", "scopes"}, where sha256 is the
// hex SHA-256 of the key a client sends as X-API-Key. The file holds no key itself. A key is
// found by its digest: one Map lookup, then one crypto.timingSafeEqual of the digests. The
// lookup's time can depend on the digest a client's key hashes to, never on the key's own bytes
// beyond that, and a stored digest tells nothing of its key (SHA-256 is preimage-resistant), so
// neither the time taken nor the answer tells whether a name or a key prefix exists; the cost
// does not grow with the number of keys. An entry named `cert:<CN>` gives its scopes to a client
// certificate of that subject CN (--tls-client-ca) and is never matched by a key. When the file
// is read again, an entry kept as it was (the same name, digest and scopes) is the same entry;
// any other entry read before is revoked (its `revoked` signal aborted), so that what it let in
// and still holds open (an event stream) ends.
import { createHash, timingSafeEqual } from "node:crypto";
import { readFileSync } from "node:fs";
import { Type } from "@sinclair/typebox";
import type { Static } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { SCOPES } from "./scopes.js";

/** The name prefix of an entry that holds a client certificate's scopes. */
export const CERTIFICATE_PREFIX = "cert:";

/** The largest key accepted, in bytes: far above any generated key, far below the header limit. */
export const MAX_KEY_BYTES = 512;

const ApiKeyEntry = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 256 }),
    sha256: Type.String({ pattern: "^[0-9a-fA-F]{64}$" }),
    scopes: Type.Array(Type.Union(Object.keys(SCOPES).map((scope) => Type.Literal(scope))), { uniqueItems: true }),
  },
  { additionalProperties: false },
);
const ApiKeyFile = Type.Array(ApiKeyEntry);

type ApiKeyEntry = Static<typeof ApiKeyEntry>;

export interface ApiKey {
  readonly name: string;
  readonly scopes: ReadonlySet<string>;
  /** Aborted once a reload removes or changes the entry. */
  readonly revoked: AbortSignal;
}

interface Stored extends ApiKey {
  readonly digest: Buffer;
  readonly revoke: () => void;
}

/** The entries of one file: the keys by hex digest, the certificates' entries by name. */
interface KeyTable {
  readonly entries: readonly Stored[];
  readonly size: number;
  readonly byDigest: ReadonlyMap<string, Stored>;
  readonly certificates: ReadonlyMap<string, Stored>;
}

/** The keys of one file, read at start and again on reload(). */
export class ApiKeys {
  private table: KeyTable;

  /** Reads `path`; throws an Error saying what is wrong with it. */
  constructor(readonly path: string) {
    this.table = tableOf(readKeys(path));
  }

  /** The keys' count (for the log). */
  get size(): number {
    return this.table.size;
  }

  /**
   * Reads the file again; each entry read before and not kept as it was is revoked. A file that
   * cannot be read or is not valid leaves the keys as they were, and the Error says why.
   */
  reload(): void {
    const before = this.table;
    const byName = new Map(before.entries.map((entry) => [entry.name, entry]));
    const read = readKeys(this.path).map((entry) => kept(byName.get(entry.name), entry) ?? entry);
    this.table = tableOf(read);
    const staying = new Set(read);
    for (const entry of before.entries) if (!staying.has(entry)) entry.revoke();
  }

  /** The entry whose digest is the key's (a lookup, then a constant-time comparison); never a cert: entry. */
  find(key: string): ApiKey | undefined {
    if (Buffer.byteLength(key) > MAX_KEY_BYTES) return undefined;
    const digest = createHash("sha256").update(key).digest();
    const entry = this.table.byDigest.get(digest.toString("hex"));
    return entry !== undefined && timingSafeEqual(entry.digest, digest) ? entry : undefined;
  }

  /** The scopes of a client certificate whose subject CN is `commonName`, if an entry names it. */
  certificate(commonName: string): ApiKey | undefined {
    return this.table.certificates.get(`${CERTIFICATE_PREFIX}${commonName}`);
  }
}

/** Two entries with one digest: the first in the file is the key's (cert: entries are never keys). */
function tableOf(stored: readonly Stored[]): KeyTable {
  const byDigest = new Map<string, Stored>();
  const certificates = new Map<string, Stored>();
  for (const entry of stored) {
    if (entry.name.startsWith(CERTIFICATE_PREFIX)) certificates.set(entry.name, entry);
    else if (!byDigest.has(entry.digest.toString("hex"))) byDigest.set(entry.digest.toString("hex"), entry);
  }
  return { entries: stored, size: stored.length, byDigest, certificates };
}

/** `old`, the entry of the same name read before, when `entry` repeats it (its digest and scopes). */
function kept(old: Stored | undefined, entry: Stored): Stored | undefined {
  if (old === undefined || !old.digest.equals(entry.digest) || old.scopes.size !== entry.scopes.size) return undefined;
  return [...entry.scopes].every((scope) => old.scopes.has(scope)) ? old : undefined;
}

function readKeys(path: string): Stored[] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new Error(`cannot read ${path} (${error instanceof Error && "code" in error ? String(error.code) : String(error)})`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON`);
  }
  const first = Value.Errors(ApiKeyFile, parsed).First();
  if (first !== undefined) throw new Error(`${path}${first.path === "" ? "" : ` at ${first.path}`}: ${first.message}`);
  const entries = parsed as ApiKeyEntry[];
  const names = new Set<string>();
  for (const [index, entry] of entries.entries()) {
    if (names.has(entry.name)) throw new Error(`${path} at /${String(index)}/name: the name ${JSON.stringify(entry.name)} is used twice`);
    names.add(entry.name);
  }
  return entries.map((entry) => {
    const controller = new AbortController();
    return { name: entry.name, scopes: new Set(entry.scopes), digest: Buffer.from(entry.sha256, "hex"), revoked: controller.signal, revoke: () => { controller.abort(); } };
  });
}
