// npm run bench:pipeline: what this gateway's request pipeline costs in this process, without
// sockets or gRPC, so that a change to it can be measured on a busy machine: the app as the
// command builds it (buildApp with the command's settings, metrics, and a pino logger at info
// writing to /dev/null) in front of a stub Manager client that answers at once (a job read: the
// one stored job; UpdateJob: a hash), driven by app.inject, one request at a time. CPU per
// request (process.cpuUsage) is the best of BENCH_BATCHES batches of PER_BATCH requests, each
// variant in turn in each round, so that the machine's drift falls on all of them alike.
// Variants: as the command runs it (but load shedding, which would take the batches for an
// overload), and with each feature that has a setting turned off. What a
// request costs through the whole stack at 50 connections is npm run bench's.
import { open } from "node:fs/promises";
import pino from "pino";
import type { FastifyInstance, InjectOptions } from "fastify";
import type { ManagerConnection } from "norsk-manager-contract/grpc/manager-connection.js";
import type { CurrentJob } from "norsk-manager-contract/gen/norsk/api/manager_pb.js";
import { buildApp } from "../src/app.js";
import type { AppOptions } from "../src/app.js";
import { jobFromJson } from "../src/json/index.js";
import { GatewayMetrics } from "../src/telemetry/metrics.js";
import { LOG_SERIALIZERS } from "../src/telemetry/request-log.js";
import { JOB_BODY } from "./micro.js";

const BATCHES = Number(process.env.BENCH_BATCHES ?? 10);
const PER_BATCH = 300;
const JOBS = 64;

const body = (i: number): Record<string, unknown> => ({ ...JOB_BODY, jobId: `job-${i % JOBS}` });
const stored: CurrentJob[] = Array.from({ length: JOBS }, (_, i) => {
  const job = jobFromJson(body(i));
  job.currentHash = 1234567890123456789n;
  return { job, state: 0 } as unknown as CurrentJob;
});

/** The Manager's answers, at once: the job a read asks for, a hash for a write. */
function stubConnection(): ManagerConnection {
  const manager = {
    jobSearch: (request: { jobFilter: { jobFilter: { value: { comparison: { value: string } } } }[] }) => ({
      [Symbol.asyncIterator]: () => {
        const id = request.jobFilter[0]?.jobFilter.value.comparison.value ?? "";
        const found = stored[Number(id.slice(4))];
        return [found].filter((job) => job !== undefined)[Symbol.iterator]();
      },
    }),
    updateJob: () => Promise.resolve({ hash: 42n }),
  };
  return { manager, streams: manager } as unknown as ManagerConnection;
}

interface Variant {
  readonly name: string;
  readonly options: Partial<AppOptions>;
}

const VARIANTS: readonly Variant[] = [
  { name: "as the command runs it", options: {} },
  { name: "access log off", options: { accessLog: "off" } },
  { name: "shared reads off", options: { coalesceReads: "off" } },
  { name: "no metrics", options: { metrics: undefined } },
];

const REQUESTS: Readonly<Record<string, (i: number) => InjectOptions>> = {
  "GET one of 64 jobs": (i: number) => ({ method: "GET" as const, url: `/v1/jobs/job-${i % JOBS}` }),
  "PUT one of 64 jobs": (i: number) => ({ method: "PUT" as const, url: `/v1/jobs/job-${i % JOBS}`, payload: JSON.stringify(body(i)), headers: { "content-type": "application/json" } }),
};

async function cpuPerRequest(app: FastifyInstance, make: (i: number) => InjectOptions): Promise<number> {
  const before = process.cpuUsage();
  for (let i = 0; i < PER_BATCH; i++) {
    const response = await app.inject(make(i));
    if (response.statusCode !== 200) {
      console.error(`${String(response.statusCode)}: ${response.body}`);
      process.exit(1);
    }
  }
  const used = process.cpuUsage(before);
  return (used.user + used.system) / PER_BATCH;
}

async function main(): Promise<void> {
  const devNull = await open("/dev/null", "w");
  const logger = pino({ level: "info", serializers: LOG_SERIALIZERS }, pino.destination({ fd: devNull.fd, sync: false }));
  const apps = await Promise.all(
    VARIANTS.map(async (v) => {
      const metrics = "metrics" in v.options ? undefined : new GatewayMetrics();
      // Load shedding off: this loop holds the event loop for whole batches, which it would take for overload.
      const app = await buildApp({ connection: stubConnection(), logger, metrics, shedEventLoopDelayMs: 0, ...v.options });
      await app.ready();
      return app;
    }),
  );
  try {
    for (const [request, make] of Object.entries(REQUESTS)) {
      const best = VARIANTS.map(() => Infinity);
      for (let batch = 0; batch < BATCHES; batch++) {
        const order = batch % 2 === 0 ? [...apps.keys()] : [...apps.keys()].reverse();
        for (const index of order) best[index] = Math.min(best[index] ?? Infinity, await cpuPerRequest(apps[index] as FastifyInstance, make));
      }
      const base = best[0] ?? Number.NaN;
      console.log(`\n${request}: CPU µs per request, best of ${String(BATCHES)} batches of ${String(PER_BATCH)} (app.inject, stub Manager)`);
      for (const [index, v] of VARIANTS.entries()) {
        const us = best[index] ?? Number.NaN;
        console.log(`  ${v.name.padEnd(28)} ${us.toFixed(1).padStart(7)} µs   ${index === 0 ? "" : `${(us - base).toFixed(1)} µs against the first`}`);
      }
    }
  } finally {
    await devNull.close();
  }
}

await main();
// Not app.close(): a closing app waits for its keep-alive and timers; the figures are out.
process.exit(0);
