// Who may do what, against a real OpenID provider (test/helpers/oidc-issuer.ts) and a real
// reference Manager: tokens it issues are taken for their scopes; every forged or stale token,
// a key one byte off and a token in the query string are refused before the Manager is called;
// a refused write leaves the Manager's jobs as they were; the issuer's keys rotate while the
// gateway runs; an issuer that is down is a 503, then the gateway recovers.
import { KeyObject } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { SignJWT } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeys } from "../../src/auth/api-keys.js";
import { JwtVerifier, KEY_COOLDOWN_MS, TokenRefused } from "../../src/auth/jwt.js";
import { ISSUER_RETRY_AFTER_MS } from "../../src/auth/issuer-fetch.js";
import { OPEN_ACCESS } from "../../src/auth/scopes.js";
import { unauthenticatedDetail } from "../../src/auth/access.js";
import { GatewayMetrics } from "../../src/telemetry/metrics.js";
import type { ManagerClient } from "../../src/operations/job-access.js";
import { JSON_HEADERS, START, startTestGateway } from "../helpers/gateway.js";
import type { TestGateway } from "../helpers/gateway.js";
import { AUDIENCE, CLIENT_ID, signingKey, startIssuer } from "../helpers/oidc-issuer.js";
import type { Issuer, SigningKey } from "../helpers/oidc-issuer.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";

const CHALLENGE = 'Bearer realm="norsk-manager-gateway", error="invalid_token"';
/** The 401's detail of a gateway that takes bearer tokens and API keys: what to send, nothing of why. */
const UNAUTHENTICATED = "the request has no valid credentials; send a bearer token in the Authorization header or an API key in the X-API-Key header";
const READER_KEY = "k-reader-8f2a61c4d0e94b7a";
const ADMIN_KEY = "k-admin-5b19e07f3c2d48a6";

function base64url(value: object): string {
  return Buffer.from(JSON.stringify(value)).toString("base64url");
}

/** Claims a token of the provider would carry, `overrides` applied. */
function claims(issuer: Issuer, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  const now = Math.floor(Date.now() / 1000);
  return { iss: issuer.url, aud: AUDIENCE, sub: CLIENT_ID, client_id: CLIENT_ID, scope: "jobs:read jobs:write", iat: now, exp: now + 300, ...overrides };
}

/** A token signed with `key` (RS256) as the provider would, but with the claims the test chooses. */
function forged(key: SigningKey, body: Record<string, unknown>): Promise<string> {
  return new SignJWT(body).setProtectedHeader({ alg: "RS256", kid: key.kid, typ: "at+jwt" }).sign(key.privateKey);
}

const JOB = { jobId: "refused-1", startDateTime: START, services: [] };

describe("authentication and scopes against a real OpenID provider", () => {
  let issuer: Issuer;
  let first: SigningKey;
  let keys: ApiKeysFile;
  let gateway: TestGateway;
  /** The Manager calls the gateway made, by method. */
  const calls: string[] = [];

  beforeAll(async () => {
    first = await signingKey("key-1");
    issuer = await startIssuer([first]);
    keys = await apiKeysFile([
      { name: "reader", key: READER_KEY, scopes: ["jobs:read"] },
      { name: "admin", key: ADMIN_KEY, scopes: ["jobs:read", "jobs:write", "metrics:read"] },
    ]);
    const jwt = new JwtVerifier({ issuer: issuer.url, audience: AUDIENCE, clockSkewS: 30 });
    gateway = await startTestGateway({
      access: { jwt, apiKeys: new ApiKeys(keys.file) },
      metrics: new GatewayMetrics(),
      hook: (real) => counted(real, calls),
    });
  });

  afterAll(async () => {
    await gateway.close();
    await issuer.close();
    await keys.remove();
  });

  async function get(path: string, headers: Record<string, string> = {}) {
    return gateway.app.inject({ method: "GET", url: path, headers });
  }

  it("answers a token the provider issued for jobs:read, and reads the jobs", async () => {
    const token = await issuer.token("jobs:read");
    const response = await get("/v1/jobs", { authorization: `Bearer ${token}` });
    expect(response.statusCode).toBe(200);
  });

  it("refuses a request without credentials with 401, the Bearer challenge and a problem, before any Manager call", async () => {
    calls.length = 0;
    const response = await get("/v1/jobs");
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toBe(CHALLENGE);
    expect(response.headers["content-type"]).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 401, code: "UNAUTHENTICATED", detail: UNAUTHENTICATED });
    expect(calls).toEqual([]);
  });

  it("refuses a write with a read-only token with 403 naming jobs:write, and the Manager's jobs stay as they were", async () => {
    const before = await gateway.jobs();
    calls.length = 0;
    const token = await issuer.token("jobs:read");
    const response = await gateway.app.inject({ method: "POST", url: "/v1/jobs", headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` }, payload: JOB });
    expect(response.statusCode).toBe(403);
    expect(response.headers["www-authenticate"]).toBe('Bearer realm="norsk-manager-gateway", error="insufficient_scope", scope="jobs:write"');
    expect(response.json()).toMatchObject({ status: 403, code: "PERMISSION_DENIED" });
    expect(calls).toEqual([]);
    expect(await gateway.jobs()).toEqual(before);
  });

  it("lets a token with jobs:write create the job the read-only one could not", async () => {
    const token = await issuer.token("jobs:read jobs:write");
    const response = await gateway.app.inject({ method: "POST", url: "/v1/jobs", headers: { ...JSON_HEADERS, authorization: `Bearer ${token}` }, payload: JOB });
    expect(response.statusCode).toBe(201);
    expect((await get(`/v1/jobs/${JOB.jobId}`, { authorization: `Bearer ${token}` })).statusCode).toBe(200);
  });

  describe("refuses each forged or stale token with the same 401, before any Manager call", () => {
    const attacks: [string, () => Promise<string>][] = [
      ["alg none", () => Promise.resolve(`${base64url({ alg: "none", typ: "at+jwt" })}.${base64url(claims(issuer))}.`)],
      ["HS256 signed with the issuer's RSA public key as the secret", async () => {
        const pem = KeyObject.from(first.publicKey).export({ type: "spki", format: "pem" });
        return new SignJWT(claims(issuer)).setProtectedHeader({ alg: "HS256", kid: first.kid }).sign(new TextEncoder().encode(String(pem)));
      }],
      ["expired (past the clock skew)", () => forged(first, claims(issuer, { iat: Math.floor(Date.now() / 1000) - 600, exp: Math.floor(Date.now() / 1000) - 60 }))],
      ["not yet valid (past the clock skew)", () => forged(first, claims(issuer, { nbf: Math.floor(Date.now() / 1000) + 120 }))],
      ["of another issuer", () => forged(first, claims(issuer, { iss: "https://elsewhere.example" }))],
      ["for another audience", () => forged(first, claims(issuer, { aud: "https://other.example/api" }))],
      ["signed with a key the issuer never published (unknown kid)", async () => forged(await signingKey("stranger"), claims(issuer))],
      ["of 12 KB (longer than any token verified)", () => forged(first, claims(issuer, { padding: "x".repeat(12_000) }))],
    ];
    it.each(attacks)("%s", async (_name, make) => {
      const token = await make();
      calls.length = 0;
      const response = await get("/v1/jobs", { authorization: `Bearer ${token}` });
      expect(response.statusCode).toBe(401);
      expect(response.headers["www-authenticate"]).toBe(CHALLENGE);
      const { requestId: _id, ...body } = response.json<Record<string, unknown>>();
      expect(body).toEqual({ type: "about:blank", title: "Unauthorized", status: 401, detail: UNAUTHENTICATED, instance: "/v1/jobs", code: "UNAUTHENTICATED" });
      expect(calls).toEqual([]);
    });
  });

  it("refuses a 16 KB token without verifying it or calling the Manager", async () => {
    const token = await forged(first, claims(issuer, { padding: "x".repeat(16_384) }));
    calls.length = 0;
    const response = await get("/v1/jobs", { authorization: `Bearer ${token}` });
    expect([401, 431]).toContain(response.statusCode);
    expect(calls).toEqual([]);
  });

  it("accepts a token it forged itself with the issuer's own key, so the refusals above are each for their one fault", async () => {
    const response = await get("/v1/jobs", { authorization: `Bearer ${await forged(first, claims(issuer))}` });
    expect(response.statusCode).toBe(200);
  });

  it("refuses a token in the query string with a 400 naming access_token, never using it", async () => {
    const token = await issuer.token("jobs:read");
    calls.length = 0;
    const response = await get(`/v1/jobs?access_token=${token}`);
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ instance: "/v1/jobs", errors: [{ parameter: "access_token" }] });
    // The answer does not echo the token (problem.ts's instance drops a query that carries one).
    expect(response.body).not.toContain(token);
    expect(calls).toEqual([]);
  });

  it("takes an API key for its entry's scopes, and refuses the key one byte off with the same 401", async () => {
    expect((await get("/v1/jobs", { "x-api-key": READER_KEY })).statusCode).toBe(200);
    const offByOne = `${READER_KEY.slice(0, -1)}${READER_KEY.endsWith("a") ? "b" : "a"}`;
    calls.length = 0;
    const refused = await get("/v1/jobs", { "x-api-key": offByOne });
    expect(refused.statusCode).toBe(401);
    expect(refused.headers["www-authenticate"]).toBe(CHALLENGE);
    expect(refused.json()).toMatchObject({ detail: UNAUTHENTICATED });
    expect(calls).toEqual([]);
    const write = await gateway.app.inject({ method: "DELETE", url: "/v1/jobs/refused-1", headers: { "x-api-key": READER_KEY } });
    expect(write.statusCode).toBe(403);
  });

  it("refuses a request that sends both a bearer token and an API key", async () => {
    const token = await issuer.token("jobs:read");
    const response = await get("/v1/jobs", { authorization: `Bearer ${token}`, "x-api-key": ADMIN_KEY });
    expect(response.statusCode).toBe(401);
  });

  it("keeps the probes and the document open, and asks metrics:read for /metrics on the API port", async () => {
    expect((await get("/healthz")).statusCode).toBe(200);
    expect((await get("/openapi.json")).statusCode).toBe(200);
    expect((await get("/docs")).statusCode).toBeLessThan(400);
    expect((await get("/metrics")).statusCode).toBe(401);
    expect((await get("/metrics", { "x-api-key": READER_KEY })).statusCode).toBe(403);
    expect((await get("/metrics", { "x-api-key": ADMIN_KEY })).statusCode).toBe(200);
  });

  it("follows the issuer's key rotation while it runs: a token of the new key is verified, and one of the old key still is", async () => {
    const old = await issuer.token("jobs:read");
    const second = await signingKey("key-2");
    await issuer.rotate([second, first]);
    const fresh = await issuer.token("jobs:read");
    expect(JSON.parse(Buffer.from(fresh.split(".")[0] ?? "", "base64url").toString()) as unknown).toMatchObject({ kid: "key-2" });
    // The keys may be fetched again at most once per cooldown: wait one out.
    await sleep(KEY_COOLDOWN_MS);
    expect((await get("/v1/jobs", { authorization: `Bearer ${fresh}` })).statusCode).toBe(200);
    expect((await get("/v1/jobs", { authorization: `Bearer ${old}` })).statusCode).toBe(200);
  });
});

describe("an issuer that cannot be reached", () => {
  it("answers 503 (not 401), counts it, asks the issuer again only after ISSUER_RETRY_AFTER_MS, then recovers", async () => {
    const key = await signingKey("down-1");
    const issuer = await startIssuer([key]);
    const token = await issuer.token("jobs:read");
    await issuer.stop();
    const asked = () => issuer.requests.slice(1).map((path) => path.split("?")[0]);
    const metrics = new GatewayMetrics();
    // The verifier's clock, stepped past the remembered failure instead of waiting it out.
    let stepMs = 0;
    const jwt = new JwtVerifier({ issuer: issuer.url, audience: AUDIENCE, clockSkewS: 30, now: () => Date.now() + stepMs });
    const gateway = await startTestGateway({ access: { jwt }, metrics });
    try {
      const down = await gateway.app.inject({ method: "GET", url: "/v1/jobs", headers: { authorization: `Bearer ${token}` } });
      expect(down.statusCode).toBe(503);
      expect(down.headers["retry-after"]).toBe("5");
      expect(down.headers["www-authenticate"]).toBeUndefined();
      expect(down.json()).toMatchObject({ code: "UNAVAILABLE", detail: "the token issuer's signing keys cannot be fetched; try again after the Retry-After delay" });
      expect(await metrics.registry.getSingleMetricAsString("gateway_auth_keys_unavailable_total")).toMatch(/gateway_auth_keys_unavailable_total 1\b/);
      await issuer.start();
      // Within the interval the failure is remembered: still a 503, and the issuer is not asked.
      const remembered = await gateway.app.inject({ method: "GET", url: "/v1/jobs", headers: { authorization: `Bearer ${token}` } });
      expect(remembered.statusCode).toBe(503);
      expect(asked()).toEqual([]);
      stepMs = ISSUER_RETRY_AFTER_MS;
      const back = await gateway.app.inject({ method: "GET", url: "/v1/jobs", headers: { authorization: `Bearer ${token}` } });
      expect(back.statusCode).toBe(200);
      expect(asked()).toEqual(["/.well-known/openid-configuration", "/jwks"]);
    } finally {
      await gateway.close();
      await issuer.close();
    }
  });
});

describe("a bearer value that is not a well-formed token: refused before the issuer is asked anything", () => {
  let issuer: Issuer;
  let key: SigningKey;
  let gateway: TestGateway;

  beforeAll(async () => {
    key = await signingKey("form-1");
    issuer = await startIssuer([key]);
    gateway = await startTestGateway({ access: { jwt: new JwtVerifier({ issuer: issuer.url, audience: AUDIENCE, clockSkewS: 30 }) } });
  });

  afterAll(async () => {
    await gateway.close();
    await issuer.close();
  });

  const header = (value: object) => base64url(value);
  const values: [string, () => string][] = [
    ["garbage", () => "garbage"],
    ["two parts", () => `${header({ alg: "RS256" })}.${base64url({})}`],
    ["four parts", () => `${header({ alg: "RS256" })}.${base64url({})}.c2ln.c2ln`],
    ["an empty signature", () => `${header({ alg: "RS256" })}.${base64url(claims(issuer))}.`],
    ["a part that is not base64url", () => `${header({ alg: "RS256" })}.${base64url(claims(issuer))}.c2ln+/=`],
    ["a header that is not JSON", () => `${Buffer.from("{alg:RS256").toString("base64url")}.${base64url({})}.c2ln`],
    ["a header that is a JSON array", () => `${header(["RS256"])}.${base64url({})}.c2ln`],
    ["alg none", () => `${header({ alg: "none" })}.${base64url(claims(issuer))}.c2ln`],
    ["alg HS256", () => `${header({ alg: "HS256", kid: key.kid })}.${base64url(claims(issuer))}.c2ln`],
    ["alg RS512 (asymmetric, but not accepted)", () => `${header({ alg: "RS512", kid: key.kid })}.${base64url(claims(issuer))}.c2ln`],
    ["no alg", () => `${header({ kid: key.kid })}.${base64url(claims(issuer))}.c2ln`],
    ["a crit extension", () => `${header({ alg: "RS256", kid: key.kid, crit: ["exp"], exp: 1 })}.${base64url(claims(issuer))}.c2ln`],
    ["a kid that is not a string", () => `${header({ alg: "RS256", kid: 7 })}.${base64url(claims(issuer))}.c2ln`],
    ["a typ of another kind of token", () => `${header({ alg: "RS256", kid: key.kid, typ: "logout+jwt" })}.${base64url(claims(issuer))}.c2ln`],
  ];

  it.each(values)("%s: refused (a 401), and the issuer has received no request", async (_name, make) => {
    // A verifier of its own, which has fetched nothing yet: any fetch of the keys would show.
    const verifier = new JwtVerifier({ issuer: issuer.url, audience: AUDIENCE, clockSkewS: 30 });
    const before = issuer.requests.length;
    await expect(verifier.verify(make())).rejects.toBeInstanceOf(TokenRefused);
    expect(issuer.requests.slice(before)).toEqual([]);
  });

  it("answers the probe's `Bearer garbage` with the same 401 as any refused credential", async () => {
    const response = await gateway.app.inject({ method: "GET", url: "/v1/jobs", headers: { authorization: "Bearer garbage" } });
    expect(response.statusCode).toBe(401);
    expect(response.headers["www-authenticate"]).toBe(CHALLENGE);
    expect(response.json()).toMatchObject({ code: "UNAUTHENTICATED", detail: "the request has no valid credentials; send a bearer token in the Authorization header" });
  });

  it("fetches the keys for a well-formed token, so the ones above were refused for their form alone", async () => {
    const before = issuer.requests.length;
    const response = await gateway.app.inject({ method: "GET", url: "/v1/jobs", headers: { authorization: `Bearer ${await forged(key, claims(issuer))}` } });
    expect(response.statusCode).toBe(200);
    expect(issuer.requests.length).toBeGreaterThan(before);
  });
});

describe("a token's typ (RFC 9068's at+jwt, and what issuers send instead)", () => {
  let issuer: Issuer;
  let key: SigningKey;
  let anyAccess: TestGateway;
  let strict: TestGateway;

  beforeAll(async () => {
    key = await signingKey("typ-1");
    issuer = await startIssuer([key]);
    anyAccess = await startTestGateway({ access: { jwt: new JwtVerifier({ issuer: issuer.url, audience: AUDIENCE, clockSkewS: 30 }) } });
    strict = await startTestGateway({ access: { jwt: new JwtVerifier({ issuer: issuer.url, audience: AUDIENCE, clockSkewS: 30, tokenType: "at+jwt" }) } });
  });

  afterAll(async () => {
    await anyAccess.close();
    await strict.close();
    await issuer.close();
  });

  /** A token of the issuer's key with `typ` in its header (none when undefined). */
  function typed(typ: string | undefined): Promise<string> {
    return new SignJWT(claims(issuer)).setProtectedHeader({ alg: "RS256", kid: key.kid, ...(typ === undefined ? {} : { typ }) }).sign(key.privateKey);
  }

  async function statusOf(gateway: TestGateway, typ: string | undefined): Promise<number> {
    return (await gateway.app.inject({ method: "GET", url: "/v1/jobs", headers: { authorization: `Bearer ${await typed(typ)}` } })).statusCode;
  }

  it.each([["at+jwt"], ["AT+JWT"], ["application/at+jwt"], ["JWT"], ["jwt"], ["application/jwt"], [undefined]])("takes typ %s by default", async (typ) => {
    expect(await statusOf(anyAccess, typ)).toBe(200);
  });

  it.each([["logout+jwt"], ["secevent+jwt"], ["dpop+jwt"], ["id_token+jwt"], ["JOSE"], ["JOSE+JSON"], ["application/jwt+at"], [""]])("refuses typ %s by default: another kind of token", async (typ) => {
    expect(await statusOf(anyAccess, typ)).toBe(401);
  });

  it("takes the token the provider issues (typ at+jwt) with --auth-token-type at+jwt, and refuses JWT and no typ", async () => {
    const issued = await issuer.token("jobs:read");
    expect(JSON.parse(Buffer.from(issued.split(".")[0] ?? "", "base64url").toString()) as unknown).toMatchObject({ typ: "at+jwt" });
    expect((await strict.app.inject({ method: "GET", url: "/v1/jobs", headers: { authorization: `Bearer ${issued}` } })).statusCode).toBe(200);
    expect(await statusOf(strict, "application/AT+JWT")).toBe(200);
    expect(await statusOf(strict, "JWT")).toBe(401);
    expect(await statusOf(strict, undefined)).toBe(401);
  });
});

describe("the 401's detail: the credentials accepted, by each configured way's header", () => {
  it.each([
    [{ bearer: true, apiKey: false, certificate: false }, "send a bearer token in the Authorization header"],
    [{ bearer: false, apiKey: true, certificate: false }, "send an API key in the X-API-Key header"],
    [{ bearer: false, apiKey: false, certificate: true }, "send a client certificate"],
    [{ bearer: true, apiKey: true, certificate: false }, "send a bearer token in the Authorization header or an API key in the X-API-Key header"],
    [{ bearer: false, apiKey: true, certificate: true }, "send an API key in the X-API-Key header or the client certificate alone"],
    [{ bearer: true, apiKey: true, certificate: true }, "send a bearer token in the Authorization header, an API key in the X-API-Key header or the client certificate alone"],
  ])("%o: %s", (accepted, send) => {
    expect(unauthenticatedDetail(accepted)).toBe(`the request has no valid credentials; ${send}`);
  });
});

describe("the declaration of each route's access", () => {
  it("stops an app whose route declares neither a scope nor that it is open, naming the route", async () => {
    const gateway = await startTestGateway({
      beforeListen: (app) => {
        app.get("/v1/undeclared", () => "");
        app.get("/v1/declared-open", { config: OPEN_ACCESS }, () => "");
      },
    });
    try {
      await expect(gateway.app.ready()).rejects.toThrow(/GET \/v1\/undeclared declares no access/);
    } finally {
      await gateway.close().catch(() => undefined);
    }
  });
});

/** `real`, with each unary call recorded in `calls` by its method's name. */
function counted(real: ManagerClient, calls: string[]): Partial<ManagerClient> {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(real)) {
    if (typeof method !== "function") continue;
    wrapped[name] = (...args: unknown[]): unknown => {
      calls.push(name);
      return (method as (...a: unknown[]) => unknown).apply(real, args);
    };
  }
  return wrapped;
}
