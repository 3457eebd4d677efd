// npm run bench:manager-streams: what EventStream opens and stalled searches cost the reference
// Manager when it holds a lot of data (issue 29, row 3). The Manager runs as a child process
// (through tsx) on an on-disk store in a temp dir; this process is only the client.
//
// 1. Stores JOBS_LARGE jobs of LARGE_BYTES and JOBS_SMALL of SMALL_BYTES through CreateJob
//    (~290 MB with the defaults); ACTIVE_JOBS of the small ones are started, and PENDING_JOBS
//    are given a start time due within every window opened below.
// 2. Opens OPENS EventStreams at once, each with a distinct pending_window_s (so nothing could
//    share a picture), and times each one's first initial_data_complete; meanwhile a loop
//    times JobSearch-by-id and UpdateJob on an unrelated job. Reports the Manager's CPU time
//    per open (Linux /proc).
// 3. Opens STALLED JobSearch streams over all jobs that never read a message, and reports the
//    Manager's RSS before, while they are open, and after they are cancelled.
// Environment: BENCH_LARGE, BENCH_SMALL, BENCH_OPENS, BENCH_STALLED override the counts.
import { mkdtemp, rm } from "node:fs/promises";
import { readFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import type { Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client as GrpcClient, credentials } from "@grpc/grpc-js";
import type { ClientReadableStream } from "@grpc/grpc-js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  EventStreamEventSchema,
  EventStreamRequestSchema,
  JobSchema,
  JobSearchRequestSchema,
  Manager,
} from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { createChannel, createClient } from "norsk-manager-contract/grpc/index.js";
import type { Client } from "norsk-manager-contract/grpc/index.js";
import { percentile } from "../../../bench/stats.js";
import { startChild } from "../../../bench/processes.js";

const JOBS_LARGE = Number(process.env.BENCH_LARGE ?? 256);
const JOBS_SMALL = Number(process.env.BENCH_SMALL ?? 1_500);
const LARGE_BYTES = 900_000;
const SMALL_BYTES = 20_000;
const ACTIVE_JOBS = 10;
const PENDING_JOBS = 10;
const OPENS = Number(process.env.BENCH_OPENS ?? 20);
const STALLED = Number(process.env.BENCH_STALLED ?? 400);
/** Stalled searches per connection: grpc-js would otherwise put them all on one. */
const STALLED_PER_CHANNEL = 50;
const CREATE_CONCURRENCY = 8;
const CLOCK_TICK_MS = 10;
/** How long an open may take before it counts as failed (the gateway's start deadline). */
const OPEN_DEADLINE_MS = 10_000;
const SETTLE_MS = 5_000;
const STALL_WATCH_MS = 60_000;
/** Distinct error messages of the opens and stalled searches, reported at the end. */
const errors = new Set<string>();

function benchJob(id: string, bytes: number, start?: bigint): Job {
  return create(JobSchema, {
    jobId: { jobId: id },
    description: "x".repeat(bytes),
    tags: { env: "bench" },
    ...(start === undefined ? {} : { startDateTime: { seconds: start, nanos: 0 } }),
    services: [{ name: "norsk", container: { case: "docker", value: { containerUrl: { url: "docker.io/norskvideo/norsk:latest" } } } }],
  });
}

function procStat(pid: number): { cpuMs: number; rssMb: number } {
  const fields = readFileSync(`/proc/${String(pid)}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  const cpuMs = (Number(fields[11]) + Number(fields[12])) * CLOCK_TICK_MS;
  const status = readFileSync(`/proc/${String(pid)}/status`, "utf8");
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return { cpuMs, rssMb: rssKb / 1024 };
}

async function pool(count: number, concurrency: number, task: (i: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await task(next++);
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

async function fill(client: Client<typeof Manager>, nowS: bigint): Promise<void> {
  const started = performance.now();
  await pool(JOBS_LARGE, CREATE_CONCURRENCY, (i) => client.createJob(benchJob(`large-${String(i).padStart(4, "0")}`, LARGE_BYTES), { timeoutMs: 60_000 }));
  await pool(JOBS_SMALL, CREATE_CONCURRENCY, (i) => {
    const pending = i >= ACTIVE_JOBS && i < ACTIVE_JOBS + PENDING_JOBS;
    return client.createJob(benchJob(`small-${String(i).padStart(4, "0")}`, SMALL_BYTES, pending ? nowS + 1n : undefined), { timeoutMs: 60_000 });
  });
  for (let i = 0; i < ACTIVE_JOBS; i++) {
    await client.startJob({ jobId: { jobId: `small-${String(i).padStart(4, "0")}` }, role: "main", nodeId: { nodeId: "node-1" } });
  }
  const mb = (JOBS_LARGE * LARGE_BYTES + JOBS_SMALL * SMALL_BYTES) / 1e6;
  console.log(`stored ${JOBS_LARGE + JOBS_SMALL} jobs (${mb.toFixed(0)} MB) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/** Time from the call to its first initial_data_complete, in ms (Infinity when it failed or took too long). */
function openOnce(channel: GrpcClient, window: number): { done: Promise<number>; cancel: () => void } {
  const path = `/${Manager.typeName}/EventStream`;
  const started = performance.now();
  const call: ClientReadableStream<Buffer> = channel.makeServerStreamRequest(
    path,
    (request: Buffer) => request,
    (bytes: Buffer) => bytes,
    Buffer.from(toBinary(EventStreamRequestSchema, create(EventStreamRequestSchema, { pendingWindowS: window }))),
    { deadline: Date.now() + OPEN_DEADLINE_MS },
  );
  const done = new Promise<number>((resolve) => {
    call.on("data", (bytes: Buffer) => {
      if (fromBinary(EventStreamEventSchema, bytes).event.case === "initialDataComplete") resolve(performance.now() - started);
    });
    call.on("error", (error: Error) => {
      errors.add(error.message.split(",")[0] ?? "");
      resolve(Number.POSITIVE_INFINITY);
    });
    call.on("end", () => {
      resolve(Number.POSITIVE_INFINITY);
    });
  });
  return {
    done,
    cancel: () => {
      call.cancel();
    },
  };
}

async function opens(address: string, client: Client<typeof Manager>, pid: number): Promise<void> {
  const channel = createChannel(address);
  const unrelated = "small-1499";
  let job: Job | undefined;
  const latencies: number[] = [];
  let unrelatedErrors = 0;
  const running = { stop: false };
  const background = (async () => {
    while (!running.stop) {
      const t0 = performance.now();
      try {
        const it = client.jobSearch({ jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: unrelated } } } }] }, { timeoutMs: OPEN_DEADLINE_MS });
        for await (const current of it) job = current.job;
        if (job !== undefined) job = { ...job, currentHash: (await client.updateJob(job, { timeoutMs: OPEN_DEADLINE_MS })).hash };
      } catch {
        unrelatedErrors++;
      }
      latencies.push((performance.now() - t0) / 2);
    }
  })();
  const before = procStat(pid);
  const calls = Array.from({ length: OPENS }, (_, i) => openOnce(channel, 3_600 + i));
  const times = await Promise.all(calls.map((c) => c.done));
  const after = procStat(pid);
  running.stop = true;
  await background;
  for (const c of calls) c.cancel();
  channel.close();
  const sorted = [...times].sort((a, b) => a - b);
  const failed = times.filter((t) => !Number.isFinite(t)).length;
  const lat = [...latencies].sort((a, b) => a - b);
  console.log(
    `${String(OPENS)} concurrent EventStream opens: first initial_data_complete p50 ${percentile(sorted, 50).toFixed(0)} ms, ` +
      `max ${percentile(sorted, 100).toFixed(0)} ms, ${String(failed)} failed (> ${String(OPEN_DEADLINE_MS)} ms or error); ` +
      `Manager CPU ${((after.cpuMs - before.cpuMs) / OPENS).toFixed(0)} ms per open`,
  );
  console.log(
    `unrelated JobSearch-by-id/UpdateJob meanwhile: ${String(latencies.length)} pairs, p50 ${percentile(lat, 50).toFixed(1)} ms, ` +
      `max ${percentile(lat, 100).toFixed(1)} ms per call, ${String(unrelatedErrors)} errors`,
  );
}

/**
 * A TCP relay to `target`; after deafen() it stops reading what the Manager sends, as a
 * client that stalls does (a grpc-js client in this process would keep reading regardless).
 */
async function relay(target: string): Promise<{ address: string; deafen: () => void; close: () => void }> {
  const [host = "", port = ""] = target.split(":");
  const sockets: Socket[] = [];
  const upstream: Socket[] = [];
  const server = createServer((inbound) => {
    const outbound = connect(Number(port), host);
    upstream.push(outbound);
    sockets.push(inbound, outbound);
    inbound.pipe(outbound).pipe(inbound);
    for (const socket of [inbound, outbound]) socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const bound = server.address();
  if (bound === null || typeof bound === "string") throw new Error("relay has no port");
  return {
    address: `127.0.0.1:${String(bound.port)}`,
    deafen: () => {
      for (const socket of upstream) {
        socket.unpipe();
        socket.pause();
      }
    },
    close: () => {
      for (const socket of sockets) socket.destroy();
      server.close();
    },
  };
}

async function stalled(address: string, pid: number): Promise<void> {
  const before = procStat(pid).rssMb;
  const proxy = await relay(address);
  const channels = Array.from({ length: Math.ceil(STALLED / STALLED_PER_CHANNEL) }, (_, i) =>
    new GrpcClient(proxy.address, credentials.createInsecure(), { "grpc.use_local_subchannel_pool": 1, "bench.channel": i }),
  );
  const request = Buffer.from(toBinary(JobSearchRequestSchema, create(JobSearchRequestSchema, {})));
  const calls: ClientReadableStream<Buffer>[] = [];
  for (let i = 0; i < STALLED; i++) {
    const channel = channels[Math.floor(i / STALLED_PER_CHANNEL)];
    if (channel === undefined) throw new Error("no channel");
    const call: ClientReadableStream<Buffer> = channel.makeServerStreamRequest(
      `/${Manager.typeName}/JobSearch`,
      (r: Buffer) => r,
      (b: Buffer) => b,
      request,
    );
    call.on("error", (error: Error) => {
      if (!error.message.includes("Cancelled")) errors.add(error.message.split(",")[0] ?? "");
    });
    call.on("data", () => undefined);
    calls.push(call);
  }
  // Every call has reached the Manager (its first answers came back): from now on none is read.
  await new Promise((r) => setTimeout(r, 1_000));
  proxy.deafen();
  // The peak RSS while they stay open: sampled each second until it has not grown for
  // SETTLE_MS, at most STALL_WATCH_MS.
  let during = procStat(pid).rssMb;
  let grewAt = performance.now();
  for (const until = performance.now() + STALL_WATCH_MS; performance.now() < until && performance.now() - grewAt < SETTLE_MS; ) {
    await new Promise((r) => setTimeout(r, 1_000));
    const rss = procStat(pid).rssMb;
    if (rss > during + 1) grewAt = performance.now();
    during = Math.max(during, rss);
  }
  for (const call of calls) call.cancel();
  for (const channel of channels) channel.close();
  proxy.close();
  await new Promise((r) => setTimeout(r, SETTLE_MS));
  const released = procStat(pid).rssMb;
  console.log(
    `${String(STALLED)} stalled JobSearch streams: Manager RSS ${before.toFixed(0)} MB before, ${during.toFixed(0)} MB at most while open, ` +
      `${released.toFixed(0)} MB ${String(SETTLE_MS / 1000)} s after they were cancelled`,
  );
}

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "bench-manager-streams-"));
  const manager = await startChild(["--import", "tsx", "packages/reference-manager/src/main.ts", "--port", "0", "--data-dir", dataDir], /listening on (\S+)/);
  try {
    const channel = createChannel(manager.address, { options: { "grpc.max_receive_message_length": 64 << 20 } });
    const client = createClient(Manager, channel, { defaultTimeoutMs: 30_000 });
    await fill(client, BigInt(Math.floor(Date.now() / 1000)));
    console.log(`Manager RSS after storing: ${procStat(manager.pid).rssMb.toFixed(0)} MB`);
    await opens(manager.address, client, manager.pid);
    await stalled(manager.address, manager.pid);
    for (const message of errors) console.log(`error: ${message.slice(0, 160)}`);
    channel.close();
  } finally {
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
