// npm run bench:telemetry: what the access log and tracing cost. The same GET /v1/jobs/{id}
// load (autocannon) against gateways that differ only in their telemetry settings, each in
// front of the same reference Manager, in rounds that take the settings in turn so that the
// machine's drift falls on all of them alike. The baseline is the gateway with the access log
// off and no --otlp-endpoint (tracing off: no OpenTelemetry code is loaded). With
// BASELINE_ENTRY=<path to another build's main.js> (e.g. main's, before this work) that build
// is measured as well, with its own defaults. Tracing on exports to a loopback OTLP/HTTP sink
// that accepts and discards.
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import autocannon from "autocannon";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { jobFromJson } from "../src/json/index.js";
import { startChild, startManagerProcess } from "./processes.js";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const JOBS = 64;

async function requestsPerSecond(url: string): Promise<number> {
  let i = 0;
  const result = await autocannon({
    url,
    connections: CONCURRENCY,
    duration: SECONDS,
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: `/v1/jobs/bench-${String(i++ % JOBS)}` }) }],
  });
  if (result.errors + result.non2xx > 0) console.error(`${url}: ${String(result.errors + result.non2xx)} failures`);
  return result.requests.total / result.duration;
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const sink = createServer((request, response) => {
    request.resume();
    request.on("end", () => response.writeHead(200, { "content-type": "application/json" }).end("{}"));
  });
  await new Promise<void>((resolve) => sink.listen(0, "127.0.0.1", resolve));
  const sinkUrl = `http://127.0.0.1:${String((sink.address() as AddressInfo).port)}`;
  const dataDir = await mkdtemp(join(tmpdir(), "bench-telemetry-"));
  const manager = await startManagerProcess(dataDir);
  const direct = connectManager(manager.address, { defaultTimeoutMs: 10_000 });
  for (let i = 0; i < JOBS; i++) {
    await direct.manager.createJob(jobFromJson({ jobId: `bench-${String(i)}`, startDateTime: "2026-12-24T18:00:00Z", tags: { env: "bench" } }));
  }
  const settings: Record<string, readonly string[]> = {
    "baseline: access log off, tracing off": ["dist/src/main.js", "--access-log", "off"],
    "access log on (the default), tracing off": ["dist/src/main.js"],
    "access log off, tracing on (OTLP)": ["dist/src/main.js", "--access-log", "off", "--otlp-endpoint", sinkUrl],
    ...(process.env.BASELINE_ENTRY === undefined ? {} : { "other build (BASELINE_ENTRY)": [process.env.BASELINE_ENTRY] }),
  };
  const rates = new Map<string, number[]>(Object.keys(settings).map((name) => [name, []]));
  try {
    for (let round = 0; round <= ROUNDS; round++) {
      for (const [name, argv] of Object.entries(settings)) {
        const gateway = await startChild([...argv, "--port", "0", "--manager", manager.address, "--log-level", "info"], /listening on (http:\/\/[^\s]+)/);
        try {
          const rps = await requestsPerSecond(gateway.address);
          // Round 0 warms the Manager and the machine; it is not counted.
          if (round > 0) rates.get(name)?.push(rps);
        } finally {
          await gateway.stop();
        }
      }
    }
  } finally {
    direct.close();
    await manager.stop();
    sink.close();
    await rm(dataDir, { recursive: true, force: true });
  }
  const baseline = median(rates.get("baseline: access log off, tracing off") ?? []);
  console.log(`\nGET /v1/jobs/{id}, concurrency ${String(CONCURRENCY)}, ${String(SECONDS)} s x ${String(ROUNDS)} rounds (median); node ${process.version}\n`);
  for (const [name, values] of rates) {
    const rps = median(values);
    console.log(`${name.padEnd(44)} ${rps.toFixed(0).padStart(7)} req/s  ratio ${(rps / baseline).toFixed(3)}  rounds ${values.map((v) => v.toFixed(0)).join(" ")}`);
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

await main();
