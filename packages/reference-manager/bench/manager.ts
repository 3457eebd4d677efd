// npm run bench:manager: UpdateJob and JobSearch-by-id (id eq) at concurrency 32 through our
// gRPC client, against the reference Manager (on-disk SQLite in a temp dir) and, in the same
// run, against a server whose handlers do nothing but answer a fixed reply. The ratio
// reference/no-op says how much the Manager's own work (hashing, SQLite, history) costs;
// the target is at least 0.80, so that the Manager is not what limits a gateway benchmark.
//
// Both servers run as child processes (through tsx), as the client in this process would
// otherwise share their CPU. The two targets are measured in alternating rounds (see
// compare()), and each line also gives the server process's CPU time per call (Linux), which
// a busy machine disturbs less than req/s. BENCH_SECONDS (default 5, per target and call)
// and BENCH_CONCURRENCY (default 32) change the run; each call is warmed up for a second on
// each target first.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { cpus, tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { Server } from "@grpc/grpc-js";
import { create } from "@bufbuild/protobuf";
import { CurrentJobSchema, JobSchema, Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { addPartialService, createChannel, createClient, listen } from "norsk-manager-contract/grpc/index.js";
import type { Client, PartialServiceImpl } from "norsk-manager-contract/grpc/index.js";
import { drive, line, rate } from "../../../bench/stats.js";
import type { Result } from "../../../bench/stats.js";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = 5;
const WARMUP_SECONDS = 1;
const TARGET_RATIO = 0.8;

/** The benchmark's job: a realistic size (one service, tags, parameters), ~300 bytes. */
function benchJob(i: number, description = "benchmark job"): Job {
  return create(JobSchema, {
    jobId: { jobId: `bench-${String(i).padStart(3, "0")}` },
    description,
    tags: { env: "bench", index: String(i) },
    startDateTime: { seconds: 1_798_135_200n, nanos: 123_456_789 },
    services: [
      {
        name: "norsk",
        container: { case: "docker", value: { containerUrl: { url: "docker.io/norskvideo/norsk:latest" } } },
        parameters: { portMappings: [{ containerPort: 8080, hostPort: { case: "specific", value: { port: 80 } } }], cpuSet: [0, 1] },
      },
    ],
    launchConfigJson: "",
  });
}

// ---- the no-op server (run as a child: `tsx bench/manager.ts --serve-noop`) ----

// Served with the bridge's addPartialService rather than test/helpers/stub-manager.ts: a
// baseline must do nothing but answer, and the stub records every call (work and memory that
// grow with the run). The RPCs not named (none of them called here) answer UNIMPLEMENTED.
async function serveNoop(): Promise<void> {
  const reply = create(CurrentJobSchema, { job: { ...benchJob(0), currentHash: 1n } });
  const impl: PartialServiceImpl<typeof Manager> = {
    createJob: () => ({ hash: 1n }),
    updateJob: () => ({ hash: 1n }),
    // eslint-disable-next-line @typescript-eslint/require-await -- the bridge serves async iterables
    jobSearch: async function* () {
      yield reply;
    },
  };
  const server = new Server();
  addPartialService(server, Manager, impl);
  const port = await listen(server, "127.0.0.1:0");
  console.log(`no-op Manager listening on 127.0.0.1:${port}`);
  process.once("SIGTERM", () => {
    server.forceShutdown();
    process.exit(0);
  });
}

// ---- the server processes ----

interface ServerProcess {
  readonly address: string;
  /** CPU time (user + system) the process has used, in microseconds; undefined off Linux. */
  cpuMicros(): number | undefined;
  stop(): Promise<void>;
}

async function startServer(args: readonly string[]): Promise<ServerProcess> {
  const child = spawn(process.execPath, ["--import", "tsx", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const address = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout }).on("line", (line) => {
      const match = /listening on (\S+)/.exec(line);
      if (match?.[1] !== undefined) resolve(match[1]);
    });
    child.once("exit", (code) => {
      reject(new Error(`${args.join(" ")} exited with ${String(code)} before listening`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => {
    resolve();
  }));
  return {
    address,
    cpuMicros: () => {
      try {
        // /proc/<pid>/stat fields 14 and 15 (utime, stime), in clock ticks of 10 ms.
        const fields = readFileSync(`/proc/${String(child.pid)}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
        return (Number(fields[11]) + Number(fields[12])) * 10_000;
      } catch {
        return undefined;
      }
    },
    stop: async () => {
      if (child.exitCode === null) child.kill("SIGTERM");
      await exited;
    },
  };
}

// ---- the load ----

type Call = (i: number) => Promise<unknown>;

interface Target {
  readonly label: string;
  readonly server: ServerProcess;
  readonly update: Call;
  readonly search: Call;
  close(): void;
}

async function connect(label: string, server: ServerProcess): Promise<Target> {
  const channel = createChannel(server.address);
  const client: Client<typeof Manager> = createClient(Manager, channel);
  // One job per worker, so that concurrent updates do not all touch one row.
  for (let i = 0; i < CONCURRENCY; i++) await client.createJob(benchJob(i));
  return {
    label,
    server,
    update: (i) => client.updateJob(benchJob(i % CONCURRENCY, `benchmark job, update ${i}`)),
    search: async (i) => {
      const id = `bench-${String(i % CONCURRENCY).padStart(3, "0")}`;
      let found = 0;
      for await (const current of client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: id } } } }] })) {
        if (current.job !== undefined) found++;
      }
      if (found !== 1) throw new Error(`expected one job, found ${found}`);
    },
    close: () => {
      channel.close();
    },
  };
}

/** Sums rounds: requests and time add up; percentiles are those of the slowest round (conservative). */
function combine(name: string, rounds: readonly Result[]): Result {
  return {
    name,
    requests: rounds.reduce((n, r) => n + r.requests, 0),
    seconds: rounds.reduce((n, r) => n + r.seconds, 0),
    p50Ms: Math.max(...rounds.map((r) => r.p50Ms)),
    p99Ms: Math.max(...rounds.map((r) => r.p99Ms)),
    errors: rounds.reduce((n, r) => n + r.errors, 0),
  };
}

/**
 * Measures one operation on both targets, alternating between them in ROUNDS rounds (each
 * SECONDS / ROUNDS long), so that a change in the machine's load during the run (other
 * processes, CPU frequency) affects both sides alike and the ratio stays meaningful.
 */
async function compare(operation: "update" | "search", name: string, targets: readonly [Target, Target]): Promise<[Result, Result]> {
  for (const target of targets) await drive("warm-up", CONCURRENCY, WARMUP_SECONDS, target[operation]);
  const rounds: [Result[], Result[]] = [[], []];
  const cpu = [0, 0];
  for (let round = 0; round < ROUNDS; round++) {
    for (const [k, target] of targets.entries()) {
      const before = target.server.cpuMicros();
      rounds[k]?.push(await drive(name, CONCURRENCY, SECONDS / ROUNDS, target[operation]));
      const after = target.server.cpuMicros();
      cpu[k] = before === undefined || after === undefined ? Number.NaN : (cpu[k] ?? 0) + after - before;
    }
  }
  const results = targets.map((target, k) => combine(`${target.label} ${name}`, rounds[k] ?? []));
  const [a, b] = results;
  if (a === undefined || b === undefined) throw new Error("unreachable");
  for (const [k, result] of results.entries()) {
    // Server CPU per call: steadier than req/s on a shared machine, as it ignores waiting.
    const perCall = (cpu[k] ?? Number.NaN) / result.requests;
    console.log(`${line(result)}   server CPU ${Number.isNaN(perCall) ? "n/a" : `${perCall.toFixed(0)} µs/call`}`);
  }
  return [a, b];
}

async function main(): Promise<void> {
  if (process.argv.includes("--serve-noop")) {
    await serveNoop();
    return;
  }
  const dataDir = await mkdtemp(join(tmpdir(), "bench-manager-"));
  const children: ServerProcess[] = [];
  try {
    const reference = await startServer(["packages/reference-manager/src/main.ts", "--port", "0", "--data-dir", dataDir]);
    children.push(reference);
    const noop = await startServer(["packages/reference-manager/bench/manager.ts", "--serve-noop"]);
    children.push(noop);

    console.log(
      `concurrency ${CONCURRENCY}, ${SECONDS} s per target and call in ${ROUNDS} alternating rounds, ` +
        `Node ${process.version}, ${cpus().length} × ${cpus()[0]?.model ?? "unknown CPU"}`,
    );
    const targets = [await connect("no-op    ", noop), await connect("reference", reference)] as const;
    const results = [
      ["UpdateJob", await compare("update", "UpdateJob", targets)],
      ["JobSearch id eq", await compare("search", "JobSearch id eq", targets)],
    ] as const;
    for (const target of targets) target.close();

    let ok = true;
    for (const [name, [base, ref]] of results) {
      const ratio = rate(ref) / rate(base);
      ok &&= ratio >= TARGET_RATIO && ref.errors === 0 && base.errors === 0;
      console.log(`${name.padEnd(16)} reference/no-op = ${ratio.toFixed(3)} (target >= ${TARGET_RATIO.toFixed(2)})`);
    }
    console.log(ok ? "target met" : "target NOT met");
  } finally {
    for (const child of children) await child.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
