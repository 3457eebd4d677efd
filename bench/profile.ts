// npm run bench:profile -- <get|get-spread|search|put|patch> [seconds]: where the gateway's CPU
// and allocations go for one kind of request. The gateway runs (built dist/) with node's
// --cpu-prof, and V8's sampling heap profiler (bench/heap-sampling.mjs), in front of a reference
// Manager; autocannon drives the request at 50 connections, the gateway alone on the second
// core, the Manager and the load on the first (taskset). Only the measured window counts
// (start-up and the warm-up are left out), and every figure is per request answered:
//   - CPU by owner: each sample goes to the first package or folder of ours on its stack, from
//     the leaf up, so node's HTTP/2 under grpc-js is grpc-js's and a socket write under fastify's
//     reply is fastify's; samples with no owner are node's own (the HTTP parser, timers, ticks);
//   - CPU by the nearest function of ours: each sample goes to the first function of dist/ from
//     the leaf up, which owns the library code it calls;
//   - CPU by function, self time;
//   - bytes allocated by owner and by function (every sampled allocation, also short-lived ones).
// The .cpuprofile and .heapprofile files are kept (their paths are printed) for chrome://inspect
// or speedscope. BENCH_PROFILE_TARGET=floor profiles the floor (bench/floor-gateway.ts) instead,
// and floor+all the floor with all of its FEATURES, so that the gateway's profile can be read
// against theirs, owner by owner.
import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import autocannon from "autocannon";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { jobFromJson } from "../src/json/index.js";
import { cpuSeconds, startFloorGateway, startGatewayProcess, startManagerProcess } from "./processes.js";
import { FEATURES } from "./floor-features.js";
const KINDS = ["get", "get-spread", "search", "put", "patch"] as const;
type Kind = (typeof KINDS)[number];
const JOBS = 64;

const job = (i: number) => ({
  jobId: `bench-${i}`,
  startDateTime: "2026-12-24T18:00:00.123456789Z",
  description: "benchmark job",
  tags: { env: "bench", group: `g${i % 16}`, index: String(i) },
  services: [{ name: "norsk", docker: { containerUrl: "docker.io/norskvideo/norsk:latest" }, restart: "on_failure", parameters: { portMappings: [{ containerPort: 8080, protocol: "tcp", specific: { port: 80 } }] } }],
});

function request(kind: Kind, n: number): { method: "GET" | "PUT" | "PATCH"; path: string; body?: string; headers?: Record<string, string> } {
  const id = `bench-${n % JOBS}`;
  switch (kind) {
    case "get":
      return { method: "GET", path: "/v1/jobs/bench-0" };
    case "get-spread":
      return { method: "GET", path: `/v1/jobs/${id}` };
    case "search":
      return { method: "GET", path: `/v1/jobs?tag=group:g${n % 16}` };
    case "put":
      return { method: "PUT", path: `/v1/jobs/${id}`, body: JSON.stringify(job(n % JOBS)), headers: { "content-type": "application/json" } };
    case "patch":
      return { method: "PATCH", path: `/v1/jobs/${id}`, body: JSON.stringify({ description: `patched ${n}` }), headers: { "content-type": "application/merge-patch+json" } };
  }
}

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly startTime: number;
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}
interface HeapNode {
  readonly callFrame: CallFrame;
  readonly selfSize: number;
  readonly children: readonly HeapNode[];
}

/** The package or folder of ours a frame's code belongs to; undefined for node's own code and V8's. */
function ownerOf(url: string): string | undefined {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1] !== undefined) return pkg[1];
  const ours = /dist\/(src\/[^/]+|schemas)/.exec(url);
  if (ours?.[1] !== undefined) return ours[1].replace(/\.js$/, "");
  const workspace = /packages\/([^/]+)\/dist\/([^/]+)/.exec(url);
  if (workspace?.[1] !== undefined) return `${workspace[1]}/${workspace[2] ?? ""}`.replace(/\.js$/, "");
  return undefined;
}

const whereOf = (frame: CallFrame): string =>
  `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\/(node_modules|dist)\//, "")}:${frame.lineNumber + 1}`;

/** Adds `amount` to `key` of `into`. */
function add(into: Map<string, number>, key: string, amount: number): void {
  into.set(key, (into.get(key) ?? 0) + amount);
}

function print(title: string, totals: Map<string, number>, perRequest: number, unit: string, top: number): void {
  console.log(`\n${title}`);
  for (const [key, amount] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, top)) console.log(`  ${(amount / perRequest).toFixed(1).padStart(8)} ${unit}  ${key}`);
}

/** The CPU profile's samples between `from` and `to` (µs, the monotonic clock), per request. */
function summariseCpu(profile: CpuProfile, window: { from: number; to: number }, requests: number): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const owners = new Map<string, number>();
  const nearest = new Map<string, number>();
  const self = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i++) {
    time += profile.timeDeltas[i] ?? 0;
    // A sample's time is the gap to the one after it, the span it stands for.
    const weight = profile.timeDeltas[i + 1] ?? 0;
    if (time < window.from || time > window.to) continue;
    const leaf = byId.get(profile.samples[i] ?? -1);
    if (leaf === undefined) continue;
    if (leaf.callFrame.functionName === "(idle)") {
      idle += weight;
      continue;
    }
    busy += weight;
    add(self, whereOf(leaf.callFrame), weight);
    let owner: string | undefined;
    let ours: string | undefined;
    for (let node: ProfileNode | undefined = leaf; node !== undefined; node = byId.get(parent.get(node.id) ?? -1)) {
      const { url } = node.callFrame;
      owner ??= ownerOf(url);
      if (ours === undefined && (url.includes("/dist/src/") || url.includes("/dist/schemas/"))) ours = whereOf(node.callFrame);
    }
    add(nearest, ours ?? "(no function of ours)", weight);
    add(owners, owner ?? (leaf.callFrame.url === "" && leaf.callFrame.functionName.startsWith("(") ? leaf.callFrame.functionName : "node (no caller of ours)"), weight);
  }
  console.log(`\nCPU: ${(busy / requests).toFixed(0)} µs per request busy, ${(idle / requests).toFixed(0)} µs idle`);
  print("CPU by owner (first package or folder of ours from the leaf up), µs per request:", owners, requests, "µs", 30);
  // Fastify runs a request's hooks and handler inside one another, so inclusive time would
  // give every hook the handler's cost: each sample goes to the nearest function of ours instead.
  print("CPU by the nearest function of ours on the stack (its own code and the library code it calls), µs per request:", nearest, requests, "µs", 40);
  print("CPU by function, self, µs per request:", self, requests, "µs", 40);
}

/** Bytes allocated per request, by owner (as for CPU) and by allocating function. */
function summariseHeap(head: HeapNode, requests: number): void {
  const owners = new Map<string, number>();
  const functions = new Map<string, number>();
  let total = 0;
  const walk = (node: HeapNode, owner: string | undefined): void => {
    // The allocation's owner is the deepest package or folder of ours on its stack.
    const here = ownerOf(node.callFrame.url) ?? owner;
    if (node.selfSize > 0) {
      total += node.selfSize;
      add(owners, here ?? "node (no caller of ours)", node.selfSize);
      add(functions, whereOf(node.callFrame), node.selfSize);
    }
    for (const child of node.children) walk(child, here);
  };
  walk(head, undefined);
  console.log(`\nAllocated: ${(total / requests).toFixed(0)} bytes per request (sampled)`);
  print("Allocated by owner (the deepest package or folder of ours on the stack), bytes per request:", owners, requests, "B", 25);
  print("Allocated by function, bytes per request:", functions, requests, "B", 30);
}

/** Microseconds of the monotonic clock, the one V8's profile timestamps count. */
const nowUs = (): number => Number(process.hrtime.bigint() / 1000n);

async function main(): Promise<void> {
  const kind = (process.argv[2] ?? "put") as Kind;
  if (!KINDS.includes(kind)) throw new Error(`usage: npm run bench:profile -- <${KINDS.join("|")}> [seconds]`);
  const seconds = Number(process.argv[3] ?? 10);
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-profile-"));
  const profileDir = join(dataDir, "profile");
  const heapFile = join(dataDir, "gateway.heapprofile");
  const manager = await startManagerProcess(join(dataDir, "manager"));
  const direct = connectManager(manager.address, { defaultTimeoutMs: 10_000 });
  for (let i = 0; i < JOBS; i++) await direct.manager.createJob(jobFromJson(job(i)));
  direct.close();
  process.env.BENCH_HEAP_PROFILE = heapFile;
  const profiling = ["--cpu-prof", "--cpu-prof-dir", profileDir, "--import", "./bench/heap-sampling.mjs"];
  const target = process.env.BENCH_PROFILE_TARGET ?? "gateway";
  const gateway =
    target === "gateway"
      ? await startGatewayProcess(manager.address, [], profiling)
      : target === "floor" || target === "floor+all"
        ? await startFloorGateway(manager.address, target === "floor" ? [] : Object.keys(FEATURES), profiling)
        : undefined;
  if (gateway === undefined) throw new Error(`BENCH_PROFILE_TARGET: gateway, floor or floor+all, not ${target}`);
  console.log(`profiling ${target}`);
  // V8 samples by the clock, not by CPU time: a gateway that shares a core with the load or the
  // Manager is sampled in whatever it was doing when it was preempted (a socket write, most
  // often). On a core of its own, its busy samples are its CPU time.
  execFileSync("taskset", ["-cp", "1", String(gateway.pid)], { stdio: "ignore" });
  for (const pid of [process.pid, manager.pid]) execFileSync("taskset", ["-cp", "0", String(pid)], { stdio: "ignore" });
  let requests = 0;
  let heapRequests = 0;
  const window = { from: 0, to: 0 };
  try {
    let n = 0;
    const drive = (duration: number) =>
      autocannon({ url: gateway.address, connections: 50, duration, requests: [{ setupRequest: (r) => ({ ...r, ...request(kind, n++) }) }] });
    await drive(2);
    // The CPU window, then the allocation window: the heap sampler's own cost stays out of the CPU figures.
    window.from = nowUs();
    const cpuBefore = cpuSeconds(gateway.pid);
    const result = await drive(seconds);
    window.to = nowUs();
    requests = result.requests.total;
    const cpu = cpuSeconds(gateway.pid) - cpuBefore;
    console.log(`${kind}: ${(result.requests.total / result.duration).toFixed(0)} req/s, non-2xx ${result.non2xx}, errors ${result.errors}; gateway CPU from /proc ${((cpu * 1e6) / requests).toFixed(0)} µs per request`);
    process.kill(gateway.pid, "SIGUSR2");
    heapRequests = (await drive(Math.max(2, Math.round(seconds / 2)))).requests.total;
    process.kill(gateway.pid, "SIGUSR2");
    // The gateway writes its heap profile once sampling has stopped.
    for (let waited = 0; waited < 100 && !existsSync(heapFile); waited++) await new Promise((resolve) => setTimeout(resolve, 100));
  } finally {
    await gateway.stop();
    await manager.stop();
  }
  const [file] = await readdir(profileDir);
  if (file === undefined) throw new Error("the gateway wrote no profile");
  console.log(`profiles: ${join(profileDir, file)}, ${heapFile}`);
  summariseCpu(JSON.parse(await readFile(join(profileDir, file), "utf8")) as CpuProfile, window, requests);
  summariseHeap((JSON.parse(await readFile(heapFile, "utf8")) as { head: HeapNode }).head, heapRequests);
}

await main();
