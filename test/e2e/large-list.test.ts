// Issue 16: a list of any length finishes. The built command, with its default settings and
// its embedded reference Manager over 100,000 jobs (seeded straight into its SQLite file),
// lists them all with GET /v1/jobs?tag=env:prod, as NDJSON and as JSON: every job, in id order,
// each line (and the whole document) valid JSON, though it takes longer than the 10 s request
// timeout that used to cut it.
//
// Memory: the process (gateway and embedded Manager together) sends some 50 MB and must hold
// none of it beyond its buffers. Left to itself, V8 lets garbage pile up to a limit of its own
// choosing before collecting it (some 100 MB more here, all of it collectable), so resident
// size alone would measure V8's heuristics. The process therefore runs with its old space
// capped at OLD_SPACE_MB, about twice what it uses at rest: one that held the list (the
// Manager's JobSearch did, before it read a page at a time) runs out of memory and dies, which
// fails the test; its young generation is capped at SEMI_SPACE_MB, and its resident set, read
// from /proc while it lists, must grow by less than RSS_GROWTH_BOUND_MB: 64 MiB, the bound the
// performance work sets for a big search. Measured: about 20 MB on Node 20, 41-46 MB on Node 24
// (whose V8 keeps more of what it collects resident; 52-54 MB without the semi-space cap).
import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { seedJobs, seededJobId } from "../helpers/seed-jobs.js";

const COUNT = 100_000;
const OLD_SPACE_MB = 96;
const SEMI_SPACE_MB = 8;
/** The most the process's resident set may grow while it lists the 100,000 jobs (49 MB of JSON). */
const RSS_GROWTH_BOUND_MB = 64;

let gateway: StartedCommand;
let baselineMb = 0;

function rssMb(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? 0) / 1024;
}

/** Reads GET `path` to its end, giving each chunk to `onChunk`, and the process's peak RSS meanwhile. */
function list(path: string, headers: Record<string, string>, onChunk: (chunk: string) => void): Promise<{ status: number; complete: boolean; peakMb: number }> {
  const pid = gateway.child.pid ?? 0;
  let peakMb = rssMb(pid);
  const sampler = setInterval(() => {
    peakMb = Math.max(peakMb, rssMb(pid));
  }, 50);
  return new Promise((resolve, reject) => {
    httpRequest(`${gateway.url}${path}`, { headers }, (response) => {
      response.setEncoding("utf8");
      response.on("data", onChunk);
      response.on("error", () => undefined);
      response.once("close", () => {
        clearInterval(sampler);
        resolve({ status: response.statusCode ?? 0, complete: response.complete, peakMb: Math.max(peakMb, rssMb(pid)) });
      });
    })
      .on("error", (error) => {
        clearInterval(sampler);
        reject(error);
      })
      .end();
  });
}

beforeAll(async () => {
  const dataDir = await mkdtemp(join(tmpdir(), "large-list-"));
  seedJobs(dataDir, COUNT);
  gateway = await startCommand([], { dataDir, nodeArgs: [`--max-old-space-size=${OLD_SPACE_MB}`, `--max-semi-space-size=${SEMI_SPACE_MB}`] });
  // Warm up (code paths compiled, the connection to the Manager made), so that what is measured
  // is the listing's own growth.
  for (const [accept, limit] of [["application/x-ndjson", 5000], ["application/json", 1000]] as const) {
    const { status } = await list(`/v1/jobs?tag=env:prod&limit=${limit}`, { accept }, () => undefined);
    expect(status).toBe(200);
  }
  baselineMb = rssMb(gateway.child.pid ?? 0);
}, 120_000);

afterAll(async () => {
  await gateway.stop();
});

describe("100,000 jobs through the gateway with its default settings", () => {
  it("come as NDJSON, every one, in id order, each line valid JSON, in flat memory", async () => {
    let count = 0;
    let rest = "";
    let outOfOrder: string | undefined;
    const { status, complete, peakMb } = await list("/v1/jobs?tag=env:prod", { accept: "application/x-ndjson" }, (chunk) => {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        const job = JSON.parse(line) as { jobId?: string };
        if (job.jobId !== seededJobId(count) && outOfOrder === undefined) outOfOrder = `line ${count}: ${line.slice(0, 200)}`;
        count++;
      }
    });
    expect(status).toBe(200);
    expect(complete).toBe(true);
    expect(rest).toBe("");
    expect(outOfOrder).toBeUndefined();
    expect(count).toBe(COUNT);
    console.log(`NDJSON: resident set ${baselineMb.toFixed(0)} MB before, peak ${peakMb.toFixed(0)} MB`);
    expect(peakMb - baselineMb).toBeLessThan(RSS_GROWTH_BOUND_MB);
  }, 120_000);

  it("come as one valid JSON document, every one, in id order, in flat memory", async () => {
    const chunks: string[] = [];
    const { status, complete, peakMb } = await list("/v1/jobs?tag=env:prod", {}, (chunk) => chunks.push(chunk));
    expect(status).toBe(200);
    expect(complete).toBe(true);
    const { jobs } = JSON.parse(chunks.join("")) as { jobs: { jobId: string }[] };
    expect(jobs).toHaveLength(COUNT);
    expect(jobs.findIndex((job, i) => job.jobId !== seededJobId(i))).toBe(-1);
    console.log(`JSON: resident set ${baselineMb.toFixed(0)} MB before, peak ${peakMb.toFixed(0)} MB`);
    expect(peakMb - baselineMb).toBeLessThan(RSS_GROWTH_BOUND_MB);
  }, 120_000);
});
