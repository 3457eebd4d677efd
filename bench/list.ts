// npm run bench:list: a long listing. 100,000 jobs (one service each, tag env:prod) seeded
// straight into the reference Manager's SQLite file, then listed with the filter tag=env:prod
// three ways, in alternating rounds of one run:
//   - direct: the Manager's JobSearch stream, read by our grpc-js client (messages decoded, as
//     the gateway decodes them): the baseline;
//   - GET /v1/jobs?tag=env:prod as NDJSON, and as JSON, through the gateway, read by node's
//     HTTP client, which counts the jobs (lines, or `{"jobId":` in the JSON) and nothing more.
// Each listing reports jobs per second, the CPU time of the gateway and of the Manager over it
// (from /proc), and the gateway's peak resident memory over its resident memory before it. The
// Manager and the gateway run as child processes (built dist/), on loopback.
//
// BENCH_ROOT=<dir> measures the build in <dir> (its dist/, both programs) instead of this
// one, e.g. an older commit unpacked with `git archive`; BENCH_GATEWAY_ARGS adds gateway flags
// (e.g. "--request-timeout 600000" for a build whose deadline would cut the list).
// BENCH_EMBEDDED=1 runs the gateway as `npm start` does, with the Manager embedded in its
// process (over a copy of the same data): the setup of a single `npm start`. The direct baseline still reads
// the Manager's own process, and the gateway's CPU and memory then include its Manager's.
// PEER_GATEWAY=<binary> adds the peer: a grpc-gateway build for this API (flags -listen and
// -backend, the route POST /v1/jobs:search; see docs/benchmarks.md for how it is built), in front of
// the same Manager, listing with the same filter; its CPU and memory are reported as the
// gateway's for its rows.
import { execFileSync } from "node:child_process";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { seedJobs } from "../test/helpers/seed-jobs.js";
import { commandNodeFlags, cpuSeconds, rssKiB, startChild, startPeer } from "./processes.js";
import type { Child } from "./processes.js";

const JOBS = Number(process.env.BENCH_JOBS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ROOT = process.env.BENCH_ROOT ?? ".";
const GATEWAY_ARGS = (process.env.BENCH_GATEWAY_ARGS ?? "").split(" ").filter((arg) => arg !== "");
const EMBEDDED = process.env.BENCH_EMBEDDED === "1";
const PEER = process.env.PEER_GATEWAY;
/** A listing that takes longer than this is abandoned (the benchmark stays bounded in time). */
const LISTING_TIMEOUT_MS = 120_000;

const TAG_FILTER = { jobFilter: [{ jobFilter: { case: "tagFilter" as const, value: { tagName: "env", comparison: { case: "eq" as const, value: "prod" } } } }] };

interface Listing {
  readonly target: string;
  readonly jobs: number;
  readonly seconds: number;
  /** How the listing ended: "complete", or what cut it. */
  readonly end: string;
  readonly gatewayCpuS: number;
  readonly managerCpuS: number;
  readonly gatewayRssGrowthMiB: number;
}


/** Runs `list` (which answers the jobs it counted and how it ended), measuring both processes. */
async function measured(target: string, gateway: Child, manager: Child, list: () => Promise<{ jobs: number; end: string }>): Promise<Listing> {
  const before = { gateway: cpuSeconds(gateway.pid), manager: cpuSeconds(manager.pid), rss: rssKiB(gateway.pid) };
  let peakRss = before.rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, rssKiB(gateway.pid));
  }, 50);
  const started = performance.now();
  try {
    const { jobs, end } = await list();
    const seconds = (performance.now() - started) / 1000;
    return {
      target,
      jobs,
      seconds,
      end,
      gatewayCpuS: cpuSeconds(gateway.pid) - before.gateway,
      managerCpuS: cpuSeconds(manager.pid) - before.manager,
      gatewayRssGrowthMiB: (Math.max(peakRss, rssKiB(gateway.pid)) - before.rss) / 1024,
    };
  } finally {
    clearInterval(sampler);
  }
}

/** GET the listing through the gateway; counts jobs without parsing them. */
function viaGateway(url: string, ndjson: boolean): Promise<{ jobs: number; end: string }> {
  const headers: Record<string, string> = ndjson ? { accept: "application/x-ndjson" } : {};
  return counted(`${url}/v1/jobs?tag=env:prod`, { headers }, ndjson ? "\n" : '{"jobId":', ndjson);
}

/** The same listing through the peer: grpc-gateway streams one {"result": job} per line. */
function viaPeer(url: string): Promise<{ jobs: number; end: string }> {
  const body = JSON.stringify({ jobFilter: [{ tagFilter: { tagName: "env", eq: "prod" } }] });
  return counted(`${url}/v1/jobs:search`, { method: "POST", headers: { "content-type": "application/json" }, body }, '{"result":', false);
}

/** Sends the request and counts `marker` in the answer; an NDJSON error line does not count. */
function counted(url: string, options: { method?: string; headers: Record<string, string>; body?: string }, marker: string, ndjson: boolean): Promise<{ jobs: number; end: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: options.method ?? "GET", headers: options.headers, agent: false }, (res) => {
      res.setEncoding("utf8");
      let jobs = 0;
      let tail = "";
      let last = "";
      res.on("data", (chunk: string) => {
        const text = tail + chunk;
        for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + marker.length)) jobs++;
        tail = text.slice(Math.max(0, text.length - marker.length + 1));
        last = text.slice(-300);
      });
      res.on("error", () => undefined);
      res.once("close", () => {
        clearTimeout(timer);
        const errorLine = ndjson && last.includes('{"error":');
        if (errorLine) jobs--;
        const end = res.statusCode !== 200 ? `status ${String(res.statusCode)}` : !res.complete ? "body cut off" : errorLine ? `error line ${/"code":"(\w+)"/.exec(last)?.[1] ?? ""}` : "complete";
        resolve({ jobs, end });
      });
    });
    const timer = setTimeout(() => req.destroy(), LISTING_TIMEOUT_MS);
    req.on("error", reject);
    req.end(options.body);
  });
}

async function direct(address: string): Promise<{ jobs: number; end: string }> {
  const connection = connectManager(address, { defaultTimeoutMs: LISTING_TIMEOUT_MS });
  let jobs = 0;
  try {
    for await (const current of connection.streams.jobSearch(TAG_FILTER, { timeoutMs: LISTING_TIMEOUT_MS })) if (current.job !== undefined) jobs++;
    return { jobs, end: "complete" };
  } catch (error) {
    return { jobs, end: error instanceof Error ? error.message : String(error) };
  } finally {
    connection.close();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

function report(listings: readonly Listing[], rssMiB: { started: number; warm: number; end: number }): void {
  const targets = [...new Set(listings.map((l) => l.target))];
  const rateOf = (l: Listing) => l.jobs / l.seconds;
  const baseline = median(listings.filter((l) => l.target === "direct").map(rateOf));
  const build = ROOT === "." ? "this build" : ROOT;
  console.log(`\n${JOBS} jobs, ${ROUNDS} rounds, gateway ${build}${EMBEDDED ? " with its Manager embedded" : ""} ${GATEWAY_ARGS.join(" ")}; node ${process.version}\n`);
  console.log(`gateway resident memory: ${rssMiB.started.toFixed(0)} MiB started, ${rssMiB.warm.toFixed(0)} MiB after one listing, ${rssMiB.end.toFixed(0)} MiB at the end\n`);
  console.log("each listing: target, jobs, seconds, jobs/s, how it ended, gateway CPU s, Manager CPU s, gateway RSS growth MiB");
  for (const l of listings) {
    console.log(
      `  ${l.target.padEnd(8)} ${String(l.jobs).padStart(7)} ${l.seconds.toFixed(2).padStart(7)} s ${rateOf(l).toFixed(0).padStart(7)}/s  ${l.end.padEnd(16)} ` +
        `${l.gatewayCpuS.toFixed(2).padStart(6)} ${l.managerCpuS.toFixed(2).padStart(6)} ${l.gatewayRssGrowthMiB.toFixed(0).padStart(5)}`,
    );
  }
  console.log("\nmedians: target, jobs/s, ratio to direct, seconds, gateway CPU s, Manager CPU s, gateway RSS growth MiB (max)");
  const peerRate = median(listings.filter((l) => l.target === "peer").map(rateOf));
  if (!Number.isNaN(peerRate)) console.log(`  (ratios to the peer: ${targets.map((t) => `${t} ${(median(listings.filter((l) => l.target === t).map(rateOf)) / peerRate).toFixed(2)}`).join(", ")})`);
  for (const target of targets) {
    const of = listings.filter((l) => l.target === target);
    const rate = median(of.map(rateOf));
    console.log(
      `  ${target.padEnd(8)} ${rate.toFixed(0).padStart(7)}/s  ${(rate / baseline).toFixed(2).padStart(5)}  ${median(of.map((l) => l.seconds)).toFixed(2).padStart(6)} s ` +
        `${median(of.map((l) => l.gatewayCpuS)).toFixed(2).padStart(6)} ${median(of.map((l) => l.managerCpuS)).toFixed(2).padStart(6)} ${Math.max(...of.map((l) => l.gatewayRssGrowthMiB)).toFixed(0).padStart(5)}`,
    );
  }
}


async function main(): Promise<void> {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-list-"));
  const seeding = performance.now();
  seedJobs(dataDir, JOBS);
  console.log(`seeded ${JOBS} jobs in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
  const embeddedDir = `${dataDir}-embedded`;
  if (EMBEDDED) await cp(dataDir, embeddedDir, { recursive: true });
  const manager = await startChild([join(ROOT, "packages/reference-manager/dist/main.js"), "--port", "0", "--data-dir", dataDir], /listening on (\S+)/);
  const upstream = EMBEDDED ? ["--data-dir", embeddedDir] : ["--manager", manager.address];
  const gateway = await startChild([...commandNodeFlags(join(ROOT, "dist/src/main.js")), join(ROOT, "dist/src/main.js"), "--port", "0", ...upstream, ...GATEWAY_ARGS], /listening on (http:\/\/[^\s]+)/);
  const peer = PEER === undefined ? undefined : await startPeer(PEER, manager.address);
  try {
    // Warm both paths (JIT, connections, SQLite's cache) on the whole listing once.
    const started = rssKiB(gateway.pid) / 1024;
    await direct(manager.address);
    await viaGateway(gateway.address, true);
    if (peer !== undefined) await viaPeer(peer.address);
    const warm = rssKiB(gateway.pid) / 1024;
    const listings: Listing[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      listings.push(await measured("direct", gateway, manager, () => direct(manager.address)));
      listings.push(await measured("ndjson", gateway, manager, () => viaGateway(gateway.address, true)));
      listings.push(await measured("json", gateway, manager, () => viaGateway(gateway.address, false)));
      if (peer !== undefined) listings.push(await measured("peer", peer, manager, () => viaPeer(peer.address)));
    }
    report(listings, { started, warm, end: rssKiB(gateway.pid) / 1024 });
  } finally {
    await peer?.stop();
    await gateway.stop();
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
    await rm(embeddedDir, { recursive: true, force: true });
  }
}

await main();
