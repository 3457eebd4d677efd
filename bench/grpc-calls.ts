// npm run bench:grpc: what one unary gRPC call costs our client, and what our channel settings
// change in it. UpdateJob and JobSearch-by-id straight to a reference Manager (child process,
// built dist/) from this process at 50 calls in flight, on channels that differ in one setting
// each, in alternating rounds; the figure is this process's CPU per call (the Manager's work is
// in its own process). The baseline is the channel as the gateway makes it; "node:http2 alone"
// makes the same calls without grpc-js (bench/raw-http2-client.ts), to show what grpc-js costs.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import type { ChannelOptions, Interceptor } from "@grpc/grpc-js";
import { Manager } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { createChannel, createClient } from "norsk-manager-contract/grpc/client.js";
import { CHANNEL_OPTIONS, connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import type { Client } from "norsk-manager-contract/grpc/types.js";
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

const job = (i: number) =>
  jobFromJson({
    jobId: `grpc-${i}`,
    startDateTime: "2026-12-24T18:00:00.123456789Z",
    description: "benchmark job",
    tags: { env: "bench" },
    services: [{ name: "norsk", docker: { containerUrl: "docker.io/norskvideo/norsk:latest" }, restart: "on_failure" }],
  });

interface Variant {
  readonly name: string;
  readonly manager: Client<typeof Manager>;
  readonly metadata: boolean;
  close(): void;
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-grpc-"));
  const manager = await startManagerProcess(dataDir);
  const metricsInterceptor: Interceptor = grpcMetricsInterceptor(new GatewayMetrics());
  const asConnected = (name: string, connection: ManagerConnection, metadata: boolean): Variant => ({
    name,
    manager: connection.manager,
    close: () => { connection.close(); },
    metadata,
  });
  const variants: Variant[] = [
    asConnected("as the gateway makes it (metrics interceptor, metadata)", connectManager(manager.address, { defaultTimeoutMs: 10_000, interceptors: [metricsInterceptor] }), true),
    asConnected("no interceptor", connectManager(manager.address, { defaultTimeoutMs: 10_000 }), true),
    asConnected("no interceptor, no metadata", connectManager(manager.address, { defaultTimeoutMs: 10_000 }), false),
  ];
  // The gateway's channel with one grpc-js option more: what that option saves per call.
  const withOption = (name: string, options: ChannelOptions): Variant => {
    const channel = createChannel(manager.address, { options: { ...CHANNEL_OPTIONS, ...options }, interceptors: [metricsInterceptor] });
    return { name, manager: createClient(Manager, channel, { defaultTimeoutMs: 10_000 }), close: () => { channel.close(); }, metadata: true };
  };
  const raw = rawHttp2Manager(manager.address);
  variants.push(
    { name: "node:http2 alone, no grpc-js (metadata)", manager: raw.manager, close: () => { raw.close(); }, metadata: true },
    withOption("+ grpc.enable_channelz 0", { "grpc.enable_channelz": 0 }),
    withOption("+ grpc.enable_retries 0", { "grpc.enable_retries": 0 }),
    withOption("+ both", { "grpc.enable_channelz": 0, "grpc.enable_retries": 0 }),
  );
  const jobs = Array.from({ length: JOBS }, (_, i) => job(i));
  try {
    for (const j of jobs) await variants[0]?.manager.createJob(j);
    const metadata = { "x-request-id": "0123456789abcdef", traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" };
    const calls = {
      UpdateJob: (v: Variant, i: number) => v.manager.updateJob(jobs[i % JOBS] ?? {}, v.metadata ? { metadata } : {}),
      "JobSearch by id": async (v: Variant, i: number) => {
        const request = { jobFilter: [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "eq" as const, value: `grpc-${i % JOBS}` } } } }] };
        for await (const _ of v.manager.jobSearch(request, v.metadata ? { metadata } : {})) {
          /* drain */
        }
      },
    };
    for (const [call, make] of Object.entries(calls)) {
      const cpu = new Map<string, number[]>();
      for (const v of variants) await drive("warm-up", CONCURRENCY, 1, (i) => make(v, i));
      for (let round = 0; round < ROUNDS; round++) {
        for (const v of round % 2 === 0 ? variants : [...variants].reverse()) {
          const before = process.cpuUsage();
          const result = await drive(v.name, CONCURRENCY, SECONDS, (i) => make(v, i));
          const used = process.cpuUsage(before);
          cpu.set(v.name, [...(cpu.get(v.name) ?? []), (used.user + used.system) / result.requests]);
        }
      }
      console.log(`\n${call}: client CPU per call (µs), median of ${ROUNDS} rounds of ${SECONDS} s at ${CONCURRENCY} in flight`);
      const baseline = percentile([...(cpu.get(variants[0]?.name ?? "") ?? [])].sort((a, b) => a - b), 50);
      for (const v of variants) {
        const us = percentile([...(cpu.get(v.name) ?? [])].sort((a, b) => a - b), 50);
        console.log(`  ${v.name.padEnd(58)} ${us.toFixed(0).padStart(5)} µs   ratio ${(us / baseline).toFixed(2)}`);
      }
    }
  } finally {
    for (const v of variants) v.close();
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
