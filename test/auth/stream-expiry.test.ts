// An event stream does not outlive its token: a stream opened with an access token the real
// OpenID provider issued for two seconds ends at its exp with an `error` event whose problem
// says the token expired; a stream opened with an API key, which does not expire, goes on.
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/api-keys.js";
import { JwtVerifier } from "../../src/auth/jwt.js";
import { startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { AUDIENCE, signingKey, startIssuer } from "../helpers/oidc-issuer.js";
import type { Issuer } from "../helpers/oidc-issuer.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";

const KEY = "k-watcher-5e2b90d1c7a46f38";
const TOKEN_TTL_S = 2;
const HEARTBEAT_MS = 100;

describe("an event stream and its credentials' expiry", () => {
  let issuer: Issuer;
  let keys: ApiKeysFile;
  let gateway: TestGateway;

  beforeAll(async () => {
    issuer = await startIssuer([await signingKey("key-1")], { accessTokenTtlS: TOKEN_TTL_S });
    keys = await apiKeysFile([{ name: "watcher", key: KEY, scopes: ["events:read"] }]);
    gateway = await startTestGateway({
      listen: true,
      sseHeartbeatMs: HEARTBEAT_MS,
      access: { jwt: new JwtVerifier({ issuer: issuer.url, audience: AUDIENCE, clockSkewS: 30 }), apiKeys: new ApiKeys(keys.file) },
    });
  });

  afterAll(async () => {
    await gateway.close();
    await issuer.close();
    await keys.remove();
  });

  /** Reads the stream's text until `until` holds of it or the stream ends; says which. */
  async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, until: (text: string) => boolean): Promise<{ text: string; ended: boolean }> {
    const decoder = new TextDecoder();
    let text = "";
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text, ended: true };
      text += decoder.decode(value, { stream: true });
      if (until(text)) return { text, ended: false };
    }
  }

  it("ends /v1/events and /v1/status at the token's exp with an error event saying it expired; an API key's stream goes on", async () => {
    const token = await issuer.token("events:read");
    // Both at once: each waits for the one token's expiry.
    await Promise.all(["/v1/events", "/v1/status"].map((path) => expiresWith(path, token)));
  });

  async function expiresWith(path: string, token: string): Promise<void> {
    const exp = decodeJwt(token).exp ?? 0;
    const opened = Date.now();
    const [withToken, withKey] = await Promise.all([
      fetch(`${gateway.url}${path}`, { headers: { authorization: `Bearer ${token}`, accept: "text/event-stream" } }),
      fetch(`${gateway.url}${path}`, { headers: { "x-api-key": KEY, accept: "text/event-stream" } }),
    ]);
    expect([withToken.status, withKey.status]).toEqual([200, 200]);
    const tokenReader = withToken.body?.getReader();
    const keyReader = withKey.body?.getReader();
    if (tokenReader === undefined || keyReader === undefined) throw new Error("no body");

    const { text, ended } = await readUntil(tokenReader, () => false);
    expect(ended).toBe(true);
    // Not before exp (whole seconds).
    expect(Date.now()).toBeGreaterThanOrEqual(exp * 1000);
    const last = text.trimEnd().split("\n\n").at(-1) ?? "";
    expect(last).toMatch(/^(id: \d+\n)?event: error\n/m);
    const data = /^data: (.*)$/m.exec(last)?.[1] ?? "";
    expect(JSON.parse(data)).toMatchObject({ status: 401, code: "UNAUTHENTICATED", detail: "the access token expired; reconnect with a fresh token" });

    // The key's stream is alive after the token's ended: it sends more heartbeats than it could
    // have sent by then (one per HEARTBEAT_MS at most), however long they are held up.
    const more = Math.ceil((Date.now() - opened) / HEARTBEAT_MS) + 5;
    const alive = await readUntil(keyReader, (read) => read.split(": heartbeat").length - 1 >= more);
    expect(alive.ended).toBe(false);
    await keyReader.cancel();
  }
});
