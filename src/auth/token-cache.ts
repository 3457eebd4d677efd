// The verified-token cache (docs/operations/authentication.md, "The verified-token cache"): a
// bearer token that passed every check of src/auth/jwt.ts is remembered, by its SHA-256
// digest, until its `exp`, so a client that sends the same token again does not pay for the
// signature check again. Contracts:
// - Only a token that passed verification is stored; a refusal is never stored, so a token is
//   refused from here only by not being here, and then it is verified in full.
// - An entry is served only while the clock is before the token's `exp` (no clock skew is
//   added: the skew lets the verifier accept a token a little late, and such a token is
//   verified in full each time) and not before its `nbf` less the skew (the verifier's own
//   bound; it only matters if the clock steps back).
// - The key is the digest of the whole token, so a token that differs by one byte is another
//   key; keeping digests, not tokens, keeps each key small and no bearer secret in the heap.
// - At most `maxEntries` entries; the least recently used goes first (a Map keeps insertion
//   order: a hit is moved to the end, the first entry is the least recently used).
// - A signing key the issuer rotates away does not evict the tokens it signed: they stay valid
//   until their `exp`, as with any JWT.
import { createHash } from "node:crypto";

/** The default bound of the cache, in tokens: far above the clients one gateway serves at once. */
export const TOKEN_CACHE_ENTRIES = 1_000;

export interface TokenCacheOptions {
  /** The most tokens kept. Default: TOKEN_CACHE_ENTRIES. 0 turns the cache off. */
  readonly maxEntries?: number | undefined;
  /** The clock, in milliseconds since the epoch. Default: Date.now. */
  readonly now?: (() => number) | undefined;
}

interface Entry<T> {
  readonly value: T;
  /** When the entry stops being served: the token's `exp`, in milliseconds. */
  readonly expiresMs: number;
  /** Before this, the entry is not served: `nbf` less the clock skew, in milliseconds. */
  readonly notBeforeMs: number;
}

/** What a verified token's claims say of its lifetime, in seconds since the epoch (JWT NumericDate). */
export interface Lifetime {
  readonly exp: number;
  readonly nbf?: number | undefined;
  /** The verifier's clock skew, in seconds. */
  readonly clockSkewS: number;
}

export class TokenCache<T> {
  private readonly entries = new Map<string, Entry<T>>();
  private readonly maxEntries: number;
  private readonly now: () => number;

  constructor(options: TokenCacheOptions = {}) {
    this.maxEntries = options.maxEntries ?? TOKEN_CACHE_ENTRIES;
    this.now = options.now ?? Date.now;
  }

  /** The number of tokens kept. */
  get size(): number {
    return this.entries.size;
  }

  /** What `token` verified to, while it is still valid; undefined: verify it in full. */
  get(token: string): T | undefined {
    if (this.maxEntries === 0) return undefined;
    const key = digest(token);
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    const now = this.now();
    this.entries.delete(key);
    if (now >= entry.expiresMs || now < entry.notBeforeMs) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  /** Remembers that `token` verified to `value`; call only after the token passed every check. */
  set(token: string, value: T, lifetime: Lifetime): void {
    if (this.maxEntries === 0) return;
    const expiresMs = lifetime.exp * 1000;
    if (!Number.isFinite(expiresMs) || this.now() >= expiresMs) return;
    const notBeforeMs = lifetime.nbf === undefined ? Number.NEGATIVE_INFINITY : (lifetime.nbf - lifetime.clockSkewS) * 1000;
    const key = digest(token);
    this.entries.delete(key);
    this.entries.set(key, { value, expiresMs, notBeforeMs });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (oldest.done === true) break;
      this.entries.delete(oldest.value);
    }
  }
}

function digest(token: string): string {
  return createHash("sha256").update(token).digest("base64");
}
