// npm run bench:pages: what one page of GET /v1/jobs costs (docs/guide/jobs.md, "Pages").
// 100,000 jobs seeded straight into the reference Manager's SQLite file; then, with pageSize
// 1000, page 1 (the first 1,001 jobs read) and page 100 (the last: all 100,000 jobs read and
// skipped up to the position), each asked ROUNDS times with its token, through the built gateway
// and Manager as child processes on loopback. Reports the median time of each page and the CPU
// time of the gateway and the Manager per page.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { seedJobs, seededJobId } from "../test/helpers/seed-jobs.js";
import { encodePageToken, filterDigest } from "../src/operations/search-page.js";
import { cpuSeconds, startGatewayProcess, startManagerProcess } from "./processes.js";

const JOBS = Number(process.env.BENCH_JOBS ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const PAGE_SIZE = 1000;

async function main(): Promise<void> {
  const dataDir = await mkdtemp(join(tmpdir(), "bench-pages-"));
  seedJobs(dataDir, JOBS);
  const manager = await startManagerProcess(dataDir);
  const gateway = await startGatewayProcess(manager.address);
  try {
    const pages = [1, Math.ceil(JOBS / PAGE_SIZE)];
    for (const page of pages) {
      // The token of page n names the last job of page n-1 (the token carries nothing else).
      const token = page === 1 ? "" : `&pageToken=${encodePageToken({ afterJobId: seededJobId((page - 1) * PAGE_SIZE - 1), filterDigest: filterDigest([]) })}`;
      const url = `${gateway.address}/v1/jobs?pageSize=${PAGE_SIZE}${token}`;
      const times: number[] = [];
      const cpu = { gateway: cpuSeconds(gateway.pid), manager: cpuSeconds(manager.pid) };
      for (let round = 0; round < ROUNDS; round++) {
        const started = performance.now();
        const res = await fetch(url);
        const body = (await res.json()) as { jobs: unknown[] };
        times.push(performance.now() - started);
        if (res.status !== 200 || body.jobs.length !== PAGE_SIZE) throw new Error(`page ${page}: ${res.status}, ${body.jobs.length} jobs`);
      }
      times.sort((a, b) => a - b);
      const median = times[Math.floor(times.length / 2)] ?? 0;
      const perPage = (now: number, before: number) => ((now - before) / ROUNDS).toFixed(2);
      console.log(
        `page ${page} of ${pages[1]} (pageSize ${PAGE_SIZE}, ${JOBS} jobs): median ${median.toFixed(0)} ms; CPU per page: gateway ${perPage(cpuSeconds(gateway.pid), cpu.gateway)} s, Manager ${perPage(cpuSeconds(manager.pid), cpu.manager)} s`,
      );
    }
  } finally {
    await gateway.stop();
    await manager.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

await main();
