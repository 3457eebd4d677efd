// npm run bench:overload: what the gateway answers when offered more than it can serve, with
// load shedding off and at a low threshold (50 ms of mean event-loop delay; with BENCH_DEFAULT=1
// also at the default, 1000 ms). The gateway's capacity is measured first (GET /v1/jobs/{id}, as
// fast as answers come on 128 connections, shedding off); each setting is then offered 1, 2 and 4 times
// that rate (autocannon's overallRate) and its answers counted: requests sent, 200s and 503s
// per second, requests that got no answer in 10 s, the p99 latency, and the growth of the
// gateway's resident set. The gateway and the reference Manager are child processes;
// autocannon runs in this one, on the same cores, so what it can send is bounded too (the
// "sent" column), and the figures are relative to the capacity measured in the same run.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { jobFromJson } from "../src/json/index.js";
import { driveLoad } from "../test/helpers/overload.js";
import type { LoadResult } from "../test/helpers/overload.js";
import { startGatewayProcess, startManagerProcess } from "./processes.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 512);
const FACTORS = [1, 2, 4];
const JOBS = 64;
const PATHS = Array.from({ length: JOBS }, (_, i) => `/v1/jobs/bench-${String(i)}`);

// The default threshold (1000 ms) is left out: on this machine it shed nothing up to 4 times
// the capacity (docs/benchmarks.md), so it measures as "off" does, and the run must stay short.
const SETTINGS: Readonly<Record<string, readonly string[]>> = {
  "shedding off": ["--shed-event-loop-delay", "0"],
  "low (50 ms)": ["--shed-event-loop-delay", "50"],
  ...(process.env.BENCH_DEFAULT === "1" ? { "default (1000 ms)": [] } : {}),
};

/** Answers per second on `connections` with no rate: what the gateway serves at most. */
async function capacity(url: string, connections = 128, seconds = 3): Promise<number> {
  let i = 0;
  const result = await autocannon({
    url,
    connections,
    duration: seconds,
    requests: [{ method: "GET", setupRequest: (request) => ({ ...request, path: PATHS[i++ % JOBS] ?? "/" }) }],
  });
  return result.requests.total / result.duration;
}

interface Row {
  readonly setting: string;
  readonly factor: number;
  readonly result: LoadResult;
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-overload-"));
  const manager = await startManagerProcess(dataDir);
  const direct = connectManager(manager.address, { defaultTimeoutMs: 10_000 });
  const rows: Row[] = [];
  let served = 0;
  try {
    for (const jobId of PATHS.map((path) => path.split("/").pop() ?? "")) {
      await direct.manager.createJob(jobFromJson({ jobId, startDateTime: "2026-12-24T18:00:00Z" }));
    }
    const probe = await startGatewayProcess(manager.address, ["--access-log", "off", ...(SETTINGS["shedding off"] ?? [])]);
    try {
      await capacity(probe.address, 64, 1); // warm-up: compiled code, the channel open
      served = await capacity(probe.address);
    } finally {
      await probe.stop();
    }
    for (const [setting, args] of Object.entries(SETTINGS)) {
      const gateway = await startGatewayProcess(manager.address, ["--access-log", "off", ...args]);
      try {
        await capacity(gateway.address, 64, 1);
        await new Promise((resolve) => setTimeout(resolve, 1_500));
        for (const factor of FACTORS) {
          const result = await driveLoad({ url: gateway.address, pid: gateway.pid, paths: PATHS, connections: CONNECTIONS, seconds: SECONDS, rate: Math.round(served * factor) });
          rows.push({ setting, factor, result });
          // Let the loop catch up and a sample see it, so that each level starts from rest.
          await new Promise((resolve) => setTimeout(resolve, 1_500));
        }
      } finally {
        await gateway.stop();
      }
    }
  } finally {
    direct.close();
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
  report(served, rows);
}

function report(served: number, rows: readonly Row[]): void {
  console.log(`\ncapacity: ${served.toFixed(0)} answers/s (GET /v1/jobs/{id}, 128 connections, shedding off); levels of ${String(SECONDS)} s on ${String(CONNECTIONS)} connections; node ${process.version}\n`);
  console.log("| shedding | offered (x capacity) | sent/s | 200/s (x capacity) | 503/s | no answer | p99 ms | RSS growth MB |");
  console.log("|---|---|---|---|---|---|---|---|");
  for (const { setting, factor, result } of rows) {
    const perSecond = (count: number): number => count / result.seconds;
    const ok = perSecond(result.statuses["200"] ?? 0);
    const other = Object.entries(result.statuses).filter(([status]) => status !== "200" && status !== "503");
    const cells = [
      setting,
      factor.toFixed(0),
      perSecond(result.sent).toFixed(0),
      `${ok.toFixed(0)} (${(ok / served).toFixed(2)})`,
      perSecond(result.statuses["503"] ?? 0).toFixed(0),
      `${String(result.errors)}${other.length === 0 ? "" : ` + ${JSON.stringify(Object.fromEntries(other))}`}`,
      result.p99Ms.toFixed(0),
      (result.rssPeakMb - result.rssBeforeMb).toFixed(0),
    ];
    console.log(`| ${cells.join(" | ")} |`);
  }
}

await main();
