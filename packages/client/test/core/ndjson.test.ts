// A job stream that fails after it started, against the gateway: the Manager goes away in the
// middle of a long list, the gateway can no longer change the status, so it ends the NDJSON
// with an {"error": Problem} line, and the client throws it as its ProblemError after the jobs
// that came before it, so that no one takes part of a list for the whole.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { gatewayTo } from "../../../../test/helpers/gateway.js";
import type { GatewayUnderTest } from "../../../../test/helpers/gateway.js";
import { seedJobs, seededJobId } from "../../../../test/helpers/seed-jobs.js";
import { ProblemError, createClient } from "../../src/index.js";

const COUNT = 20_000;

let dataDir: string;
let manager: RunningManager;
let gateway: GatewayUnderTest;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "client-ndjson-"));
  seedJobs(dataDir, COUNT);
  manager = await startManager({ port: 0, dataDir });
  gateway = await gatewayTo(manager.address, { listen: true });
});

afterAll(async () => {
  await gateway.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the NDJSON stream", () => {
  it("throws the error line as its ProblemError when the Manager goes away in the middle, after the jobs before it", async () => {
    const client = createClient({ baseUrl: gateway.url });
    const ids: string[] = [];
    let closing: Promise<void> | undefined;
    const error = await (async () => {
      for await (const job of client.jobs.stream()) {
        ids.push(job.jobId);
        // Read slowly enough that the list is still coming from the Manager when it goes.
        if (ids.length === 3) closing = manager.close();
      }
    })().catch((caught: unknown) => caught);
    await closing;
    expect(ids.length).toBeLessThan(COUNT);
    expect(ids.slice(0, 3)).toEqual([seededJobId(0), seededJobId(1), seededJobId(2)]);
    expect(error).toBeInstanceOf(ProblemError);
    // The Manager, closing, cancels its stream (CANCELLED, 499), or is gone (UNAVAILABLE, 503).
    expect(["CANCELLED", "UNAVAILABLE"]).toContain((error as ProblemError).code);
  }, 30_000);
});
