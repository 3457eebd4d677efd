// npm run bench:stack: what would lower the floor's gRPC call (docs/benchmarks.md, "The stack's
// own floor"): UpdateJob and JobSearch-by-id straight to a reference Manager (child process,
// built dist/) from this process at 50 calls in flight, made four ways in the same run, in
// alternating order each round; the figure is this process's CPU per call (the Manager's is
// its own):
//   - grpc-js as the gateway configures it: the contract's client on connectManager's channel,
//     the metrics interceptor, x-request-id and traceparent metadata, a deadline;
//   - grpc-js's makeUnaryRequest / makeServerStreamRequest on the same kind of channel with the
//     method's serializers built once, no interceptor and no wrapper of ours (the same metadata
//     and deadline);
//   - for information, node:http2 alone (bench/raw-http2-client.ts: no deadline, retry,
//     reconnection or message limit);
//   - for information, @connectrpc/connect-node's gRPC transport (HTTP/2) with protobuf-es.
// The same messages, made once, for all four.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import { loadavg } from "node:os";
import { Metadata } from "@grpc/grpc-js";
import type { Client as GrpcChannel } from "@grpc/grpc-js";
import { createClient as createConnectClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { create } from "@bufbuild/protobuf";
import { JobSearchRequestSchema, Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import type { Job, JobSearchRequest } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { methodCodec } from "norsk-manager-contract/grpc/codec.js";
import { createChannel } from "norsk-manager-contract/grpc/client.js";
import { CHANNEL_OPTIONS, connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { jobFromJson } from "../src/json/index.js";
import { grpcMetricsInterceptor } from "../src/telemetry/grpc-metrics.js";
import { GatewayMetrics } from "../src/telemetry/metrics.js";
import { startManagerProcess } from "./processes.js";
import { rawHttp2Manager } from "./raw-http2-client.js";
import { drive, percentile } from "./stats.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const CONCURRENCY = 50;
const JOBS = 64;
const TIMEOUT_MS = 10_000;
const METADATA = { "x-request-id": "0123456789abcdef", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };

const jobs: readonly Job[] = Array.from({ length: JOBS }, (_, i) =>
  jobFromJson({
    jobId: `stack-${i}`,
    startDateTime: "2026-12-24T18:00:00.123456789Z",
    description: "benchmark job",
    tags: { env: "bench", group: `g${i % 16}`, index: String(i) },
    services: [{ name: "norsk", docker: { containerUrl: "docker.io/norskvideo/norsk:latest" }, restart: "on_failure", parameters: { cpuSet: [0, 1] } }],
  }),
);
const searches: readonly JobSearchRequest[] = jobs.map((job) =>
  create(JobSearchRequestSchema, { jobFilter: [{ jobFilter: { case: "idFilter", value: { comparison: { case: "eq", value: job.jobId?.jobId ?? "" } } } }] }),
);
const jobAt = (i: number): Job => jobs[i % JOBS] as Job;
const searchAt = (i: number): JobSearchRequest => searches[i % JOBS] as JobSearchRequest;

/** One way of making the two calls. */
interface Way {
  readonly name: string;
  readonly updateJob: (i: number) => Promise<unknown>;
  readonly jobSearch: (i: number) => Promise<unknown>;
  close(): void;
}

/** grpc-js's own calls on `channel`, the serializers built once, nothing of ours around them. */
function lowLevel(channel: GrpcChannel): Way {
  const update = methodCodec(Manager.method.updateJob);
  const search = methodCodec(Manager.method.jobSearch);
  const metadata = (): Metadata => {
    const m = new Metadata();
    for (const [key, value] of Object.entries(METADATA)) m.set(key, value);
    return m;
  };
  return {
    name: "grpc-js makeUnaryRequest, serializers built once",
    updateJob: (i) =>
      new Promise((resolve, reject) => {
        channel.makeUnaryRequest(update.path, update.serializeRequest, update.deserializeResponse, jobAt(i), metadata(), { deadline: Date.now() + TIMEOUT_MS }, (error, value) => {
          if (error === null) resolve(value);
          else reject(error);
        });
      }),
    jobSearch: (i) =>
      new Promise((resolve, reject) => {
        const call = channel.makeServerStreamRequest(search.path, search.serializeRequest, search.deserializeResponse, searchAt(i), metadata(), { deadline: Date.now() + TIMEOUT_MS });
        const found: unknown[] = [];
        call.on("data", (message: unknown) => found.push(message));
        call.on("error", reject);
        call.on("end", () => { resolve(found); });
      }),
    close: () => { channel.close(); },
  };
}

async function drain(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream) {
    /* read to the end, as the gateway does */
  }
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-stack-"));
  const manager = await startManagerProcess(dataDir);
  const configured = connectManager(manager.address, { defaultTimeoutMs: TIMEOUT_MS, interceptors: [grpcMetricsInterceptor(new GatewayMetrics())] });
  const raw = rawHttp2Manager(manager.address);
  const connect = createConnectClient(Manager, createGrpcTransport({ baseUrl: `http://${manager.address}` }));
  const ways: Way[] = [
    {
      name: "grpc-js as configured (our client, interceptor, metadata)",
      updateJob: (i) => configured.manager.updateJob(jobAt(i), { metadata: METADATA, timeoutMs: TIMEOUT_MS }),
      jobSearch: (i) => drain(configured.manager.jobSearch(searchAt(i), { metadata: METADATA, timeoutMs: TIMEOUT_MS })),
      close: () => { configured.close(); },
    },
    lowLevel(createChannel(manager.address, { options: CHANNEL_OPTIONS })),
    {
      name: "node:http2 alone (information only)",
      updateJob: (i) => raw.manager.updateJob(jobAt(i), { metadata: METADATA }),
      jobSearch: (i) => drain(raw.manager.jobSearch(searchAt(i), { metadata: METADATA })),
      close: () => { raw.close(); },
    },
    {
      name: "connect-node gRPC transport (information only)",
      updateJob: (i) => connect.updateJob(jobAt(i), { headers: METADATA, timeoutMs: TIMEOUT_MS }),
      jobSearch: (i) => drain(connect.jobSearch(searchAt(i), { headers: METADATA, timeoutMs: TIMEOUT_MS })),
      close: () => undefined,
    },
  ];
  try {
    for (const job of jobs) await configured.manager.createJob(job);
    console.log(`node ${process.version}; ${String(CONCURRENCY)} in flight; ${String(ROUNDS)} rounds of ${String(SECONDS)} s; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")}`);
    for (const call of ["updateJob", "jobSearch"] as const) {
      const cpu = new Map<string, number[]>();
      const rates = new Map<string, number[]>();
      for (const way of ways) await drive("warm-up", CONCURRENCY, 1, way[call]);
      for (let round = 0; round < ROUNDS; round++) {
        for (const way of round % 2 === 0 ? ways : [...ways].reverse()) {
          const before = process.cpuUsage();
          const result = await drive(way.name, CONCURRENCY, SECONDS, way[call]);
          const used = process.cpuUsage(before);
          if (result.errors > 0) console.error(`${way.name}: ${String(result.errors)} errors`);
          cpu.set(way.name, [...(cpu.get(way.name) ?? []), (used.user + used.system) / result.requests]);
          rates.set(way.name, [...(rates.get(way.name) ?? []), result.requests / result.seconds]);
        }
      }
      const median = (values: readonly number[] | undefined): number => percentile([...(values ?? [])].sort((a, b) => a - b), 50);
      const base = median(cpu.get(ways[0]?.name ?? ""));
      console.log(`\n${call === "updateJob" ? "UpdateJob" : "JobSearch by id"}: client CPU per call, medians (load average ${loadavg().map((l) => l.toFixed(1)).join(" ")})`);
      console.log("| way | calls/s | client CPU µs/call | ÷ grpc-js as configured |");
      console.log("|---|---|---|---|");
      for (const way of ways) {
        const us = median(cpu.get(way.name));
        console.log(`| ${way.name} | ${median(rates.get(way.name)).toFixed(0)} | ${us.toFixed(0)} | ${(us / base).toFixed(2)} |`);
      }
    }
  } finally {
    for (const way of ways) way.close();
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
