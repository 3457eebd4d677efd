// npm run bench:startup: time from `node <command>` to the first 200 from /healthz, for the
// built gateway (what `npm start` and the installed `norsk-manager-gateway` run), against a
// baseline measured in the same run: a bare node:http server answering /healthz, started the
// same way. Also the old `npm start`, which compiled with tsc before every start. Each is
// started RUNS times; the figure is the median.
import { execFileSync, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startManagerProcess } from "./processes.js";
import { percentile } from "./stats.js";

const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const BARE = `require("node:http").createServer((q, s) => s.end("ok")).listen(0, "127.0.0.1", function () { console.log("listening on http://127.0.0.1:" + this.address().port); });`;

/** Milliseconds from spawn to a 200 from /healthz, then stops the process. */
async function timeToHealthy(args: readonly string[], before?: () => void): Promise<number> {
  const started = performance.now();
  before?.();
  const child = spawn(process.execPath, args, { stdio: ["ignore", "pipe", "pipe"] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      let text = "";
      const onData = (chunk: Buffer): void => {
        text += chunk.toString();
        const match = /listening on (http:\/\/[^\s)]+)/.exec(text);
        if (match?.[1] !== undefined) resolve(match[1]);
      };
      child.stdout.on("data", onData);
      child.stderr.on("data", onData);
      child.once("exit", (code) => { reject(new Error(`exited with ${String(code)}: ${text}`)); });
    });
    for (;;) {
      const response = await fetch(`${url}/healthz`).catch(() => undefined);
      if (response?.status === 200) return performance.now() - started;
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  } finally {
    const exited = new Promise((resolve) => child.once("exit", resolve));
    child.kill("SIGTERM");
    await exited;
  }
}

async function medianOf(runs: number, measure: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) times.push(await measure());
  return percentile(times.sort((a, b) => a - b), 50);
}

const compile = (): void => {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
};

async function main(): Promise<void> {
  compile();
  const dataDir = await mkdtemp(join(tmpdir(), "bench-startup-"));
  const manager = await startManagerProcess(join(dataDir, "remote"));
  try {
    const rows: [string, number][] = [
      ["bare node:http server (baseline)", await medianOf(RUNS, () => timeToHealthy(["-e", BARE]))],
      ["gateway, --manager (built)", await medianOf(RUNS, () => timeToHealthy(["dist/src/main.js", "--port", "0", "--manager", manager.address]))],
      ["gateway, embedded Manager (built)", await medianOf(RUNS, () => timeToHealthy(["dist/src/main.js", "--port", "0", "--data-dir", join(dataDir, "embedded")]))],
      ["tsc, then the gateway (the old npm start)", await medianOf(Math.min(RUNS, 3), () => timeToHealthy(["dist/src/main.js", "--port", "0", "--data-dir", join(dataDir, "embedded")], compile))],
    ];
    const base = rows[0]?.[1] ?? 1;
    console.log(`| command | ms to /healthz (median of ${String(RUNS)}) | ratio |\n|---|---|---|`);
    for (const [name, ms] of rows) console.log(`| ${name} | ${ms.toFixed(0)} | ${(ms / base).toFixed(1)} |`);
  } finally {
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
