// npm run bench:churn: clients opening and dropping GET /v1/events (240 stream starts/s by
// default) while others read a job over REST and a few stay on the stream, against a gateway
// with its embedded reference Manager, as a child process (built dist/). Reports every status
// counted and the followers' `error` events. Each dropped client cancels a gRPC stream (an
// HTTP/2 RST_STREAM); a Node HTTP/2 server closes a session that receives them faster than
// ~33/s for long (nghttp2's rapid-reset limit), so what this measures is whether that hurts
// calls other than the cancelled ones. Any 5xx makes the exit code 1.
import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { runStreamChurn } from "../test/helpers/stream-churn.js";
import { startChild } from "./processes.js";

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CHURNERS = Number(process.env.BENCH_CHURNERS ?? 30);
const STREAMS_PER_SECOND = Number(process.env.BENCH_STREAMS_PER_SECOND ?? 240);
const READERS = Number(process.env.BENCH_READERS ?? 8);
const FOLLOWERS = Number(process.env.BENCH_FOLLOWERS ?? 4);

const total = (tally: Record<number, number>) => Object.values(tally).reduce((a, b) => a + b, 0);
const failures = (tally: Record<number, number>) =>
  Object.entries(tally).filter(([status]) => Number(status) >= 500 || Number(status) === 0).reduce((a, [, n]) => a + n, 0);

async function main(): Promise<void> {
  execFileSync(process.execPath, ["node_modules/typescript/bin/tsc", "-p", "tsconfig.build.json"], { stdio: "inherit" });
  const dataDir = await mkdtemp(join(tmpdir(), "bench-churn-"));
  const gateway = await startChild(["dist/src/main.js", "--port", "0", "--data-dir", dataDir], /listening on (http:\/\/[^\s]+)/);
  try {
    const created = await fetch(`${gateway.address}/v1/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jobId: "churn", startDateTime: "2026-12-24T18:00:00Z" }),
    });
    if (created.status !== 201) throw new Error(`create: ${created.status}`);
    const started = Date.now();
    const result = await runStreamChurn({
      url: gateway.address,
      jobId: "churn",
      durationMs: SECONDS * 1000,
      churners: CHURNERS,
      streamsPerSecond: STREAMS_PER_SECOND,
      readers: READERS,
      followers: FOLLOWERS,
    });
    const seconds = (Date.now() - started) / 1000;
    console.log(`\n${CHURNERS} clients opening and dropping GET /v1/events (target ${STREAMS_PER_SECOND}/s), ${READERS} REST readers, ${FOLLOWERS} followers, ${seconds.toFixed(1)} s; node ${process.version}\n`);
    console.log(`stream starts   ${total(result.streamStarts)} (${(total(result.streamStarts) / seconds).toFixed(0)}/s), failed ${failures(result.streamStarts)}: ${JSON.stringify(result.streamStarts)}`);
    console.log(`GET /v1/jobs/x  ${total(result.reads)}, failed ${failures(result.reads)}: ${JSON.stringify(result.reads)}`);
    console.log(`follower error events  ${JSON.stringify(result.followerErrors)} (status of each)`);
    console.log(`5xx problem codes      ${JSON.stringify(result.failureCodes)}`);
    if (failures(result.streamStarts) + failures(result.reads) > 0) process.exitCode = 1;
  } finally {
    await gateway.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
