// buildApp takes the command's settings with the command's defaults (src/config.ts): an app
// built with no settings runs as `npm start` does, and a value the command refuses is refused
// here too, in the command's words.
import { afterEach, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import { APP_SETTINGS, buildApp } from "../src/app.js";
import { ConfigError, ConfigSchema } from "../src/config.js";

let connection: ManagerConnection | undefined;
let app: FastifyInstance | undefined;

afterEach(async () => {
  await app?.close();
  connection?.close();
  app = undefined;
  connection = undefined;
});

/** An app on a channel that is never dialled (no call is made), logging into `lines`. */
async function appWith(settings: Record<string, unknown>, lines: Record<string, unknown>[] = []): Promise<FastifyInstance> {
  connection = connectManager("127.0.0.1:1", { defaultTimeoutMs: 1_000 });
  const stream = { write: (line: string) => lines.push(JSON.parse(line) as Record<string, unknown>) };
  app = await buildApp({ ...settings, connection, logger: { level: "info", stream } });
  return app;
}

describe("buildApp's defaults are the command's", () => {
  it("reads every setting it takes from the configuration schema", () => {
    for (const key of APP_SETTINGS) expect(Object.keys(ConfigSchema.properties)).toContain(key);
  });

  it("logs one access line per request, as --access-log's default (on) does", async () => {
    const lines: Record<string, unknown>[] = [];
    const built = await appWith({}, lines);
    await built.inject({ method: "GET", url: "/openapi.json", headers: { "x-request-id": "default-log" } });
    expect(lines.filter((line) => line.requestId === "default-log" && line.msg === "request")).toHaveLength(1);
  });

  it("logs none with accessLog off", async () => {
    const lines: Record<string, unknown>[] = [];
    const built = await appWith({ accessLog: "off" }, lines);
    await built.inject({ method: "GET", url: "/openapi.json", headers: { "x-request-id": "quiet" } });
    expect(lines.filter((line) => line.requestId === "quiet")).toEqual([]);
  });

  it("sheds load past the event-loop delay, as --shed-event-loop-delay's default does", async () => {
    const built = await appWith({});
    expect(built.hasDecorator("isUnderPressure")).toBe(true);
    const unused = connectManager("127.0.0.1:1", { defaultTimeoutMs: 1_000 });
    const off = await buildApp({ connection: unused, shedEventLoopDelayMs: 0 });
    expect(off.hasDecorator("isUnderPressure")).toBe(false);
    await off.close();
    unused.close();
  });

  it("answers a Host that is not a loopback name with 421, as the command on 127.0.0.1 does", async () => {
    const built = await appWith({});
    expect((await built.inject({ method: "GET", url: "/openapi.json", headers: { host: "gateway.example.com" } })).statusCode).toBe(421);
    expect((await built.inject({ method: "GET", url: "/openapi.json", headers: { host: "localhost:8080" } })).statusCode).toBe(200);
  });

  it("takes the allowed Host names from host, as the command does: any, on 0.0.0.0", async () => {
    const built = await appWith({ host: "0.0.0.0" });
    expect((await built.inject({ method: "GET", url: "/openapi.json", headers: { host: "gateway.example.com" } })).statusCode).toBe(200);
  });
});

describe("buildApp refuses what the command refuses", () => {
  it.each([
    [{ requestTimeoutMs: 400_000 }, /^--request-timeout \(REQUEST_TIMEOUT_MS\): must not exceed --max-request-timeout \(MAX_REQUEST_TIMEOUT_MS\)/],
    [{ headerTimeoutMs: 0 }, /^--header-timeout \(HEADER_TIMEOUT_MS\): /],
    [{ accessLog: "loud" }, /^--access-log \(ACCESS_LOG\): /],
    [{ rateLimit: "often" }, /^--rate-limit \(RATE_LIMIT\): /],
    [{ corsOrigins: ["*"], corsCredentials: true }, /^--cors-credentials \(CORS_CREDENTIALS\): needs --cors-origin/],
  ])("%j, naming the setting", async (settings, message) => {
    const refused = appWith(settings);
    await expect(refused).rejects.toThrow(ConfigError);
    await expect(refused).rejects.toThrow(message);
  });
});
