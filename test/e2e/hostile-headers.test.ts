// The built command against headers gRPC metadata cannot carry: each request is a 400 problem
// naming the header, on the REST routes and on the event streams, and the process (with its
// embedded Manager) is still up and serving once every timer those requests could have armed
// has run out.
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";

/** The request timeout of the command under test: the start timer of a stream runs this long. */
const REQUEST_TIMEOUT_MS = 1_000;

let gateway: StartedCommand;

beforeAll(async () => {
  gateway = await startCommand(["--request-timeout", String(REQUEST_TIMEOUT_MS)]);
});
afterAll(async () => {
  await gateway.stop();
});

interface Answer {
  readonly status: number;
  readonly type: string;
  readonly body: unknown;
}

/** GET with headers as given, bytes above 0x7f included (node's client sends them as latin1). */
function get(path: string, headers: Record<string, string>): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(`${gateway.url}${path}`, { headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (text += chunk));
      res.on("end", () => {
        resolve({ status: res.statusCode ?? 0, type: res.headers["content-type"] ?? "", body: JSON.parse(text) as unknown });
      });
    });
    req.on("error", reject);
    req.end();
  });
}

const HOSTILE = [
  { header: "grpc-metadata-a!b", value: "x" },
  { header: "authorization", value: "Bearer caf\u00e9" },
  { header: "authorization", value: "Bearer a\tb" },
  // UTF-8 "café": its bytes C3 A9 go out as they are.
  { header: "grpc-metadata-foo", value: "caf\u00c3\u00a9" },
] as const;

const PATHS = ["/v1/events", "/v1/status", "/v1/jobs/x"] as const;

describe("headers gRPC metadata cannot carry, against the running command", () => {
  it("answers each with a 400 naming the header, with and without a Grpc-Timeout, and stays up", async () => {
    for (const path of PATHS) {
      for (const { header, value } of HOSTILE) {
        for (const timeout of [{}, { "grpc-timeout": "100m" }] as Record<string, string>[]) {
          const answer = await get(path, { [header]: value, "x-request-id": "probe-1", ...timeout });
          expect(answer, `${path} ${header}`).toEqual({
            status: 400,
            type: "application/problem+json; charset=utf-8",
            body: {
              type: "about:blank",
              title: "Bad Request",
              status: 400,
              detail: "the request headers are invalid",
              instance: path,
              requestId: "probe-1",
              code: "INVALID_ARGUMENT",
              errors: [{ header, message: expect.any(String) as unknown }],
            },
          });
        }
      }
    }
    // Every start timer those requests could have armed has fired by now.
    await new Promise((resolve) => setTimeout(resolve, REQUEST_TIMEOUT_MS + 500));
    expect(gateway.child.exitCode).toBeNull();
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    // And the embedded Manager answers.
    expect((await fetch(`${gateway.url}/v1/jobs/none`)).status).toBe(404);
  });
});
