// The fourth probe's first row, through the built command in front of a real OpenID provider
// (test/helpers/oidc-issuer.ts) whose every answer is a 500 while the test says so, as an
// issuer whose discovery fails: a bearer value that is not a well-formed token (`garbage`) is a
// 401 without a request to the issuer; a well-formed token is a 503, and the issuer is asked at
// most once per ISSUER_RETRY_AFTER_MS however many requests need it; the outage is one warn
// line when it starts and one when it ends, with no stack and nothing at error.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ISSUER_RETRY_AFTER_MS } from "../../src/auth/issuer-fetch.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { AUDIENCE, signingKey, startIssuer } from "../helpers/oidc-issuer.js";
import type { Issuer } from "../helpers/oidc-issuer.js";

const REQUESTS = 30;
const DOWN = "the issuer's signing keys cannot be fetched; bearer tokens are answered 503";
const UP = "the issuer's signing keys can be fetched again";

type Line = Record<string, unknown>;

let issuer: Issuer;
let gateway: StartedCommand;
let token: string;

beforeAll(async () => {
  issuer = await startIssuer([await signingKey("outage-1")]);
  token = await issuer.token("jobs:read");
  issuer.failWith(500);
  // Its 30 refused requests are the reproduction, not guessing to be cut short (--auth-refusal-limit).
  gateway = await startCommand(["--auth-issuer", issuer.url, "--auth-audience", AUDIENCE, "--log-level", "info", "--auth-refusal-limit", "off"]);
}, 30_000);

afterAll(async () => {
  await gateway.stop();
  await issuer.close();
});

/** `count` reads of /v1/jobs one after another with `authorization`; their statuses. */
async function reads(count: number, authorization: string): Promise<number[]> {
  const statuses: number[] = [];
  for (let sent = 0; sent < count; sent += 1) {
    const response = await fetch(`${gateway.url}/v1/jobs`, { headers: { authorization } });
    await response.arrayBuffer();
    statuses.push(response.status);
  }
  return statuses;
}

function logLines(): Line[] {
  return gateway.lines.filter((line) => line.startsWith("{")).map((line) => JSON.parse(line) as Line);
}

describe("an issuer whose discovery fails (every answer a 500)", () => {
  it("answers 30 requests with `Bearer garbage` with 401s and asks the issuer nothing", async () => {
    const before = issuer.requests.length;
    expect(await reads(REQUESTS, "Bearer garbage")).toEqual(Array.from({ length: REQUESTS }, () => 401));
    expect(issuer.requests.length).toBe(before);
  });

  it("answers 30 requests with a well-formed token with 503s, asking the issuer once per interval, not once per request", async () => {
    const before = issuer.requests.length;
    const started = performance.now();
    expect(await reads(REQUESTS, `Bearer ${token}`)).toEqual(Array.from({ length: REQUESTS }, () => 503));
    const elapsedMs = performance.now() - started;
    const asked = issuer.requests.length - before;
    // One fetch at the first request, and one more per interval the requests took, however slow the machine.
    expect(asked).toBeGreaterThanOrEqual(1);
    expect(asked).toBeLessThanOrEqual(1 + Math.floor(elapsedMs / ISSUER_RETRY_AFTER_MS));
    expect(asked).toBeLessThan(REQUESTS);
  });

  it("verifies the token again once the issuer answers, and logs the outage as one warn line each way, without a stack or an error line", async () => {
    issuer.failWith(undefined);
    await expect.poll(async () => (await reads(1, `Bearer ${token}`))[0], { timeout: 4 * ISSUER_RETRY_AFTER_MS, interval: 250 }).toBe(200);
    // The last lines are written within the log's batching delay; a read more lets them out.
    await expect.poll(() => logLines().filter((line) => line.msg === UP).length, { timeout: 5_000 }).toBe(1);
    const lines = logLines();
    expect(lines.filter((line) => line.msg === DOWN)).toEqual([expect.objectContaining({ level: 40 })]);
    expect(lines.filter((line) => line.msg === UP)).toEqual([expect.objectContaining({ level: 40 })]);
    expect(lines.filter((line) => typeof line.level === "number" && line.level >= 50)).toEqual([]);
    expect(lines.filter((line) => JSON.stringify(line).includes("\"stack\""))).toEqual([]);
  });
});
