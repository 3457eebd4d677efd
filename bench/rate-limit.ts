// npm run bench:rate-limit: what --rate-limit costs, counted in the process and through a
// local redis-server (--rate-limit-store). The same GET /v1/jobs/{id} of one job at 50
// connections (autocannon) against three gateway processes in front of one reference Manager:
// no limit, --rate-limit counted in the process, and --rate-limit through the store (one
// allowance far above what the run makes, so every request is counted and none refused). The
// gateways are driven in turn, in rounds of alternating order, so that the machine's drift falls
// on all of them alike; round 0 warms them up and is not counted. Reported per setting:
// requests per second and the gateway's CPU time per request (user + system, from /proc), and
// for the store's row also redis-server's, medians of the rounds, each as a ratio to no limit.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import autocannon from "autocannon";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { jobFromJson } from "../src/json/index.js";
import { startRedis } from "../test/helpers/redis-server.js";
import { cpuSeconds, sampleInRounds, startGatewayProcess, startManagerProcess } from "./processes.js";
import type { Child } from "./processes.js";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const JOB_ID = "bench-rate-limit";
/** Far above any run's requests: every request is counted, none refused. */
const LIMIT = "999999999/h";

interface Setting {
  readonly name: string;
  readonly args: readonly string[];
}

interface Sample {
  readonly rps: number;
  readonly cpuUsPerRequest: number;
  readonly storeCpuUsPerRequest: number;
}

async function measure(gateway: Child, storePid: number): Promise<Sample> {
  const cpu0 = cpuSeconds(gateway.pid);
  const store0 = cpuSeconds(storePid);
  const result = await autocannon({ url: `${gateway.address}/v1/jobs/${JOB_ID}`, connections: CONNECTIONS, duration: SECONDS });
  const cpu = cpuSeconds(gateway.pid) - cpu0;
  const store = cpuSeconds(storePid) - store0;
  if (result.errors + result.non2xx > 0) throw new Error(`${gateway.address}: ${String(result.errors + result.non2xx)} failed requests`);
  const total = result.requests.total;
  return { rps: total / result.duration, cpuUsPerRequest: (cpu * 1e6) / total, storeCpuUsPerRequest: (store * 1e6) / total };
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["scripts/build.mjs"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-rate-limit-"));
  const redis = await startRedis();
  const settings: readonly Setting[] = [
    { name: "no rate limit", args: [] },
    { name: "--rate-limit, in the process", args: ["--rate-limit", LIMIT] },
    { name: "--rate-limit, through redis", args: ["--rate-limit", LIMIT, "--rate-limit-store", redis.url] },
  ];
  const manager = await startManagerProcess(dataDir);
  const direct = connectManager(manager.address, { defaultTimeoutMs: 10_000 });
  await direct.manager.createJob(jobFromJson({ jobId: JOB_ID, startDateTime: "2026-12-24T18:00:00Z", tags: { env: "bench" } }));
  const gateways: Child[] = [];
  let samples: Sample[][] = [];
  try {
    for (const setting of settings) gateways.push(await startGatewayProcess(manager.address, setting.args));
    samples = await sampleInRounds(gateways.length, ROUNDS, (index) => {
      const gateway = gateways[index];
      if (gateway === undefined) throw new Error("no gateway");
      return measure(gateway, redis.pid());
    });
  } finally {
    for (const gateway of gateways) await gateway.stop();
    direct.close();
    await manager.stop();
    await redis.kill();
    await rm(dataDir, { recursive: true, force: true });
  }
  const baseline = summary(samples[0] ?? []);
  console.log(`\nGET /v1/jobs/{id} of one job, ${String(CONNECTIONS)} connections, ${String(SECONDS)} s x ${String(ROUNDS)} rounds (medians); node ${process.version}`);
  console.log(`load average ${execFileSync("cat", ["/proc/loadavg"], { encoding: "utf8" }).split(" ").slice(0, 3).join(" ")}\n`);
  console.log(`${"".padEnd(30)} ${"req/s".padStart(7)} ${"ratio".padStart(6)} ${"CPU µs/req".padStart(11)} ${"ratio".padStart(6)} ${"redis µs/req".padStart(13)}`);
  for (const [index, setting] of settings.entries()) {
    const { rps, cpuUsPerRequest, storeCpuUsPerRequest } = summary(samples[index] ?? []);
    console.log(
      `${setting.name.padEnd(30)} ${rps.toFixed(0).padStart(7)} ${(rps / baseline.rps).toFixed(3).padStart(6)} ${cpuUsPerRequest.toFixed(0).padStart(11)} ${(cpuUsPerRequest / baseline.cpuUsPerRequest).toFixed(3).padStart(6)} ${storeCpuUsPerRequest.toFixed(1).padStart(13)}`,
    );
  }
}

function summary(values: readonly Sample[]): Sample {
  return {
    rps: median(values.map((v) => v.rps)),
    cpuUsPerRequest: median(values.map((v) => v.cpuUsPerRequest)),
    storeCpuUsPerRequest: median(values.map((v) => v.storeCpuUsPerRequest)),
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? 0) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

await main();
