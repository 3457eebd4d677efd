// npm run bench:profile -- <get|get-spread|search|put|patch> [seconds]: where the gateway's CPU
// goes for one kind of request. The gateway runs (built dist/) with node's --cpu-prof in front
// of a reference Manager; autocannon drives the request at 50 connections; the profile is then
// summed by self time per function and per group of code (our modules by folder, each package
// by name, node's internals, GC), as shares of all samples. The .cpuprofile file is kept (its
// path is printed) for chrome://inspect or speedscope.
import { mkdtemp, readFile, readdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import autocannon from "autocannon";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { jobFromJson } from "../src/json/index.js";
import { startGatewayProcess, startManagerProcess } from "./processes.js";

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

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
}

/** The group a frame's code belongs to: a folder of src/, a package, node itself, or V8's own work. */
function groupOf(url: string, name: string): string {
  if (url === "") return name.startsWith("(") ? name : "(native)";
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (pkg?.[1] !== undefined) return pkg[1];
  const ours = /dist\/(src\/[^/]+|schemas)/.exec(url);
  if (ours?.[1] !== undefined) return ours[1].replace(/\.js$/, "");
  if (url.startsWith("node:")) return "node:" + (url.slice(5).split("/")[0] ?? "");
  return url;
}

function summarise(profile: Profile): void {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const functions = new Map<string, number>();
  const groups = new Map<string, number>();
  for (const id of profile.samples) {
    const frame = byId.get(id)?.callFrame;
    if (frame === undefined) continue;
    const group = groupOf(frame.url, frame.functionName);
    const where = `${frame.functionName || "(anonymous)"} ${frame.url.replace(/^.*\/(node_modules|dist)\//, "")}:${frame.lineNumber + 1}`;
    functions.set(where, (functions.get(where) ?? 0) + 1);
    groups.set(group, (groups.get(group) ?? 0) + 1);
  }
  const total = profile.samples.length;
  const share = (count: number): string => `${((100 * count) / total).toFixed(1).padStart(5)}%`;
  const idle = groups.get("(idle)") ?? 0;
  console.log(`\n${total} samples, ${share(idle)} idle. Self time by group:`);
  for (const [group, count] of [...groups].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`  ${share(count)}  ${group}`);
  console.log("\nSelf time by function (top 40):");
  for (const [where, count] of [...functions].sort((a, b) => b[1] - a[1]).slice(0, 40)) console.log(`  ${share(count)}  ${where}`);
}

async function main(): Promise<void> {
  const kind = (process.argv[2] ?? "put") as Kind;
  if (!KINDS.includes(kind)) throw new Error(`usage: npm run bench:profile -- <${KINDS.join("|")}> [seconds]`);
  const seconds = Number(process.argv[3] ?? 10);
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-profile-"));
  const profileDir = join(dataDir, "profile");
  const manager = await startManagerProcess(join(dataDir, "manager"));
  const direct = connectManager(manager.address, { defaultTimeoutMs: 10_000 });
  for (let i = 0; i < JOBS; i++) await direct.manager.createJob(jobFromJson(job(i)));
  direct.close();
  const gateway = await startGatewayProcess(manager.address, [], ["--cpu-prof", "--cpu-prof-dir", profileDir]);
  try {
    let n = 0;
    const drive = (duration: number) =>
      autocannon({ url: gateway.address, connections: 50, duration, requests: [{ setupRequest: (r) => ({ ...r, ...request(kind, n++) }) }] });
    await drive(2);
    const result = await drive(seconds);
    console.log(`${kind}: ${(result.requests.total / result.duration).toFixed(0)} req/s, non-2xx ${result.non2xx}, errors ${result.errors}`);
  } finally {
    await gateway.stop();
    await manager.stop();
  }
  const [file] = await readdir(profileDir);
  if (file === undefined) throw new Error("the gateway wrote no profile");
  console.log(`profile: ${join(profileDir, file)} (includes start-up and the 2 s warm-up)`);
  summarise(JSON.parse(await readFile(join(profileDir, file), "utf8")) as Profile);
}

await main();
