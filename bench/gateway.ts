// npm run bench: the gateway's everyday calls at 50 connections, each answered in the same run,
// at the same connections, by this gateway, by "the floor" (bench/floor-gateway.ts: the least
// gateway of the same stack, fastify with one route per request, the same schemas, serializer,
// JSON mirror and grpc-js client, no other hook or plugin), and by grpc-gateway when a peer
// binary is given, all in front of one reference Manager (built dist/, SQLite on disk):
//   - GET one job: every connection reads the same job (the peer: POST /v1/jobs:search with an
//     id filter, as it has no GET route), then the same spread over 64 jobs;
//   - search by tag: GET /v1/jobs?tag=group:g0 from every connection, then group:gN for 16
//     groups in turn (4 jobs of 64 each; the peer: POST /v1/jobs:search with a tag filter);
//   - PUT one of 64 jobs: a full replacement, unconditional (currentHash "0"), the same content
//     on both gateways (ours in its JSON, the peer's in canonical proto JSON); then the same PUT
//     of one job from every connection at once, which meets this gateway's per-job write queue;
//   - PATCH (a merge patch of one tag) of one of 64 jobs, then of one job from every connection:
//     each waits for the one before (ours only: the peer is given a PUT of the job; the floor
//     reads, then writes by test-and-set, retried as ours is, without a queue).
// Targets run in alternating order, BENCH_ROUNDS rounds of BENCH_SECONDS each; medians are
// reported. CPU per request is read from /proc for each gateway process (a --workers gateway:
// its primary and workers) and the Manager. Besides the one-process gateway, the same gateway
// with --workers auto (BENCH_WORKERS: another count, or off) uses the whole machine, as
// grpc-gateway does (GOMAXPROCS: every core). Every row shows its CPU per request and that CPU
// divided by the floor's.
//
// PEER_GATEWAY=<binary>: a grpc-gateway build for this API (flags -listen and -backend; see
// docs/benchmarks.md for how it is built). BENCH_GATEWAY_ARGS adds flags to our gateway (e.g.
// "--coalesce-reads off"); BENCH_ONLY=<text> runs only the scenarios whose name contains it.
// BENCH_BASELINE_GATEWAY=<path of another build's dist/src/main.js> adds that build as a target
// ("baseline gateway"), for a before/after comparison in one run. BENCH_PARTS=1 adds "bare
// fastify" (bench/bare-fastify.ts: fastify's defaults answering with fixed texts of this
// gateway's answers) and "direct gRPC" (the same Manager calls made by this process with our
// client), and under each table the sum of those parts and "our steps" (bench/steps.ts).
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import autocannon from "autocannon";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { jobFromJson } from "../src/json/index.js";
import { commandNodeFlags, cpuSeconds, startBareFastify, startChild, startFloorGateway, startGatewayProcess, startManagerProcess, startPeer, treeCpuSeconds } from "./processes.js";
import type { Child } from "./processes.js";
import { FEATURES } from "./floor-features.js";
import type { Feature } from "./floor-features.js";
import { drive, percentile } from "./stats.js";
import { jobMergePatchSteps, jobReadSteps, jobReplaceSteps, searchSteps, stepsCpuMicroseconds } from "./steps.js";
import type { Steps } from "./steps.js";

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PEER = process.env.PEER_GATEWAY;
/** Only the scenarios whose name contains this text (e.g. "GET", "PUT"). Default: all. */
const ONLY = process.env.BENCH_ONLY ?? "";
const BASELINE = process.env.BENCH_BASELINE_GATEWAY;
/** The --workers of the gateway with workers (its primary and workers together, on the whole machine); "off": no such gateway. */
const WORKERS = process.env.BENCH_WORKERS ?? "auto";
/**
 * BENCH_FEATURES=all, or a comma-separated list of bench/floor-gateway.ts's FEATURES: for each,
 * a row "the floor + <feature>" (what that feature adds to a request of the floor), and with
 * more than one a row with all of them. Default: none.
 */
const FEATURE_LIST: readonly Feature[] = (() => {
  const given = process.env.BENCH_FEATURES ?? "";
  if (given === "all") return Object.keys(FEATURES) as Feature[];
  return given.split(",").filter((f) => f !== "") as Feature[];
})();
/** BENCH_PARTS=1: also "bare fastify" and "direct gRPC", and the sum of the parts under each table. */
const PARTS = process.env.BENCH_PARTS === "1";
const GATEWAY_ARGS = (process.env.BENCH_GATEWAY_ARGS ?? "").split(" ").filter((arg) => arg !== "");
/**
 * BENCH_RATE=<req/s>: every HTTP target is offered this rate (autocannon's overallRate, over
 * the same connections) instead of as many requests as it can answer, so that CPU per request
 * is compared at one rate: a process answering fewer requests a second carries fewer of them
 * per event-loop turn and per socket write, and each costs more. Below every target's
 * saturation, the difference between two rows is what the one does that the other does not.
 * Default: none (saturation).
 */
const RATE = process.env.BENCH_RATE === undefined ? undefined : Number(process.env.BENCH_RATE);
const JOBS = 64;
const GROUPS = 16;
/** Calls of a scenario's steps per timing ("our steps"): a few thousand, best of 3 timings. */
const STEP_ITERATIONS = 3_000;

/** One job in our JSON: the Job mirror (docs/architecture.md, "The contract: proto/"). */
const ourJob = (i: number): Record<string, unknown> => ({
  jobId: `bench-${i}`,
  startDateTime: "2026-12-24T18:00:00.123456789Z",
  description: "benchmark job",
  tags: { env: "bench", group: `g${i % GROUPS}`, index: String(i) },
  currentHash: "0",
  services: [
    {
      name: "norsk",
      docker: { containerUrl: "docker.io/norskvideo/norsk:latest" },
      restart: "on_failure",
      parameters: { portMappings: [{ containerPort: 8080, protocol: "tcp", specific: { port: 80 } }], cpuSet: [0, 1] },
    },
  ],
});

/** Each job as the direct calls send it, made once: converting it is one of "our steps", not the call's. */
const JOB_MESSAGES: readonly Job[] = Array.from({ length: JOBS }, (_, i) => jobFromJson(ourJob(i)));
const jobMessage = (i: number): Job => JOB_MESSAGES[i % JOBS] ?? jobFromJson(ourJob(i % JOBS));

/**
 * The same job in canonical proto JSON, as grpc-gateway reads it: the id and the container URL
 * as messages, enums by their proto names.
 */
const peerJob = (i: number): Record<string, unknown> => ({
  ...ourJob(i),
  jobId: { jobId: `bench-${i}` },
  services: [
    {
      name: "norsk",
      docker: { containerUrl: { url: "docker.io/norskvideo/norsk:latest" } },
      restart: "ON_FAILURE",
      parameters: { portMappings: [{ containerPort: 8080, protocol: "TCP", specific: { port: 80 } }], cpuSet: [0, 1] },
    },
  ],
});

interface HttpRequest {
  readonly method: "GET" | "POST" | "PUT" | "PATCH";
  readonly path: string;
  readonly body?: string;
  /** The body's media type. Default: application/json. */
  readonly contentType?: string;
}

const peerSearch = (filter: Record<string, unknown>): HttpRequest => ({ method: "POST", path: "/v1/jobs:search", body: JSON.stringify({ jobFilter: [filter] }) });
const idEq = (n: number) => ({ jobFilter: [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "eq" as const, value: `bench-${n}` } } } }] });
const tagEq = (n: number) => ({
  jobFilter: [{ jobFilter: { case: "tagFilter" as const, value: { tagName: "group", comparison: { case: "eq" as const, value: `g${n % GROUPS}` } } } }],
});

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    /* read to the end, as the gateway does */
  }
}

/** The Manager's jobs as they are stored (their hashes set), for the steps that answer them. */
interface Stored {
  /** bench-0. */
  readonly job: Job;
  /** The jobs of group g0, as a search by tag finds them. */
  readonly group: readonly Job[];
}

interface Scenario {
  readonly name: string;
  readonly ours: (n: number) => HttpRequest;
  readonly peer: (n: number) => HttpRequest;
  readonly direct: (direct: ManagerConnection, n: number) => Promise<unknown>;
  /** This gateway's own steps for one of its requests ("our steps"), on the bench's job bench-0 (or group g0). */
  readonly steps: (stored: Stored) => Steps;
}

const readSteps = (stored: Stored): Steps => jobReadSteps(stored.job);
const searchG0Steps = (stored: Stored): Steps => searchSteps("/v1/jobs?tag=group:g0", { tag: ["group:g0"] }, stored.group);
const replaceSteps = (stored: Stored): Steps => jobReplaceSteps(Buffer.from(JSON.stringify(ourJob(0))), stored.job.currentHash);
const patchSteps = (stored: Stored): Steps => jobMergePatchSteps(stored.job, Buffer.from(patchOf(0, 0).body ?? ""));

const SCENARIOS: readonly Scenario[] = [
  {
    name: "GET one job",
    ours: () => ({ method: "GET", path: "/v1/jobs/bench-0" }),
    peer: () => peerSearch({ idFilter: { eq: "bench-0" } }),
    direct: (direct) => drain(direct.manager.jobSearch(idEq(0))),
    steps: readSteps,
  },
  {
    name: "GET one of 64 jobs",
    ours: (n) => ({ method: "GET", path: `/v1/jobs/bench-${n % JOBS}` }),
    peer: (n) => peerSearch({ idFilter: { eq: `bench-${n % JOBS}` } }),
    direct: (direct, n) => drain(direct.manager.jobSearch(idEq(n % JOBS))),
    steps: readSteps,
  },
  {
    name: "search by tag, one query (4 of 64 jobs)",
    ours: () => ({ method: "GET", path: "/v1/jobs?tag=group:g0" }),
    peer: () => peerSearch({ tagFilter: { tagName: "group", eq: "g0" } }),
    direct: (direct) => drain(direct.manager.jobSearch(tagEq(0))),
    steps: searchG0Steps,
  },
  {
    name: "search by tag, 16 queries in turn (4 of 64 jobs)",
    ours: (n) => ({ method: "GET", path: `/v1/jobs?tag=group:g${n % GROUPS}` }),
    peer: (n) => peerSearch({ tagFilter: { tagName: "group", eq: `g${n % GROUPS}` } }),
    direct: (direct, n) => drain(direct.manager.jobSearch(tagEq(n))),
    steps: searchG0Steps,
  },
  {
    name: "PUT one of 64 jobs",
    ours: (n) => ({ method: "PUT", path: `/v1/jobs/bench-${n % JOBS}`, body: JSON.stringify(ourJob(n % JOBS)) }),
    peer: (n) => ({ method: "PUT", path: `/v1/jobs/bench-${n % JOBS}`, body: JSON.stringify(peerJob(n % JOBS)) }),
    direct: (direct, n) => direct.manager.updateJob(jobMessage(n)),
    steps: replaceSteps,
  },
  {
    name: "PUT of one job, every connection at once",
    ours: () => ({ method: "PUT", path: "/v1/jobs/bench-0", body: JSON.stringify(ourJob(0)) }),
    peer: () => ({ method: "PUT", path: "/v1/jobs/bench-0", body: JSON.stringify(peerJob(0)) }),
    direct: (direct) => direct.manager.updateJob(jobMessage(0)),
    steps: replaceSteps,
  },
  {
    name: "PATCH one of 64 jobs",
    ours: (n) => patchOf(n % JOBS, n),
    peer: (n) => ({ method: "PUT", path: `/v1/jobs/bench-${n % JOBS}`, body: JSON.stringify(peerJob(n % JOBS)) }),
    direct: (direct, n) => readAndWrite(direct, n % JOBS),
    steps: patchSteps,
  },
  {
    name: "PATCH of one job, every connection at once",
    ours: (n) => patchOf(0, n),
    peer: () => ({ method: "PUT", path: "/v1/jobs/bench-0", body: JSON.stringify(peerJob(0)) }),
    direct: (direct) => readAndWrite(direct, 0),
    steps: patchSteps,
  },
];

function patchOf(job: number, n: number): HttpRequest {
  return { method: "PATCH", path: `/v1/jobs/bench-${job}`, body: JSON.stringify({ tags: { patched: String(n % 8) } }), contentType: "application/merge-patch+json" };
}

async function readAndWrite(direct: ManagerConnection, job: number): Promise<void> {
  await drain(direct.manager.jobSearch(idEq(job)));
  await direct.manager.updateJob(jobMessage(job));
}

// The targets' names, as the report shows them.
const THIS_GATEWAY = "this gateway";
const BASELINE_GATEWAY = "baseline gateway";
const PEER_GATEWAY_NAME = "grpc-gateway";
const BARE_FASTIFY = "bare fastify";
const DIRECT = "direct gRPC";
const FLOOR = "the floor";
const WITH_WORKERS = `this gateway, --workers ${WORKERS}`;

interface Run {
  readonly target: string;
  readonly requests: number;
  readonly seconds: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly failures: number;
  /** CPU of the gateway (or the peer, or this process for direct calls) per request, µs. */
  readonly gatewayCpuUs: number;
  readonly managerCpuUs: number;
}

const ownCpuSeconds = (): number => {
  const usage = process.cpuUsage();
  return (usage.user + usage.system) / 1e6;
};

async function measured(target: string, cpuOf: () => number, manager: Child, load: () => Promise<Omit<Run, "target" | "gatewayCpuUs" | "managerCpuUs">>): Promise<Run> {
  const before = { gateway: cpuOf(), manager: cpuSeconds(manager.pid) };
  const result = await load();
  const perRequest = (seconds: number): number => (seconds * 1e6) / Math.max(1, result.requests);
  return {
    target,
    ...result,
    gatewayCpuUs: perRequest(cpuOf() - before.gateway),
    managerCpuUs: perRequest(cpuSeconds(manager.pid) - before.manager),
  };
}

async function viaHttp(base: string, make: (n: number) => HttpRequest, seconds: number): Promise<Omit<Run, "target" | "gatewayCpuUs" | "managerCpuUs">> {
  let n = 0;
  const result = await autocannon({
    url: base,
    connections: CONNECTIONS,
    duration: seconds,
    ...(RATE === undefined ? {} : { overallRate: RATE }),
    requests: [
      {
        setupRequest: (request) => {
          const { method, path, body, contentType = "application/json" } = make(n++);
          return { ...request, method, path, ...(body === undefined ? {} : { body, headers: { "content-type": contentType } }) };
        },
      },
    ],
  });
  const failures = result.errors + result.non2xx;
  if (failures > 0) console.error(`${base}: ${result.errors} transport errors, status codes ${JSON.stringify(result.statusCodeStats)}`);
  return { requests: result.requests.total, seconds: result.duration, p50Ms: result.latency.p50, p99Ms: result.latency.p99, failures };
}

async function viaGrpc(direct: ManagerConnection, call: Scenario["direct"], seconds: number): Promise<Omit<Run, "target" | "gatewayCpuUs" | "managerCpuUs">> {
  const result = await drive("direct", CONNECTIONS, seconds, (n) => call(direct, n));
  return { requests: result.requests, seconds: result.seconds, p50Ms: result.p50Ms, p99Ms: result.p99Ms, failures: result.errors };
}

const median = (values: readonly number[]): number => percentile([...values].sort((a, b) => a - b), 50);
const rateOf = (run: Run): number => run.requests / run.seconds;

/** `stepsUs`: CPU per request of this gateway's own steps ("our steps"), µs; NaN when not timed. */
function report(scenario: string, runs: readonly Run[], stepsUs: number): void {
  const targets = [...new Set(runs.map((r) => r.target))];
  const summary = new Map(
    targets.map((target) => {
      const of = runs.filter((r) => r.target === target);
      return [target, { rate: median(of.map(rateOf)), p50: median(of.map((r) => r.p50Ms)), p99: median(of.map((r) => r.p99Ms)), cpu: median(of.map((r) => r.gatewayCpuUs)), manager: median(of.map((r) => r.managerCpuUs)), failures: of.reduce((sum, r) => sum + r.failures, 0) }];
    }),
  );
  const peer = summary.get(PEER_GATEWAY_NAME);
  const floor = summary.get(FLOOR);
  console.log(`\n${scenario} (${CONNECTIONS} connections${RATE === undefined ? "" : `, offered ${String(RATE)} req/s`}, ${runs.filter((r) => r.target === targets[0]).length} rounds of ${SECONDS} s; medians; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
  console.log("| target | req/s | rate ÷ grpc-gateway | p50 ms | p99 ms | p99 ÷ grpc-gateway | gateway CPU µs/req | CPU ÷ floor | CPU − floor µs | Manager CPU µs/req | failures |");
  console.log("|---|---|---|---|---|---|---|---|---|---|---|");
  const ratio = (value: number, of: number | undefined): string => (of === undefined ? "" : (value / of).toFixed(2));
  for (const [target, s] of summary) {
    console.log(`| ${target} | ${s.rate.toFixed(0)} | ${ratio(s.rate, peer?.rate)} | ${s.p50.toFixed(1)} | ${s.p99.toFixed(1)} | ${ratio(s.p99, peer?.p99)} | ${s.cpu.toFixed(0)} | ${ratio(s.cpu, floor?.cpu)} | ${floor === undefined ? "" : (s.cpu - floor.cpu).toFixed(0)} | ${s.manager.toFixed(0)} | ${s.failures} |`);
  }
  if (!PARTS) return;
  const fastifyUs = summary.get(BARE_FASTIFY)?.cpu ?? Number.NaN;
  const grpcUs = summary.get(DIRECT)?.cpu ?? Number.NaN;
  const sumUs = fastifyUs + grpcUs + stepsUs;
  for (const gateway of [THIS_GATEWAY, BASELINE_GATEWAY]) {
    const cpu = summary.get(gateway)?.cpu;
    if (cpu === undefined) continue;
    console.log(`sum of parts: fastify ${fastifyUs.toFixed(0)} + gRPC call ${grpcUs.toFixed(0)} + steps ${stepsUs.toFixed(0)} = ${sumUs.toFixed(0)} µs; ${gateway} ${cpu.toFixed(0)} µs = ${(cpu / sumUs).toFixed(2)}× the sum`);
  }
}

async function seed(direct: ManagerConnection): Promise<void> {
  for (let i = 0; i < JOBS; i++) await direct.manager.createJob(JOB_MESSAGES[i] ?? jobFromJson(ourJob(i)));
}

async function found(direct: ManagerConnection, search: Parameters<ManagerConnection["manager"]["jobSearch"]>[0]): Promise<Job[]> {
  const jobs: Job[] = [];
  for await (const current of direct.manager.jobSearch(search)) if (current.job !== undefined) jobs.push(current.job);
  return jobs;
}

async function storedJobs(direct: ManagerConnection): Promise<Stored> {
  const [job] = await found(direct, idEq(0));
  if (job === undefined) throw new Error("bench-0 must be stored");
  return { job, group: await found(direct, tagEq(0)) };
}

/**
 * Starts "bare fastify" answering with this gateway's own answers, read from it once: bench-0
 * (for a job read or write) and the jobs of group g0 (for a search).
 */
async function startBareFastifyLike(gateway: Child, dataDir: string): Promise<Child> {
  const text = async (path: string): Promise<string> => {
    const response = await fetch(`${gateway.address}${path}`);
    if (!response.ok) throw new Error(`GET ${path}: ${response.status}`);
    return response.text();
  };
  const answers = join(dataDir, "bare-fastify-answers.json");
  await writeFile(answers, JSON.stringify({ job: await text("/v1/jobs/bench-0"), list: await text("/v1/jobs?tag=group:g0") }));
  return startBareFastify(answers);
}

/** A target that answers over HTTP: a process, the CPU it (and its children) used, and which requests it is sent. */
interface HttpTarget {
  readonly name: string;
  readonly child: Child;
  readonly cpuOf: () => number;
  readonly requests: "ours" | "peer";
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-gateway-"));
  const manager = await startManagerProcess(dataDir);
  const children: Child[] = [];
  const started = async (child: Promise<Child>): Promise<Child> => {
    const c = await child;
    children.push(c);
    return c;
  };
  const direct = connectManager(manager.address, { defaultTimeoutMs: 10_000 });
  try {
    const gateway = await started(startGatewayProcess(manager.address, GATEWAY_ARGS));
    const http: HttpTarget[] = [{ name: THIS_GATEWAY, child: gateway, cpuOf: () => cpuSeconds(gateway.pid), requests: "ours" }];
    if (BASELINE !== undefined) {
      const baseline = await started(startChild([...commandNodeFlags(BASELINE), BASELINE, "--port", "0", "--manager", manager.address, ...GATEWAY_ARGS], /listening on (http:\/\/[^\s]+)/));
      http.push({ name: BASELINE_GATEWAY, child: baseline, cpuOf: () => cpuSeconds(baseline.pid), requests: "ours" });
    }
    if (PEER !== undefined) {
      const peer = await started(startPeer(PEER, manager.address));
      http.push({ name: PEER_GATEWAY_NAME, child: peer, cpuOf: () => cpuSeconds(peer.pid), requests: "peer" });
    }
    if (WORKERS !== "off") {
      const workers = await started(startGatewayProcess(manager.address, [...GATEWAY_ARGS, "--workers", WORKERS]));
      http.push({ name: WITH_WORKERS, child: workers, cpuOf: () => treeCpuSeconds(workers.pid), requests: "ours" });
    }
    const floor = await started(startFloorGateway(manager.address));
    http.push({ name: FLOOR, child: floor, cpuOf: () => cpuSeconds(floor.pid), requests: "ours" });
    const variants: [string, readonly Feature[]][] = FEATURE_LIST.map((f) => [`${FLOOR} + ${FEATURES[f]}`, [f]]);
    if (FEATURE_LIST.length > 1) variants.push([`${FLOOR} + all ${String(FEATURE_LIST.length)} features`, FEATURE_LIST]);
    for (const [name, features] of variants) {
      const variant = await started(startFloorGateway(manager.address, features));
      http.push({ name, child: variant, cpuOf: () => cpuSeconds(variant.pid), requests: "ours" });
    }
    await seed(direct);
    if (PARTS) {
      const bare = await started(startBareFastifyLike(gateway, dataDir));
      http.push({ name: BARE_FASTIFY, child: bare, cpuOf: () => cpuSeconds(bare.pid), requests: "ours" });
    }
    const stored = await storedJobs(direct);
    console.log(`node ${process.version}; ${JOBS} jobs; peer: ${PEER ?? "none (PEER_GATEWAY not set)"}; baseline: ${BASELINE ?? "none"}`);
    for (const scenario of SCENARIOS.filter((s) => s.name.includes(ONLY))) {
      const targets = [
        ...http.map((t) => ({ name: t.name, run: (s: number) => measured(t.name, t.cpuOf, manager, () => viaHttp(t.child.address, t.requests === "ours" ? scenario.ours : scenario.peer, s)) })),
        ...(PARTS ? [{ name: DIRECT, run: (s: number) => measured(DIRECT, ownCpuSeconds, manager, () => viaGrpc(direct, scenario.direct, s)) }] : []),
      ];
      for (const target of targets) await target.run(1); // warm-up: JIT, connections
      const runs: Run[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        const order = round % 2 === 0 ? targets : [...targets].reverse();
        for (const target of order) runs.push(await target.run(SECONDS));
      }
      // After the rounds, so that the timing takes no CPU from them.
      report(scenario.name, runs, PARTS ? stepsCpuMicroseconds(scenario.steps(stored), STEP_ITERATIONS) : Number.NaN);
    }
    const failures = gateway.output.filter((l) => l.includes('"level":50'));
    if (failures.length > 0) console.error(`the gateway logged ${failures.length} errors; first:\n${failures[0] ?? ""}`);
  } finally {
    direct.close();
    for (const child of children.reverse()) await child.stop();
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
