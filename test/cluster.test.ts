// --workers (src/cluster.ts), against the built command with its embedded Manager: two worker
// processes answer on the one port, each with its own channel to the Manager the primary runs;
// /metrics, whichever worker answers it, counts the requests of both; a serving worker that
// dies is replaced; SIGTERM drains every worker and the primary exits 0 with none left. A
// worker that fails to start (a busy port, a TLS file it cannot read; a replacement too) stops
// the command with that worker's exit code and message, as one process would stop.
import { spawn } from "node:child_process";
import { rmSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { createServer } from "node:net";
import type { Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeCertificates } from "./helpers/certificates.js";
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

interface Ended {
  readonly code: number | null;
  readonly stderr: string;
  readonly stdout: string;
}

/**
 * Runs the built command with `args` (its own data directory, removed after) until it exits by
 * itself; after `limitMs`, it is killed and the test fails, as a command that never stops would.
 */
async function runToExit(args: readonly string[], limitMs = 60_000): Promise<Ended> {
  const dataDir = await mkdtemp(join(tmpdir(), "gateway-workers-"));
  try {
    const child = spawn(process.execPath, ["dist/src/main.js", "--data-dir", dataDir, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    return await new Promise<Ended>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill("SIGKILL");
        reject(new Error(`still running after ${String(limitMs)} ms:\n${stdout}${stderr}`));
      }, limitMs);
      child.once("close", (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
    });
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

/** A port held by another listener on 127.0.0.1 while `use` runs. */
async function withBusyPort<T>(use: (port: number) => Promise<T>): Promise<T> {
  const holder: Server = createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const address = holder.address();
  try {
    return await use(typeof address === "object" && address !== null ? address.port : 0);
  } finally {
    holder.close();
  }
}

const FAILED_TO_START = /^norsk-manager-gateway: a worker failed to start \(exit code (\d+)\); stopping the other workers$/m;

describe("--workers 2 that cannot start", () => {
  it("stops on a busy port with the exit code one process has, the workers' message and one line of its own, restarting nothing", async () => {
    const [one, workers] = await withBusyPort(async (port) => {
      const args = ["--host", "127.0.0.1", "--port", String(port)];
      return [await runToExit(args), await runToExit([...args, "--workers", "2"])];
    });
    expect(one.code).toBe(1);
    expect(one.stderr).toContain("EADDRINUSE");
    expect(workers.code).toBe(one.code);
    expect(workers.stderr).toMatch(/^norsk-manager-gateway: .*EADDRINUSE.*$/m);
    expect(FAILED_TO_START.exec(workers.stderr)?.[1]).toBe("1");
    expect(workers.stderr.split("\n").filter((line) => FAILED_TO_START.test(line))).toHaveLength(1);
    expect(workers.stdout).not.toContain("a worker died; starting another");
    expect(workers.stdout).not.toContain("listening on");
  }, 120_000);

  it("stops with exit code 2 and the line one process prints for a --tls-cert that cannot be read", async () => {
    const args = ["--port", "0", "--tls-cert", "/nonexistent.pem", "--tls-key", "/nonexistent.pem"];
    const one = await runToExit(args);
    const workers = await runToExit([...args, "--workers", "2"]);
    const line = "norsk-manager-gateway: --tls-cert (TLS_CERT): cannot read /nonexistent.pem (ENOENT)";
    expect(one).toMatchObject({ code: 2, stderr: `${line}\n` });
    expect(workers.code).toBe(2);
    expect(workers.stderr.split("\n")).toContain(line);
    expect(FAILED_TO_START.exec(workers.stderr)?.[1]).toBe("2");
    expect(workers.stdout).not.toContain("a worker died; starting another");
  }, 120_000);

  it("stops when the replacement of a worker that died cannot start: its exit code, its line, no worker left", async () => {
    const certs = makeCertificates(["127.0.0.1"]);
    try {
      gateway = await startCommand(["--workers", "2", "--tls-cert", certs.server.cert, "--tls-key", certs.server.key]);
      const { lines } = gateway;
      await eventually(() => listeningPids(lines).size === 2, "both workers listening", 30_000);
      const workers = [...listeningPids(lines)];
      // The next start of a worker cannot read its certificate.
      rmSync(certs.server.cert);
      const exited = new Promise<number | null>((resolve) => gateway?.child.once("exit", (code) => { resolve(code); }));
      process.kill(workers[0] ?? 0, "SIGKILL");
      expect(await exited).toBe(2);
      expect(lines.some((line) => line.includes("a worker died; starting another"))).toBe(true);
      expect(lines.filter((line) => /^norsk-manager-gateway: --tls-cert \(TLS_CERT\): cannot read .*server\.pem \(ENOENT\)$/.test(line))).toHaveLength(1);
      expect(lines.filter((line) => FAILED_TO_START.test(line))).toEqual([
        "norsk-manager-gateway: a worker failed to start (exit code 2); stopping the other workers",
      ]);
      expect(workers.filter(isAlive)).toEqual([]);
    } finally {
      certs.remove();
    }
  }, 120_000);
});

describe("--workers 1 (the default)", () => {
  it("is one process: the gateway itself, no primary", async () => {
    gateway = await startCommand([]);
    expect(listeningPids(gateway.lines)).toEqual(new Set([gateway.child.pid]));
  }, 60_000);
});
