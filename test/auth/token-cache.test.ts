// The verified-token cache (src/auth/token-cache.ts), through the JWT verifier with real tokens
// of a real OpenID provider (test/helpers/oidc-issuer.ts) and a clock the test moves: a token
// verified once is served from the cache until its exp and never after; a token one byte off
// is another token; a refusal is not remembered; and the cache holds at most its bound however
// many distinct tokens arrive.
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JwtVerifier, TokenRefused } from "../../src/auth/jwt.js";
import { TOKEN_CACHE_ENTRIES, TokenCache } from "../../src/auth/token-cache.js";
import type { JwtOptions } from "../../src/auth/jwt.js";
import { AUDIENCE, CLIENT_ID, signingKey, startIssuer } from "../helpers/oidc-issuer.js";
import type { Issuer, SigningKey } from "../helpers/oidc-issuer.js";

/** A token signed with the issuer's current key, with the claims the test chooses (NumericDates in seconds). */
function signed(key: SigningKey, issuer: Issuer, claims: Record<string, unknown>): Promise<string> {
  return new SignJWT({ iss: issuer.url, aud: AUDIENCE, sub: CLIENT_ID, scope: "jobs:read", ...claims })
    .setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "at+jwt" })
    .sign(key.privateKey);
}

/** `token` with the character at `index` replaced by another base64url character. */
function oneOff(token: string, index: number): string {
  const replacement = token[index] === "A" ? "B" : "A";
  return `${token.slice(0, index)}${replacement}${token.slice(index + 1)}`;
}

describe("the verified-token cache", () => {
  let key: SigningKey;
  let issuer: Issuer;
  /** The clock of every verifier of this file, in milliseconds; each test sets it. */
  let clockMs = Date.now();
  const verifier = (options: Partial<JwtOptions> = {}): JwtVerifier =>
    new JwtVerifier({ issuer: issuer.url, audience: AUDIENCE, clockSkewS: 0, now: () => clockMs, ...options });

  beforeAll(async () => {
    key = await signingKey("cache-key");
    issuer = await startIssuer([key]);
  });

  afterAll(async () => {
    await issuer.close();
  });

  it("serves a token the provider issued from the cache: the second verification returns what the first did", async () => {
    clockMs = Date.now();
    const jwt = verifier();
    const token = await issuer.token("jobs:read events:read");
    const first = await jwt.verify(token);
    expect(first).toEqual({ subject: CLIENT_ID, scopes: new Set(["jobs:read", "events:read"]), expiresAtMs: expect.any(Number) as number });
    // The very object remembered, not a second verification's.
    expect(await jwt.verify(token)).toBe(first);
  });

  it("refuses a cached token once the clock reaches its exp, and never serves it past exp, even within the clock skew", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signed(key, issuer, { iat: now, exp: now + 60 });

    clockMs = now * 1000;
    const strict = verifier();
    const first = await strict.verify(token);
    clockMs = (now + 59) * 1000;
    expect(await strict.verify(token)).toBe(first);
    clockMs = (now + 60) * 1000;
    await expect(strict.verify(token)).rejects.toThrow(TokenRefused);

    // With a skew the verifier still accepts the token after exp, but each time in full.
    clockMs = now * 1000;
    const lenient = verifier({ clockSkewS: 30 });
    const cached = await lenient.verify(token);
    clockMs = (now + 70) * 1000;
    const late = await lenient.verify(token);
    expect(late).toEqual(cached);
    expect(late).not.toBe(cached);
    clockMs = (now + 90) * 1000;
    await expect(lenient.verify(token)).rejects.toThrow(TokenRefused);
  });

  it("does not serve a token that differs from a cached one by one character, in its signature or in its claims", async () => {
    clockMs = Date.now();
    const jwt = verifier();
    const token = await issuer.token("jobs:read");
    await jwt.verify(token);
    const [header = "", payload = "", signature = ""] = token.split(".");
    // Inside the signature (its last character may carry only padding bits) and inside the claims.
    const inSignature = oneOff(token, header.length + payload.length + 2 + Math.floor(signature.length / 2));
    const inClaims = oneOff(token, header.length + 1 + Math.floor(payload.length / 2));
    await expect(jwt.verify(inSignature)).rejects.toThrow(TokenRefused);
    await expect(jwt.verify(inClaims)).rejects.toThrow(TokenRefused);
    // The cached token itself is still served.
    await expect(jwt.verify(token)).resolves.toMatchObject({ subject: CLIENT_ID });
  });

  it("does not remember a refusal: a token refused before its nbf is accepted once the clock reaches it", async () => {
    const now = Math.floor(Date.now() / 1000);
    const token = await signed(key, issuer, { iat: now, nbf: now + 10, exp: now + 60 });
    const jwt = verifier();
    clockMs = now * 1000;
    await expect(jwt.verify(token)).rejects.toThrow(TokenRefused);
    clockMs = (now + 10) * 1000;
    await expect(jwt.verify(token)).resolves.toMatchObject({ subject: CLIENT_ID });
  });

  it("holds at most its bound under 10,000 distinct tokens, dropping the least recently used", () => {
    const now = 1_800_000_000_000;
    const cache = new TokenCache<number>({ now: () => now });
    const lifetime = { exp: now / 1000 + 300, clockSkewS: 30 };
    cache.set("token-0", 0, lifetime);
    let largest = 0;
    for (let i = 1; i < 10_000; i++) {
      cache.set(`token-${String(i)}`, i, lifetime);
      largest = Math.max(largest, cache.size);
      // token-0 is used all along: it is never the least recently used.
      if (i % 100 === 0 && cache.get("token-0") !== 0) throw new Error(`token-0 was dropped after ${String(i)} tokens`);
    }
    expect(largest).toBe(TOKEN_CACHE_ENTRIES);
    expect(cache.size).toBe(TOKEN_CACHE_ENTRIES);
    expect(cache.get("token-0")).toBe(0);
    expect(cache.get("token-9999")).toBe(9_999);
    expect(cache.get("token-1")).toBeUndefined();
    expect(cache.get(`token-${String(10_000 - TOKEN_CACHE_ENTRIES)}`)).toBeUndefined();
  });

  it("keeps nothing with a bound of 0, and nothing already expired", () => {
    const now = 1_800_000_000_000;
    const off = new TokenCache<number>({ maxEntries: 0, now: () => now });
    off.set("t", 1, { exp: now / 1000 + 300, clockSkewS: 0 });
    expect(off.get("t")).toBeUndefined();
    const cache = new TokenCache<number>({ now: () => now });
    cache.set("t", 1, { exp: now / 1000, clockSkewS: 30 });
    expect(cache.size).toBe(0);
  });
});
