// A job stream that fails after it started, against the gateway: the Manager's connection is
// lost in the middle of a long list (a proxy between them closes it after the first messages,
// so that how fast the machine is does not decide it), the gateway can no longer change the
// status, so it ends the NDJSON
// with an {"error": Problem} line, and the client throws it as its ProblemError after the jobs
// that came before it, so that no one takes part of a list for the whole.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { gatewayTo } from "../../../../test/helpers/gateway.js";
import { startDroppingProxy } from "../../../../test/helpers/dropping-proxy.js";
import type { DroppingProxy } from "../../../../test/helpers/dropping-proxy.js";
import type { GatewayUnderTest } from "../../../../test/helpers/gateway.js";
import { seedJobs, seededJobId } from "../../../../test/helpers/seed-jobs.js";
import { ProblemError, createClient } from "../../src/index.js";

const COUNT = 20_000;

let dataDir: string;
let manager: RunningManager;
let proxy: DroppingProxy;
let gateway: GatewayUnderTest;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "client-ndjson-"));
  seedJobs(dataDir, COUNT);
  manager = await startManager({ port: 0, dataDir });
  proxy = await startDroppingProxy(manager.address);
  gateway = await gatewayTo(proxy.address, { listen: true });
});

afterAll(async () => {
  await gateway.close();
  await proxy.close();
  await manager.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("the NDJSON stream", () => {
  it("throws the error line as its ProblemError when the Manager's connection is lost in the middle, after the jobs before it", async () => {
    const client = createClient({ baseUrl: gateway.url });
    const ids: string[] = [];
    proxy.dropAfter("JobSearch", 100);
    const error = await (async () => {
      for await (const job of client.jobs.stream()) ids.push(job.jobId);
    })().catch((caught: unknown) => caught);
    expect(ids.length).toBeLessThan(COUNT);
    expect(ids.slice(0, 3)).toEqual([seededJobId(0), seededJobId(1), seededJobId(2)]);
    expect(error).toBeInstanceOf(ProblemError);
    // The connection under the stream is gone: UNAVAILABLE (503), or CANCELLED (499) as grpc-js may say it.
    expect(["CANCELLED", "UNAVAILABLE"]).toContain((error as ProblemError).code);
  }, 30_000);
});
