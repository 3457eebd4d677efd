// npm run bench:events: many concurrent SSE clients of GET /v1/events on one gateway while jobs
// are updated through the gateway at a steady rate. Checks that every client receives every
// event, in order (ids 1, 2, 3, ... with no gap), and reports the gateway's resident memory
// (VmRSS, from /proc) before the clients, with them connected and idle, and under load: the
// per-client figure is (idle with clients - before) / clients. The Manager and the gateway run
// as child processes (built dist/); everything is on loopback, bounded in count and time.
// BENCH_NODE_ARGS gives the gateway's node flags, e.g. "--cpu-prof --cpu-prof-dir /tmp/prof".
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { cpuSeconds, rssKiB, startGatewayProcess, startManagerProcess } from "./processes.js";
import { percentile } from "./stats.js";

const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 100); // job updates per second
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const JOBS = Number(process.env.BENCH_JOBS ?? 100); // updated round robin
const DRAIN_TIMEOUT_S = Number(process.env.BENCH_DRAIN_TIMEOUT_S ?? 300);

const KIB = 1024;

/** Resident memory of a process, in KiB (Linux). */

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One SSE client: counts jobUpdated events after initialDataComplete and checks the ids. */
class Client {
  ready = false;
  updates = 0;
  lastId = 0;
  gaps = 0;
  failed: string | undefined;
  #buffer = "";
  #destroy: (() => void) | undefined;

  constructor(url: string) {
    const req = request(`${url}/v1/events`, { agent: false, headers: { accept: "text/event-stream" } }, (res) => {
      if (res.statusCode !== 200) this.failed = `status ${String(res.statusCode)}`;
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        this.#read(chunk);
      });
      res.on("end", () => {
        this.failed ??= "the stream ended";
      });
    });
    req.on("error", (error) => {
      this.failed ??= error.message;
    });
    req.end();
    this.#destroy = () => req.destroy();
  }

  #read(chunk: string): void {
    this.#buffer += chunk;
    let end: number;
    while ((end = this.#buffer.indexOf("\n\n")) !== -1) {
      const frame = this.#buffer.slice(0, end);
      this.#buffer = this.#buffer.slice(end + 2);
      if (frame.startsWith("event: error")) this.failed = frame;
      if (!frame.startsWith("id: ")) continue; // a heartbeat, or that error
      const newline = frame.indexOf("\n");
      const id = Number(frame.slice(4, newline));
      if (id !== this.lastId + 1) this.gaps++;
      this.lastId = id;
      const event = frame.slice(newline + 8, frame.indexOf("\n", newline + 1));
      if (event === "initialDataComplete") this.ready = true;
      else if (event === "jobUpdated") this.updates++;
    }
  }

  close(): void {
    this.#destroy?.();
  }
}

async function put(url: string, i: number, version: number): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${url}/v1/jobs/bench-${i}`, {
    method: "PUT",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jobId: `bench-${i}`, startDateTime: "2026-12-24T18:00:00Z", description: `update ${version}`, tags: { env: "bench" } }),
  });
  await res.arrayBuffer();
  if (res.status !== 200) throw new Error(`PUT bench-${i}: ${res.status}`);
  return performance.now() - started;
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-events-"));
  const manager = await startManagerProcess(dataDir);
  const gateway = await startGatewayProcess(manager.address, [], (process.env.BENCH_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== ""));
  const url = gateway.address;
  const clients: Client[] = [];
  try {
    for (let i = 0; i < JOBS; i++) {
      const res = await fetch(`${url}/v1/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jobId: `bench-${i}`, startDateTime: "2026-12-24T18:00:00Z", tags: { env: "bench" } }),
      });
      if (res.status !== 201) throw new Error(`create: ${res.status}`);
    }
    // Warm the stream path (JIT), then let the gateway settle before the baseline.
    const warm = Array.from({ length: 20 }, () => new Client(url));
    while (!warm.every((c) => c.ready)) await sleep(20);
    for (const c of warm) c.close();
    await sleep(2_000);
    const before = rssKiB(gateway.pid);

    const connectStarted = performance.now();
    for (let i = 0; i < CLIENTS; i++) {
      clients.push(new Client(url));
      if (i % 50 === 49) await sleep(10); // in batches, within the listen backlog
    }
    while (!clients.every((c) => c.ready || c.failed !== undefined)) await sleep(20);
    const connectMs = performance.now() - connectStarted;
    await sleep(3_000);
    const idle = rssKiB(gateway.pid);

    // The load: RATE updates per second for SECONDS, paced by the clock.
    const latencies: number[] = [];
    const pending: Promise<void>[] = [];
    let issued = 0;
    let peak = idle;
    const total = RATE * SECONDS;
    const cpu0 = { gateway: cpuSeconds(gateway.pid), manager: cpuSeconds(manager.pid), bench: process.cpuUsage() };
    const started = performance.now();
    while (issued < total) {
      const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * RATE));
      for (; issued < due; issued++) {
        const n = issued;
        pending.push(put(url, n % JOBS, n).then((ms) => void latencies.push(ms)));
      }
      peak = Math.max(peak, rssKiB(gateway.pid));
      await sleep(10);
    }
    await Promise.all(pending);
    const loadMs = performance.now() - started;
    const drainUntil = performance.now() + DRAIN_TIMEOUT_S * 1000;
    while (clients.some((c) => c.updates < total && c.failed === undefined) && performance.now() < drainUntil) {
      peak = Math.max(peak, rssKiB(gateway.pid));
      await sleep(50);
    }
    const drainMs = performance.now() - started - loadMs;
    const after = rssKiB(gateway.pid);
    const benchCpu = process.cpuUsage(cpu0.bench);
    const cpu = {
      gateway: cpuSeconds(gateway.pid) - cpu0.gateway,
      manager: cpuSeconds(manager.pid) - cpu0.manager,
      bench: (benchCpu.user + benchCpu.system) / 1e6,
    };

    const complete = clients.filter((c) => c.updates === total && c.gaps === 0 && c.failed === undefined).length;
    const counts = clients.map((c) => c.updates).sort((a, b) => a - b);
    const sorted = latencies.sort((a, b) => a - b);
    const mib = (kib: number) => `${(kib / KIB).toFixed(1)} MiB`;
    console.log(`\n${CLIENTS} SSE clients of GET /v1/events; ${RATE} job updates/s for ${SECONDS} s (${total} updates, ${JOBS} jobs); node ${process.version}\n`);
    console.log(`clients connected (initialDataComplete) in  ${(connectMs / 1000).toFixed(2)} s; failed: ${clients.filter((c) => c.failed !== undefined).length}`);
    console.log(`updates sent in                             ${(loadMs / 1000).toFixed(2)} s (${((total / loadMs) * 1000).toFixed(0)}/s); PUT p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms`);
    console.log(`last client had every event after the load  ${(drainMs / 1000).toFixed(2)} s`);
    console.log(`clients with every event, in order          ${complete} of ${CLIENTS} (events per client: min ${counts[0] ?? 0}, max ${counts.at(-1) ?? 0}, expected ${total})`);
    console.log(`events delivered                            ${counts.reduce((a, b) => a + b, 0)} (${((counts.reduce((a, b) => a + b, 0) / (loadMs + drainMs)) * 1000).toFixed(0)}/s)`);
    const wall = (loadMs + drainMs) / 1000;
    console.log(`CPU during load and drain (${wall.toFixed(1)} s)         gateway ${cpu.gateway.toFixed(1)} s, Manager ${cpu.manager.toFixed(1)} s, clients ${cpu.bench.toFixed(1)} s`);
    console.log(`gateway RSS before the clients              ${mib(before)}`);
    console.log(`gateway RSS with ${CLIENTS} idle clients          ${mib(idle)}`);
    console.log(`  per idle client                           ${((idle - before) / CLIENTS).toFixed(1)} KiB (target < 100 KiB)`);
    console.log(`gateway RSS peak under load                 ${mib(peak)}; after ${mib(after)}`);
    if (complete !== CLIENTS) process.exitCode = 1;
  } finally {
    for (const c of clients) c.close();
    await gateway.stop();
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
