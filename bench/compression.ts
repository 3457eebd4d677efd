// npm run bench:compression: what compression does to a 1,000-job list (GET /v1/jobs as JSON
// and as NDJSON, seeded jobs of one service each): the bytes on the wire with each coding the
// gateway offers, and the CPU time of coding the list once, for gzip at zlib's default level
// (the gateway's), brotli at BROTLI_QUALITY (the gateway's) and brotli at its maximum (what
// the gateway does not use, and why). The gateway and the reference Manager run in this
// process; the CPU is measured around the codings alone, ROUNDS times each, median reported.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { brotliCompressSync, constants, gzipSync } from "node:zlib";
import { connectManager } from "norsk-manager-contract/grpc/manager-connection.js";
import { startManager } from "norsk-reference-manager";
import { buildApp } from "../src/app.js";
import { BROTLI_QUALITY } from "../src/server/compression.js";
import { seedJobs } from "../test/helpers/seed-jobs.js";

const COUNT = 1_000;
const ROUNDS = 30;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** The median CPU time of `code`, in ms. */
function cpuMs(code: () => Buffer): number {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const before = process.cpuUsage();
    code();
    const used = process.cpuUsage(before);
    times.push((used.user + used.system) / 1000);
  }
  return median(times);
}

const dataDir = await mkdtemp(join(tmpdir(), "bench-compression-"));
seedJobs(dataDir, COUNT);
const manager = await startManager({ port: 0, dataDir });
const connection = connectManager(manager.address, { defaultTimeoutMs: 10_000 });
const app = await buildApp({ connection });
try {
  for (const [format, accept] of [["JSON", "application/json"], ["NDJSON", "application/x-ndjson"]] as const) {
    const sizes: string[] = [];
    for (const coding of ["identity", "gzip", "br"]) {
      const answer = await app.inject({ method: "GET", url: "/v1/jobs", headers: { host: "localhost", accept, "accept-encoding": coding } });
      sizes.push(`${coding} ${answer.rawPayload.length} B`);
    }
    console.log(`${format}, ${COUNT} jobs on the wire: ${sizes.join(", ")}`);
  }
  const body = Buffer.from((await app.inject({ method: "GET", url: "/v1/jobs", headers: { host: "localhost" } })).payload);
  const codings: [string, () => Buffer][] = [
    ["gzip (level 6, the gateway's)", () => gzipSync(body)],
    [`br quality ${BROTLI_QUALITY} (the gateway's)`, () => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY } })],
    ["br quality 11 (not used)", () => brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })],
  ];
  for (const [name, code] of codings) {
    console.log(`${name}: ${code().length} B, CPU ${cpuMs(code).toFixed(2)} ms per list (median of ${ROUNDS})`);
  }
} finally {
  await app.close();
  connection.close();
  await manager.close();
}
