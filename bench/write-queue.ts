// The per-job write queue alone (src/operations/job-write-queue.ts), in this process: CPU per
// write of 50 concurrent writers, each on a job of its own (no write waits) or all on one job
// (every write but one waits), each write with its request's disconnect signal and deadline,
// as the routes give them; the write itself is one turn of the event loop (a stand-in for the
// Manager call). Exclusive writes (PATCH, conditional PUT) and shared ones (unconditional PUT)
// are measured apart. BENCH_BASELINE_QUEUE=<path of another build's job-write-queue.js> adds
// that build's queue, measured in the same rounds. 3 alternating rounds; medians.
import { JobWriteQueue } from "../src/operations/job-write-queue.js";
import { percentile } from "./stats.js";

const WRITERS = 50;
const WRITES = Number(process.env.BENCH_WRITES ?? 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);

interface Queue {
  run<T>(jobId: string, options: { signal?: AbortSignal; timeoutMs?: number }, write: () => Promise<T>, how?: { shared?: boolean }): Promise<T>;
}

const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** CPU µs per write of WRITES writes by WRITERS concurrent writers. */
async function measure(queue: Queue, oneJob: boolean, shared: boolean): Promise<number> {
  let left = WRITES;
  const writer = async (i: number): Promise<void> => {
    while (left-- > 0) {
      const request = new AbortController();
      await queue.run(oneJob ? "job" : `job-${i}`, { signal: request.signal, timeoutMs: 10_000 }, turn, { shared });
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: WRITERS }, (_, i) => writer(i)));
  const used = process.cpuUsage(before);
  return (used.user + used.system) / WRITES;
}

async function main(): Promise<void> {
  const queues: [string, () => Queue][] = [["this build", () => new JobWriteQueue()]];
  const baselinePath = process.env.BENCH_BASELINE_QUEUE;
  if (baselinePath !== undefined) {
    const baseline = (await import(baselinePath)) as { JobWriteQueue: new () => Queue };
    queues.push(["baseline", () => new baseline.JobWriteQueue()]);
  }
  const cases = [
    { name: "exclusive, a job each", oneJob: false, shared: false },
    { name: "exclusive, one job", oneJob: true, shared: false },
    { name: "shared, one job", oneJob: true, shared: true },
  ];
  const results = new Map<string, number[]>();
  for (const [, make] of queues) for (const c of cases) await measure(make(), c.oneJob, c.shared); // warm-up
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? queues : [...queues].reverse();
    for (const [name, make] of order) {
      for (const c of cases) {
        const key = `${name}: ${c.name}`;
        results.set(key, [...(results.get(key) ?? []), await measure(make(), c.oneJob, c.shared)]);
      }
    }
  }
  console.log(`node ${process.version}; ${WRITERS} writers, ${WRITES} writes per case, ${ROUNDS} rounds; medians`);
  console.log("| queue | writes | CPU µs/write | / a job each |");
  console.log("|---|---|---|---|");
  for (const [name] of queues) {
    const spread = percentile([...(results.get(`${name}: exclusive, a job each`) ?? [])].sort((a, b) => a - b), 50);
    for (const c of cases) {
      const us = percentile([...(results.get(`${name}: ${c.name}`) ?? [])].sort((a, b) => a - b), 50);
      console.log(`| ${name} | ${c.name} | ${us.toFixed(1)} | ${(us / spread).toFixed(2)} |`);
    }
  }
}

await main();
