// --workers (src/cluster.ts), against the built command with its embedded Manager: two worker
// processes answer on the one port, each with its own channel to the Manager the primary runs;
// /metrics, whichever worker answers it, counts the requests of both; a worker that dies is
// replaced; SIGTERM drains every worker and the primary exits 0 with none left.
import { request } from "node:http";
import { afterEach, describe, expect, it } from "vitest";
import { startCommand } from "./helpers/command.js";
import type { StartedCommand } from "./helpers/command.js";
import { eventually } from "./helpers/listening-gateway.js";
import { parseExposition, valueOf } from "./telemetry/prometheus-text.js";

let gateway: StartedCommand | undefined;

afterEach(async () => {
  await gateway?.stop();
  gateway = undefined;
});

/** GET `path` on a connection of its own (so that the primary may hand it to either worker). */
function get(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    request(`${url}${path}`, { agent: false, headers: { connection: "close" }, timeout: 10_000 }, (response) => {
      let body = "";
      response.setEncoding("utf8");
      response.on("data", (chunk: string) => (body += chunk));
      response.on("end", () => { resolve({ status: response.statusCode ?? 0, body }); });
    })
      .on("error", reject)
      .on("timeout", () => { reject(new Error(`no answer to ${path} in 10 s`)); })
      .end();
  });
}

function listeningPids(lines: readonly string[]): Set<number> {
  return new Set(lines.filter((line) => line.includes("listening on")).map((line) => (JSON.parse(line) as { pid: number }).pid));
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("--workers 2", () => {
  it("answers on one port from two worker processes, each with its own channel, and /metrics counts both", async () => {
    gateway = await startCommand(["--workers", "2"]);
    const { url, lines } = gateway;
    await eventually(() => listeningPids(lines).size === 2, "both workers listening", 30_000);
    const workers = listeningPids(lines);
    expect(workers.has(gateway.child.pid ?? 0)).toBe(false);

    const REQUESTS = 20;
    for (let i = 0; i < REQUESTS; i += 1) expect((await get(url, `/v1/jobs/none-${String(i)}`)).status).toBe(404);
    // The access log names the process that answered each request: both did.
    await eventually(() => lines.filter((line) => line.includes('"route":"/v1/jobs/:jobId"')).length === REQUESTS, "every access line");
    const answeredBy = new Set(lines.filter((line) => line.includes('"route":"/v1/jobs/:jobId"')).map((line) => (JSON.parse(line) as { pid: number }).pid));
    expect(answeredBy).toEqual(workers);

    const samples = parseExposition((await get(url, "/metrics")).body);
    expect(valueOf(samples, "http_requests_total", { method: "GET", route: "/v1/jobs/:jobId", status: "404" })).toBe(REQUESTS);
    // Each worker's channel to the Manager, counted once each.
    expect(valueOf(samples, "grpc_channel_state", { channel: "unary", state: "READY" })).toBe(2);
    expect(valueOf(samples, "gateway_manager_ready")).toBe(1);
    // Each worker checked the Manager once at start-up, over its own channel.
    expect(valueOf(samples, "grpc_client_calls_total", { method: "Check", code: "OK" })).toBe(2);
  }, 90_000);

  it("replaces a worker that dies, and keeps answering meanwhile", async () => {
    gateway = await startCommand(["--workers", "2"]);
    const { url, lines } = gateway;
    await eventually(() => listeningPids(lines).size === 2, "both workers listening", 30_000);
    const [victim] = [...listeningPids(lines)];
    process.kill(victim ?? 0, "SIGKILL");
    // Once the primary knows (a connection it handed over before is lost with the worker, as
    // with any crash), the other worker answers everything while the new one starts.
    await eventually(() => lines.some((line) => line.includes("a worker died; starting another")), "the primary to see the death");
    for (let i = 0; i < 4; i += 1) expect((await get(url, "/healthz")).status).toBe(200);
    await eventually(() => listeningPids(lines).size === 3, "a new worker listening", 30_000);
    for (let i = 0; i < 6; i += 1) expect((await get(url, "/healthz")).status).toBe(200);
  }, 90_000);

  it("drains every worker on SIGTERM and exits 0 with none left", async () => {
    gateway = await startCommand(["--workers", "2"]);
    const { lines } = gateway;
    await eventually(() => listeningPids(lines).size === 2, "both workers listening", 30_000);
    const workers = [...listeningPids(lines)];
    const code = await gateway.stop();
    gateway = undefined;
    expect(code).toBe(0);
    expect(workers.filter(isAlive)).toEqual([]);
    expect(lines.filter((line) => line.includes('"msg":"shutting down"'))).toHaveLength(2);
  }, 90_000);
});

describe("--workers 1 (the default)", () => {
  it("is one process: the gateway itself, no primary", async () => {
    gateway = await startCommand([]);
    expect(listeningPids(gateway.lines)).toEqual(new Set([gateway.child.pid]));
  }, 60_000);
});
