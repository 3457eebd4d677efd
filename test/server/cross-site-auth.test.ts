// Who is asking, then what is refused (docs/architecture.md, "Who is asking, then what is
// refused"), through the built command with API keys and an audit log: a change with valid
// credentials and a non-JSON Content-Type, a foreign Origin or a foreign Host is refused
// (415, 403, 421) and audited with its principal; without valid credentials the same change is
// a 401 audited as a refusal, not as a change, except for the foreign Host, whose 421 is the
// same whatever the credentials; nothing is created in any case.
import { request as httpRequest } from "node:http";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AuditLine } from "../../src/telemetry/audit-log.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";

const WRITER_KEY = "k-writer-3c81f0a9d25e47b6";
const WRITER = { id: "writer", kind: "api-key" };
const JOB = JSON.stringify({ jobId: "never-made", startDateTime: "2026-01-01T00:00:00Z" });
const UNAUTHENTICATED = "the request has no valid credentials; send an API key in the X-API-Key header";

let keys: ApiKeysFile;
let auditFile: string;
let gateway: StartedCommand;

beforeAll(async () => {
  keys = await apiKeysFile([{ name: "writer", key: WRITER_KEY, scopes: ["jobs:read", "jobs:write"] }]);
  auditFile = join(keys.dir, "audit.log");
  gateway = await startCommand(["--api-keys", keys.file, "--audit-log", auditFile]);
});

afterAll(async () => {
  await gateway.stop();
  await keys.remove();
});

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
  /** The audit lines of this request (by its request id), read once the answer arrived. */
  readonly audited: AuditLine[];
}

let requests = 0;

/** POST /v1/jobs with `headers` (Host included: node's client sends what it is given). */
function post(headers: Record<string, string>): Promise<Answer> {
  requests += 1;
  const id = `order-${String(requests)}`;
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${gateway.url}/v1/jobs`, { method: "POST", headers: { "content-type": "application/json", "x-request-id": id, ...headers } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => {
        void readFile(auditFile, "utf8").then((text) => {
          const audited = text.trimEnd().split("\n").filter((line) => line !== "").map((line) => JSON.parse(line) as AuditLine).filter((line) => line.requestId === id);
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString("utf8")) as Record<string, unknown>, audited });
        }, reject);
      });
    });
    req.on("error", reject);
    req.end(JOB);
  });
}

const withKey = { "x-api-key": WRITER_KEY };
const wrongKey = { "x-api-key": `${WRITER_KEY.slice(0, -1)}0` };
const textPlain = { "content-type": "text/plain" };
const evilOrigin = { origin: "http://evil.example" };
const evilHost = { host: "evil.example" };

describe("a change refused by the guards, with and without valid credentials", () => {
  it("refuses valid credentials with a text/plain body 415, audited as a change with the principal", async () => {
    const answer = await post({ ...withKey, ...textPlain });
    expect(answer.status).toBe(415);
    expect(answer.audited).toEqual([expect.objectContaining({ event: "change", principal: WRITER, status: 415, operation: "createJob" })]);
  });

  it("refuses no credentials with a text/plain body 401 (not 415), audited as a refusal, not a change", async () => {
    const answer = await post(textPlain);
    expect(answer.status).toBe(401);
    expect(answer.body).toMatchObject({ code: "UNAUTHENTICATED", detail: UNAUTHENTICATED });
    expect(answer.audited).toEqual([expect.objectContaining({ event: "refusal", principal: null, status: 401 })]);
  });

  it("refuses valid credentials from a page of another origin 403, audited with the principal", async () => {
    const answer = await post({ ...withKey, ...evilOrigin });
    expect(answer.status).toBe(403);
    expect(answer.body).toMatchObject({ detail: "a page of another origin may not change anything here", errors: [{ header: "origin" }] });
    expect(answer.audited).toEqual([expect.objectContaining({ event: "refusal", principal: WRITER, status: 403 })]);
  });

  it("refuses no credentials from a page of another origin 401, audited as a refusal without a principal", async () => {
    const answer = await post(evilOrigin);
    expect(answer.status).toBe(401);
    expect(answer.audited).toEqual([expect.objectContaining({ event: "refusal", principal: null, status: 401 })]);
  });

  it("refuses valid credentials addressed to a foreign Host 421, audited with the principal", async () => {
    const answer = await post({ ...withKey, ...evilHost });
    expect(answer.status).toBe(421);
    expect(answer.audited).toEqual([expect.objectContaining({ event: "change", principal: WRITER, status: 421 })]);
  });

  it("answers a foreign Host 421 whatever the credentials: none and a wrong key get the same problem as the right key", async () => {
    const answers = await Promise.all([post(evilHost), post({ ...wrongKey, ...evilHost }), post({ ...withKey, ...evilHost })]);
    expect(answers.map((answer) => answer.status)).toEqual([421, 421, 421]);
    const [none, wrong, right] = answers.map(({ body: { requestId: _id, ...rest } }) => rest);
    expect(wrong).toEqual(none);
    expect(right).toEqual(none);
    expect(answers.map((answer) => answer.audited.map((line) => line.principal))).toEqual([[null], [null], [WRITER]]);
  });

  it("created nothing in any of these", async () => {
    const response = await fetch(`${gateway.url}/v1/jobs/never-made`, { headers: withKey });
    expect(response.status).toBe(404);
  });
});
