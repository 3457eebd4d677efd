// No credential of a query string reaches the log, at any level: the built command at
// --log-level debug and trace (where fastify writes its own line of each request, its URL
// included), with tokens and keys in the query of a refused request, an accepted one, an
// unrouted one and one whose parameter name is percent-encoded. Not one line holds a secret;
// fastify's request lines carry the URL with each credential's value redacted.
import { Writable } from "node:stream";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { REDACTED } from "../../src/http/credential-query.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { startTestGateway } from "../helpers/gateway.js";

let gateway: StartedCommand | undefined;

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});

type Line = Record<string, unknown>;

/** Each target, and the status it is answered with by a gateway without authentication. */
const TARGETS: readonly [string, number][] = [
  ["/v1/jobs?access_token=SECRET-ONE&limit=1", 400],
  ["/v1/jobs?limit=1&API_KEY=SECRET-TWO", 400],
  ["/no-such-route?token=SECRET-THREE", 404],
  ["/v1/jobs?x=1&access%5Ftoken=SECRET-FOUR", 400],
  ["/healthz?password=SECRET-FIVE", 200],
];

describe.each([["debug"], ["trace"]])("the log at --log-level %s", (level) => {
  it("holds no credential of a query string, and writes each request's URL with the credentials' values redacted", async () => {
    const started = await startCommand(["--log-level", level]);
    gateway = started;
    for (const [target, status] of TARGETS) {
      const response = await fetch(`${started.url}${target}`);
      expect(response.status).toBe(status);
      expect(await response.text()).not.toContain("SECRET");
    }
    gateway = undefined;
    expect(await started.stop()).toBe(0);
    expect(started.lines.filter((line) => line.includes("SECRET"))).toEqual([]);
    const incoming = started.lines
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Line)
      .filter((line) => line.msg === "incoming request")
      .map((line) => (line.req as Line).url);
    expect(incoming).toEqual([
      `/v1/jobs?access_token=${REDACTED}&limit=1`,
      `/v1/jobs?limit=1&API_KEY=${REDACTED}`,
      `/no-such-route?token=${REDACTED}`,
      `/v1/jobs?x=1&access%5Ftoken=${REDACTED}`,
      `/healthz?password=${REDACTED}`,
    ]);
  });
});

describe("an app given a logger instance of its own", () => {
  it("redacts the URL of fastify's request lines too", async () => {
    const lines: string[] = [];
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => { lines.push(chunk.toString("utf8")); done(); } });
    const app = await startTestGateway({ logger: pino({ level: "debug" }, sink) });
    try {
      expect((await app.app.inject({ method: "GET", url: "/v1/jobs?limit=1&token=SECRET-SIX" })).statusCode).toBe(400);
    } finally {
      await app.close();
    }
    expect(lines.filter((line) => line.includes("SECRET"))).toEqual([]);
    expect(lines.map((line) => JSON.parse(line) as Line).filter((line) => line.msg === "incoming request").map((line) => (line.req as Line).url)).toEqual([`/v1/jobs?limit=1&token=${REDACTED}`]);
  });
});
