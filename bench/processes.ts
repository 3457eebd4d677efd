// Child processes for benchmarks: the reference Manager and the gateway, each in its own
// process (as deployed), so that the load generator in this process does not steal their CPU.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import type { AddressInfo } from "node:net";
import type { ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import ts from "typescript";

export interface Child {
  /** The first capture group of `ready` in the child's output: an address or a URL. */
  readonly address: string;
  /** The child's process id, e.g. to read its memory from /proc/<pid>/status. */
  readonly pid: number;
  /** Every line the child has printed so far (stdout and stderr). */
  readonly output: readonly string[];
  stop(): Promise<void>;
}

/** Runs `command` (default: this node) with `args`; resolves once a line of its output matches `ready`. */
export async function startChild(args: readonly string[], ready: RegExp, command = process.execPath): Promise<Child> {
  const child: ChildProcess = spawn(command, args, { stdio: ["ignore", "pipe", "pipe"] });
  const output: string[] = [];
  const address = await new Promise<string>((resolve, reject) => {
    const onLine = (line: string): void => {
      output.push(line);
      const match = ready.exec(line);
      if (match?.[1] !== undefined) resolve(match[1]);
    };
    if (child.stdout) createInterface({ input: child.stdout }).on("line", onLine);
    if (child.stderr) createInterface({ input: child.stderr }).on("line", onLine);
    child.once("exit", (code) => {
      reject(new Error(`${args.join(" ")} exited with ${String(code)}:\n${output.join("\n")}`));
    });
  });
  return {
    address,
    output,
    pid: child.pid ?? 0,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) {
          resolve();
          return;
        }
        child.once("exit", () => {
          resolve();
        });
        child.kill("SIGTERM");
      }),
  };
}

/** BENCH_MANAGER_NODE_ARGS gives the Manager's node flags, e.g. "--cpu-prof --cpu-prof-dir /tmp/prof". */
export function startManagerProcess(dataDir: string): Promise<Child> {
  const nodeArgs = (process.env.BENCH_MANAGER_NODE_ARGS ?? "").split(" ").filter((arg) => arg !== "");
  return startChild([...nodeArgs, "packages/reference-manager/dist/main.js", "--port", "0", "--data-dir", dataDir], /listening on (\S+)/);
}

/**
 * The node flags the command runs with: those of its script's first line (`#!/usr/bin/env -S
 * node <flags>`), so that a benchmark measures the gateway as `npm start` and the image run it.
 */
export function commandNodeFlags(script = "dist/src/main.js"): string[] {
  const shebang = readFileSync(script, "utf8").split("\n", 1)[0] ?? "";
  const match = /^#!\/usr\/bin\/env (?:-S )?node(.*)$/.exec(shebang);
  if (match === null) throw new Error(`${script} does not start with a node shebang: ${shebang}`);
  return (match[1] ?? "").split(" ").filter((flag) => flag !== "");
}

/** `nodeArgs` go to node itself, before the script (e.g. --cpu-prof), after the command's own (commandNodeFlags). */
export function startGatewayProcess(managerAddress: string, extraArgs: readonly string[] = [], nodeArgs: readonly string[] = []): Promise<Child> {
  return startChild(
    [...commandNodeFlags(), ...nodeArgs, "dist/src/main.js", "--port", "0", "--manager", managerAddress, ...extraArgs],
    /listening on (http:\/\/[^\s]+)/,
  );
}

/**
 * A bench server written in TypeScript (`bench/<name>.ts`), transpiled to dist/bench/<name>.js,
 * beside the build, so that plain node runs it and it finds fastify and the built dist/src.
 */
function transpiledBenchServer(name: string): string {
  const source = readFileSync(`bench/${name}.ts`, "utf8");
  const { outputText } = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true } });
  mkdirSync("dist/bench", { recursive: true });
  writeFileSync(`dist/bench/${name}.js`, outputText);
  return `dist/bench/${name}.js`;
}

/** "bare fastify" (bench/bare-fastify.ts) answering with the texts of `answersFile`, run by plain node. */
export function startBareFastify(answersFile: string): Promise<Child> {
  return startChild([transpiledBenchServer("bare-fastify"), answersFile], /listening on (http:\/\/[^\s]+)/);
}

/**
 * "the floor" (bench/floor-gateway.ts): the least gateway of this stack, in front of the Manager
 * at `managerAddress`, with the command's node flags (commandNodeFlags), as the gateway runs;
 * with `features`, the floor and those of this gateway's features (bench/floor-gateway.ts, FEATURES);
 * `nodeArgs` go to node after the command's flags, as startGatewayProcess's do.
 */
export function startFloorGateway(managerAddress: string, features: readonly string[] = [], nodeArgs: readonly string[] = []): Promise<Child> {
  transpiledBenchServer("floor-features");
  return startChild([...commandNodeFlags(), ...nodeArgs, transpiledBenchServer("floor-gateway"), managerAddress, features.join(",")], /listening on (http:\/\/[^\s]+)/);
}

/**
 * CPU time of a process and of its children (a --workers primary and its workers), user +
 * system, in seconds: /proc/<pid>/task/<tid>/children, read at each call, so a replaced worker's
 * CPU before its death is lost (the bench's rounds have none).
 */
export function treeCpuSeconds(pid: number): number {
  let total = cpuSeconds(pid);
  for (const child of childrenOf(pid)) total += treeCpuSeconds(child);
  return total;
}

function childrenOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).flatMap((tid) =>
      readFileSync(`/proc/${pid}/task/${tid}/children`, "utf8").split(" ").filter((id) => id !== "").map(Number),
    );
  } catch {
    return [];
  }
}

/** CPU time a process has used, user + system, in seconds (Linux: utime and stime in USER_HZ 100 ticks). */
export function cpuSeconds(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A process's resident set, in KiB (Linux). */
export function rssKiB(pid: number): number {
  const match = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(match?.[1] ?? Number.NaN);
}

/**
 * The peer, a grpc-gateway build for this API (flags -listen and -backend; see docs/benchmarks.md for
 * how it is built), on a free loopback port in front of `backend`.
 */
export async function startPeer(binary: string, backend: string): Promise<Child> {
  const port = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port: free } = probe.address() as AddressInfo;
      probe.close(() => {
        resolve(free);
      });
    });
  });
  const child = await startChild(["-listen", `127.0.0.1:${port}`, "-backend", backend], /listening on (\S+) ->/, binary);
  return { ...child, address: `http://${child.address}` };
}

/**
 * Samples of each of `count` gateways, taken in turn in `rounds` rounds after a warm-up round
 * (not kept), in alternating order, so that the machine's drift falls on all of them alike.
 */
export async function sampleInRounds<S>(count: number, rounds: number, measure: (index: number) => Promise<S>): Promise<S[][]> {
  const samples: S[][] = Array.from({ length: count }, () => []);
  for (let round = 0; round <= rounds; round++) {
    // Alternating order: none of them always runs first, or always after the same one.
    const order = [...Array.from({ length: count }, (_, index) => index)];
    if (round % 2 === 1) order.reverse();
    for (const index of order) {
      const sample = await measure(index);
      if (round > 0) samples[index]?.push(sample);
    }
  }
  return samples;
}
