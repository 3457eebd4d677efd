// npm run bench:docs: what the API document costs its readers. The sizes of openapi.yaml and
// /openapi.json (as sent, and gzip- and brotli-compressed), the types openapi-typescript
// generates from it and the time tsc takes to check a small openapi-fetch program against
// them, and how long Swagger UI in chromium takes to show its first operation and to open one.
// Baselines in the same run: tsc on the program without the generated types (its own cost),
// and Swagger UI's page load before the document (its own cost). The gateway runs as a child
// process (built dist/) with the embedded Manager.
import { execFile, execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { launchChromium } from "../test/helpers/browser.js";
import { writeClientProgram } from "../test/helpers/client-program.js";
import { startChild } from "./processes.js";

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const run = promisify(execFile);
const KB = 1000;

const median = (values: readonly number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};
const kb = (bytes: number): string => `${(bytes / KB).toFixed(1)} KB`;

async function timed(action: () => Promise<unknown>): Promise<number> {
  const t0 = performance.now();
  await action();
  return performance.now() - t0;
}

/** Bytes of the answer to `path` as sent with `encoding` (what the wire carries). */
async function sent(url: string, encoding: string): Promise<{ bytes: number; encoding: string }> {
  const { stdout } = await run("curl", ["-s", "-o", "/dev/null", "-w", "%{size_download} %header{content-encoding}", "-H", `Accept-Encoding: ${encoding}`, url]);
  const [bytes, used] = stdout.split(" ");
  return { bytes: Number(bytes), encoding: used === undefined || used === "" ? "identity" : used };
}

async function documentSizes(url: string): Promise<void> {
  const yaml = readFileSync("openapi.yaml");
  const json = Buffer.from(await (await fetch(`${url}/openapi.json`, { headers: { "accept-encoding": "identity" } })).arrayBuffer());
  console.log(`openapi.yaml                 ${kb(yaml.length)} (${yaml.toString("utf8").split("\n").length} lines)`);
  console.log(`/openapi.json                ${kb(json.length)}; gzip -6 would be ${kb(gzipSync(json).length)}, br ${kb(brotliCompressSync(json).length)}`);
  for (const path of ["/openapi.json", "/openapi.yaml"]) {
    for (const encoding of ["gzip", "br"]) {
      const answer = await sent(`${url}${path}`, encoding);
      console.log(`${path.padEnd(14)} Accept-Encoding ${encoding.padEnd(4)} → ${kb(answer.bytes)} sent (${answer.encoding})`);
    }
  }
}

async function typeCheck(): Promise<void> {
  const work = await writeClientProgram("bench-docs", new URL("../openapi.yaml", import.meta.url));
  const alone = await writeClientProgram("bench-docs", new URL("../openapi.yaml", import.meta.url), "export const x: number = 1;\n");
  await writeFile(join(alone.dir, "api.d.ts"), "export {};\n");
  try {
    console.log(`openapi-typescript output   ${kb(Buffer.byteLength(work.types))} (${work.types.split("\n").length} lines)`);
    const tsc = async (dir: string): Promise<{ ms: number; ok: boolean; errors: string; stats: string }> => {
      const t0 = performance.now();
      const args = ["node_modules/typescript/bin/tsc", "-p", join(dir, "tsconfig.json"), "--extendedDiagnostics"];
      const stats = (out: string) => ["Memory used", "Check time", "Total time"].map((k) => new RegExp(`${k}:\\s+(\\S+)`).exec(out)?.[0] ?? "").join(", ");
      try {
        const { stdout } = await run(process.execPath, args);
        return { ms: performance.now() - t0, ok: true, errors: "", stats: stats(stdout) };
      } catch (error) {
        const out = String((error as { stdout?: unknown }).stdout ?? error);
        return { ms: performance.now() - t0, ok: false, errors: out.split("\n").filter((l) => l.includes("error")).join("\n"), stats: stats(out) };
      }
    };
    const program: number[] = [];
    const baseline: number[] = [];
    let last = { ok: true, errors: "", stats: "" };
    let lastBaseline = "";
    for (let i = 0; i < ROUNDS; i++) {
      const trivial = await tsc(alone.dir);
      baseline.push(trivial.ms);
      lastBaseline = trivial.stats;
      const result = await tsc(work.dir);
      program.push(result.ms);
      last = result;
    }
    console.log(`tsc, program + types        median ${median(program).toFixed(0)} ms of ${program.map((t) => t.toFixed(0)).join(", ")}${last.ok ? "" : " (FAILS)"}; ${last.stats}`);
    console.log(`tsc, trivial file (baseline) median ${median(baseline).toFixed(0)} ms; ${lastBaseline}; ratio ${(median(program) / median(baseline)).toFixed(2)}`);
    if (!last.ok) console.log(last.errors.split("\n").slice(0, 6).join("\n"));
  } finally {
    await rm(work.dir, { recursive: true, force: true });
    await rm(alone.dir, { recursive: true, force: true });
  }
}

async function swaggerUi(url: string): Promise<void> {
  const page: number[] = [];
  const first: number[] = [];
  const open: number[] = [];
  const transferred: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const browser = await launchChromium(); // a fresh profile: nothing cached
    try {
      const tab = browser.context.pages()[0] ?? (await browser.context.newPage());
      const sizes: Promise<number>[] = [];
      tab.on("requestfinished", (request) => sizes.push(request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize)));
      const t0 = performance.now();
      await tab.goto(`${url}/docs`, { waitUntil: "domcontentloaded" });
      page.push(performance.now() - t0);
      await tab.locator(".opblock").first().waitFor();
      first.push(performance.now() - t0);
      const operation = tab.locator("#operations-jobs-createJob");
      open.push(await timed(async () => {
        await operation.locator(".opblock-summary").click();
        await operation.locator(".opblock-body .responses-wrapper").waitFor();
      }));
      transferred.push((await Promise.all(sizes)).reduce((a, b) => a + b, 0));
    } finally {
      await browser.close();
    }
  }
  const list = (values: number[]) => values.map((t) => t.toFixed(0)).join(", ");
  console.log(`Swagger UI page (baseline)   median ${median(page).toFixed(0)} ms of ${list(page)}`);
  console.log(`first operation rendered     median ${median(first).toFixed(0)} ms of ${list(first)}; ratio ${(median(first) / median(page)).toFixed(2)}`);
  console.log(`createJob opened             median ${median(open).toFixed(0)} ms of ${list(open)}`);
  console.log(`transferred                  median ${kb(median(transferred))}`);
}

execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
const dataDir = await mkdtemp(join(tmpdir(), "bench-docs-"));
const gateway = await startChild(["dist/src/main.js", "--port", "0", "--data-dir", dataDir], /listening on (http:\/\/[^\s]+)/);
try {
  console.log(`load average ${readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ")}`);
  await documentSizes(gateway.address);
  await typeCheck();
  await swaggerUi(gateway.address);
} finally {
  await gateway.stop();
  await rm(dataDir, { recursive: true, force: true });
}
