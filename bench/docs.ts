// npm run bench:docs: what the API document costs its readers. The sizes of openapi.yaml and
// /openapi.json (as sent, gzip- and brotli-compressed), the types openapi-typescript generates
// from it and the time tsc takes to check a small openapi-fetch program against them
// (test/helpers/client-program.ts), and how long Swagger UI in chromium (a fresh profile each
// time) takes to show its first operation and to open createJob.
//
// Baselines in the same run: tsc on a trivial file with the same options (tsc's own cost), and
// Swagger UI showing a document of one operation (the UI's own cost, whatever the document;
// its figures are those of the "one operation" target). Chromium's CPU time, summed over its
// processes, is reported beside wall time, as it moves less with the machine's load. With
// BENCH_DOCS_BASELINE=<another checkout, built> the same is measured for that checkout too,
// in alternating rounds, e.g. the commit before a change to the document:
//   git archive <commit> | tar -x -C /tmp/before && ln -s "$PWD/node_modules" /tmp/before/ &&
//   (cd /tmp/before && npx tsc -p tsconfig.build.json)
// Gateways run as child processes (built dist/) with the embedded Manager.
import { execFile, execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import { launchChromium } from "../test/helpers/browser.js";
import { writeClientProgram } from "../test/helpers/client-program.js";
import type { ClientWorkDir } from "../test/helpers/client-program.js";
import { startChild } from "./processes.js";
import type { Child } from "./processes.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const BASELINE = process.env.BENCH_DOCS_BASELINE;
const run = promisify(execFile);
const KB = 1000;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const kb = (bytes: number): string => `${(bytes / KB).toFixed(1)} KB`;
const ms = (values: readonly number[]): string => `${median(values).toFixed(0)} ms (of ${values.map((v) => v.toFixed(0)).join(", ")})`;

interface Target {
  readonly name: string;
  readonly root: string;
  gateway?: Child;
  work?: ClientWorkDir;
  readonly tsc: number[];
  readonly page: number[];
  readonly first: number[];
  readonly open: number[];
  readonly transferred: number[];
  /** CPU seconds chromium's processes spent from navigation to the first operation (load on the machine aside). */
  readonly cpu: number[];
  checkStats: string;
}

const target = (name: string, root: string): Target => ({ name, root, tsc: [], page: [], first: [], open: [], transferred: [], cpu: [], checkStats: "" });

/** CPU time (user + system, seconds) of this process's descendants, except those under `exclude` (Linux /proc). */
function descendantsCpu(exclude: readonly number[]): number {
  const stats = new Map<number, { ppid: number; cpu: number }>();
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
      stats.set(Number(entry), { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) / 100 });
    } catch {
      // The process ended meanwhile.
    }
  }
  const within = (pid: number): boolean => {
    for (let at = stats.get(pid)?.ppid; at !== undefined && at > 1; at = stats.get(at)?.ppid) {
      if (exclude.includes(at)) return false;
      if (at === process.pid) return true;
    }
    return false;
  };
  let total = 0;
  for (const [pid, { cpu }] of stats) if (!exclude.includes(pid) && within(pid)) total += cpu;
  return total;
}

/** Bytes of the answer to `url` as sent with `encoding` (what the wire carries), and the coding used. */
async function sent(url: string, encoding: string): Promise<string> {
  const { stdout } = await run("curl", ["-s", "-o", "/dev/null", "-w", "%{size_download} %header{content-encoding}", "-H", `Accept-Encoding: ${encoding}`, url]);
  const [bytes, used] = stdout.split(" ");
  return `${kb(Number(bytes))} ${used === undefined || used === "" ? "identity" : used}`;
}

async function sizes(t: Target): Promise<void> {
  const yaml = readFileSync(join(t.root, "openapi.yaml"));
  const url = t.gateway?.address ?? "";
  const json = Buffer.from(await (await fetch(`${url}/openapi.json`, { headers: { "accept-encoding": "identity" } })).arrayBuffer());
  console.log(`[${t.name}] openapi.yaml ${kb(yaml.length)} (${yaml.toString("utf8").split("\n").length} lines); /openapi.json ${kb(json.length)}`);
  console.log(`[${t.name}] /openapi.json sent: Accept-Encoding gzip → ${await sent(`${url}/openapi.json`, "gzip")}, br → ${await sent(`${url}/openapi.json`, "br")}`);
  const types = t.work?.types ?? "";
  console.log(`[${t.name}] openapi-typescript: ${kb(Buffer.byteLength(types))} (${types.split("\n").length} lines)`);
}

/** tsc -p dir with --extendedDiagnostics: wall time, its own figures, and the first errors. */
async function tsc(dir: string): Promise<{ ms: number; stats: string; errors: string }> {
  const t0 = performance.now();
  const args = ["node_modules/typescript/bin/tsc", "-p", join(dir, "tsconfig.json"), "--extendedDiagnostics"];
  let out: string;
  try {
    out = (await run(process.execPath, args)).stdout;
  } catch (error) {
    out = String((error as { stdout?: unknown }).stdout ?? error);
  }
  const wall = performance.now() - t0;
  const stats = ["Memory used", "Check time", "Total time"].map((key) => new RegExp(`${key}:\\s+(\\S+)`).exec(out)?.[1] ?? "?").join(" / ");
  return { ms: wall, stats, errors: out.split("\n").filter((line) => line.includes("error TS")).slice(0, 3).join("\n") };
}

/** The least a document can be for the page to show createJob: Swagger UI's own cost. */
const ONE_OPERATION = {
  openapi: "3.1.0",
  info: { title: "one operation", version: "1" },
  paths: { "/v1/jobs": { post: { tags: ["jobs"], operationId: "createJob", responses: { 201: { description: "Created" } } } } },
};

async function swaggerUi(t: Target, oneOperation = false): Promise<void> {
  const browser = await launchChromium();
  try {
    const tab = browser.context.pages()[0] ?? (await browser.context.newPage());
    if (oneOperation) await tab.route("**/docs/json", (route) => route.fulfill({ contentType: "application/json", body: JSON.stringify(ONE_OPERATION) }));
    const sizes: Promise<number>[] = [];
    tab.on("requestfinished", (request) => sizes.push(request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize)));
    const gateways = targets.map((other) => other.gateway?.pid ?? 0);
    const cpu0 = descendantsCpu(gateways);
    const t0 = performance.now();
    await tab.goto(`${t.gateway?.address ?? ""}/docs`, { waitUntil: "domcontentloaded" });
    t.page.push(performance.now() - t0);
    await tab.locator(".opblock").first().waitFor();
    t.first.push(performance.now() - t0);
    t.cpu.push((descendantsCpu(gateways) - cpu0) * 1000);
    const operation = tab.locator("#operations-jobs-createJob");
    const t1 = performance.now();
    await operation.locator(".opblock-summary").click();
    await operation.locator(".opblock-body .responses-wrapper").waitFor();
    t.open.push(performance.now() - t1);
    t.transferred.push((await Promise.all(sizes)).reduce((a, b) => a + b, 0));
  } finally {
    await browser.close();
  }
}

const targets = [target("this checkout", "."), ...(BASELINE === undefined ? [] : [target("baseline", BASELINE)])];
execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
const dataDir = await mkdtemp(join(tmpdir(), "bench-docs-"));
const trivial = await writeClientProgram("bench-docs", pathToFileURL(resolve("openapi.yaml")), "export const x: number = 1;\n");
await writeFile(join(trivial.dir, "api.d.ts"), "export {};\n");
try {
  console.log(`load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}; ${String(ROUNDS)} rounds`);
  for (const [i, t] of targets.entries()) {
    t.gateway = await startChild([join(t.root, "dist/src/main.js"), "--port", "0", "--data-dir", join(dataDir, String(i))], /listening on (http:\/\/[^\s]+)/);
    t.work = await writeClientProgram("bench-docs", pathToFileURL(resolve(t.root, "openapi.yaml")));
    await sizes(t);
  }
  const baseline: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    baseline.push((await tsc(trivial.dir)).ms);
    for (const t of targets) {
      const result = await tsc(t.work?.dir ?? "");
      t.tsc.push(result.ms);
      t.checkStats = result.stats + (result.errors === "" ? "" : `; FAILS:\n${result.errors}`);
    }
  }
  const oneOperation: Target = { ...target("one operation", "."), gateway: targets[0]?.gateway };
  for (let round = 0; round < ROUNDS; round++) {
    await swaggerUi(oneOperation, true);
    for (const t of targets) await swaggerUi(t);
  }
  console.log(`tsc, trivial file (baseline): ${ms(baseline)}`);
  console.log(`Swagger UI, one operation (baseline): first operation ${ms(oneOperation.first)}; chromium CPU ${ms(oneOperation.cpu)}`);
  for (const t of targets) {
    console.log(`[${t.name}] tsc, program + types: ${ms(t.tsc)}, ${(median(t.tsc) / median(baseline)).toFixed(2)}x baseline; memory / check / total: ${t.checkStats}`);
    console.log(`[${t.name}] Swagger UI: page (DOMContentLoaded) ${ms(t.page)}; first operation ${ms(t.first)}, ${(median(t.first) / median(oneOperation.first)).toFixed(2)}x baseline`);
    console.log(`[${t.name}] Swagger UI: chromium CPU time to the first operation ${ms(t.cpu)}, ${(median(t.cpu) / median(oneOperation.cpu)).toFixed(2)}x baseline`);
    console.log(`[${t.name}] Swagger UI: createJob opened ${ms(t.open)}; transferred ${kb(median(t.transferred))}`);
  }
} finally {
  for (const t of targets) {
    await t.gateway?.stop();
    if (t.work !== undefined) await rm(t.work.dir, { recursive: true, force: true });
  }
  await rm(trivial.dir, { recursive: true, force: true });
  await rm(dataDir, { recursive: true, force: true });
}
