// npm run bench: the gateway's GET /v1/jobs/{id} and PUT /v1/jobs/{id}, driven by autocannon,
// against the same JobSearch and UpdateJob calls made straight to the same Manager with our
// gRPC client, at the same concurrency, in the same run. The ratio gateway/direct is what a
// user pays for HTTP/JSON. The Manager and the gateway run as child processes (built dist/).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execFileSync } from "node:child_process";
import autocannon from "autocannon";
import { connectManager } from "../src/grpc/manager-connection.js";
import { jobFromJson } from "../src/json/index.js";
import { startGatewayProcess, startManagerProcess } from "./processes.js";
import { drive, line, rate } from "./stats.js";
import type { Result } from "./stats.js";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const JOBS = 64;

const jobJson = (i: number): Record<string, unknown> => ({
  jobId: `bench-${i}`,
  startDateTime: "2026-12-24T18:00:00.123456789Z",
  description: "benchmark job",
  tags: { env: "bench", index: String(i) },
  currentHash: "0",
  services: [
    {
      name: "norsk",
      docker: { containerUrl: "docker.io/norskvideo/norsk:latest" },
      restart: "on_failure",
      parameters: { portMappings: [{ containerPort: 8080, protocol: "tcp", specific: { port: 80 } }], cpuSet: [0, 1] },
    },
  ],
  launchConfigJson: "",
});

async function http(name: string, url: string, method: "GET" | "PUT", body?: (i: number) => string): Promise<Result> {
  let i = 0;
  const result = await autocannon({
    url,
    connections: CONCURRENCY,
    duration: SECONDS,
    requests: [
      {
        method,
        setupRequest: (request) => {
          const n = i++ % JOBS;
          return {
            ...request,
            path: `/v1/jobs/bench-${n}`,
            ...(body === undefined ? {} : { body: body(n), headers: { "content-type": "application/json" } }),
          };
        },
      },
    ],
  });
  if (result.errors + result.non2xx > 0) {
    console.error(`${name}: ${result.errors} transport errors (${result.timeouts} timeouts), status codes ${JSON.stringify(result.statusCodeStats)}`);
  }
  return {
    name,
    requests: result.requests.total,
    seconds: result.duration,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    errors: result.errors + result.non2xx,
  };
}

async function main(): Promise<void> {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-gateway-"));
  const manager = await startManagerProcess(dataDir);
  const gateway = await startGatewayProcess(manager.address);
  const direct = connectManager(manager.address, 10_000);
  try {
    for (let i = 0; i < JOBS; i++) await direct.manager.createJob(jobFromJson(jobJson(i)));
    const jobs = Array.from({ length: JOBS }, (_, i) => jobFromJson(jobJson(i)));
    const idFilter = (n: number) => ({ jobFilter: [{ jobFilter: { case: "idFilter" as const, value: { comparison: { case: "eq" as const, value: `bench-${n}` } } } }] });

    // Warm both paths (JIT, connections) before measuring.
    await drive("warm-up direct", CONCURRENCY, 1, async (i) => {
      for await (const _ of direct.manager.jobSearch(idFilter(i % JOBS))) { /* drain */ }
    });
    await http("warm-up gateway", gateway.address, "GET");

    const results: [Result, Result][] = [];
    results.push([
      await http("gateway GET /v1/jobs/{id}", gateway.address, "GET"),
      await drive("direct  JobSearch id eq (gRPC)", CONCURRENCY, SECONDS, async (i) => {
        for await (const _ of direct.manager.jobSearch(idFilter(i % JOBS))) { /* drain */ }
      }),
    ]);
    results.push([
      await http("gateway PUT /v1/jobs/{id}", gateway.address, "PUT", (n) => JSON.stringify(jobJson(n))),
      await drive("direct  UpdateJob (gRPC)", CONCURRENCY, SECONDS, (i) => direct.manager.updateJob(jobs[i % JOBS] ?? {})),
    ]);

    console.log(`\nconcurrency ${CONCURRENCY}, ${SECONDS} s per run, ${JOBS} jobs; node ${process.version}\n`);
    for (const [viaGateway, viaGrpc] of results) {
      console.log(line(viaGateway));
      console.log(line(viaGrpc));
      console.log(`${"ratio gateway/direct".padEnd(44)} ${(rate(viaGateway) / rate(viaGrpc)).toFixed(2).padStart(8)}\n`);
    }
    const failures = gateway.output.filter((l) => l.includes('"level":50'));
    if (failures.length > 0) console.error(`gateway logged ${failures.length} errors; first:\n${failures[0] ?? ""}`);
  } finally {
    direct.close();
    await gateway.stop();
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
