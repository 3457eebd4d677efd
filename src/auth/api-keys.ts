// API keys (--api-keys FILE): a JSON array of {"name", "sha256", "scopes"}, where sha256 is the
// hex SHA-256 of the key a client sends as X-API-Key. The file holds no key itself. A key is
// found by comparing its digest with every entry's in constant time (crypto.timingSafeEqual over
// equal-length digests, every entry compared), so neither the time taken nor the answer tells
// whether a name or a prefix exists. An entry named `cert:<CN>` gives its scopes to a client
// certificate of that subject CN (--tls-client-ca) and is never matched by a key.
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
}

interface Stored extends ApiKey {
  readonly digest: Buffer;
}

/** The keys of one file, read at start and again on reload(). */
export class ApiKeys {
  private stored: readonly Stored[];

  /** Reads `path`; throws an Error saying what is wrong with it. */
  constructor(readonly path: string) {
    this.stored = readKeys(path);
  }

  /** The keys' count (for the log). */
  get size(): number {
    return this.stored.length;
  }

  /**
   * Reads the file again. A file that cannot be read or is not valid leaves the keys as they
   * were, and the Error says why.
   */
  reload(): void {
    this.stored = readKeys(this.path);
  }

  /** The entry whose digest is the key's, compared with every entry in constant time; never a cert: entry. */
  find(key: string): ApiKey | undefined {
    if (Buffer.byteLength(key) > MAX_KEY_BYTES) return undefined;
    const digest = createHash("sha256").update(key).digest();
    let found: Stored | undefined;
    for (const entry of this.stored) {
      if (timingSafeEqual(entry.digest, digest) && !entry.name.startsWith(CERTIFICATE_PREFIX)) found ??= entry;
    }
    return found;
  }

  /** The scopes of a client certificate whose subject CN is `commonName`, if an entry names it. */
  certificate(commonName: string): ApiKey | undefined {
    const name = `${CERTIFICATE_PREFIX}${commonName}`;
    return this.stored.find((entry) => entry.name === name);
  }
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
  return entries.map((entry) => ({ name: entry.name, scopes: new Set(entry.scopes), digest: Buffer.from(entry.sha256, "hex") }));
}
