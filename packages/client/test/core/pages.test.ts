// Pages over a few hundred jobs, against the gateway: `for await` follows nextPageToken to the
// end, pages() gives one page at a time and resumes from a kept token, and the NDJSON stream
// gives the same jobs one at a time; a stream left early ends its request, and the gateway
// still closes.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { gatewayTo } from "../../../../test/helpers/gateway.js";
import type { GatewayUnderTest } from "../../../../test/helpers/gateway.js";
import { seedJobs, seededJobId } from "../../../../test/helpers/seed-jobs.js";
import { createClient } from "../../src/index.js";
import type { Client } from "../../src/index.js";

const COUNT = 350;
const ALL = Array.from({ length: COUNT }, (_, i) => seededJobId(i));

let dataDir: string;
let manager: RunningManager;
let gateway: GatewayUnderTest;
let client: Client;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), "client-pages-"));
  seedJobs(dataDir, COUNT);
  manager = await startManager({ port: 0, dataDir });
  gateway = await gatewayTo(manager.address, { listen: true });
  client = createClient({ baseUrl: gateway.url });
});

afterAll(async () => {
  await gateway.close();
  await manager.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe("a list of pages", () => {
  it("gives every job, in id order, following nextPageToken to the end", async () => {
    const ids: string[] = [];
    for await (const job of client.jobs.list({ tag: ["env:prod"] })) ids.push(job.jobId);
    expect(ids).toEqual(ALL);
  });

  it("gives a page at a time, and resumes from a kept token", async () => {
    const sizes: number[] = [];
    let kept: string | undefined;
    for await (const page of client.jobs.list({ pageSize: 100 }).pages()) {
      sizes.push(page.items.length);
      kept ??= page.nextPageToken;
    }
    expect(sizes).toEqual([100, 100, 100, 50]);
    const rest = await client.jobs.list({ pageSize: 100, pageToken: kept }).all();
    expect(rest.map((job) => job.jobId)).toEqual(ALL.slice(100));
  });

  it("narrows by the filters, and an empty result is one empty page", async () => {
    expect((await client.jobs.list({ tag: ["shard:3"], pageSize: 7 }).all()).length).toBe(Math.ceil((COUNT - 3) / 16));
    const pages: number[] = [];
    for await (const page of client.jobs.list({ tag: ["env:none"] }).pages()) pages.push(page.items.length);
    expect(pages).toEqual([0]);
  });
});

describe("the NDJSON stream", () => {
  it("gives every job, one at a time", async () => {
    const ids: string[] = [];
    for await (const job of client.jobs.stream({ hasTag: ["env"] })) ids.push(job.jobId);
    expect(ids).toEqual(ALL);
  });

  it("left early, ends its request; the gateway then closes (see afterAll) and lists again", async () => {
    const ids: string[] = [];
    for await (const job of client.jobs.stream()) {
      ids.push(job.jobId);
      if (ids.length === 5) break;
    }
    expect(ids).toEqual(ALL.slice(0, 5));
    const stream = client.jobs.stream({ limit: 3 });
    expect((await stream.next()).value).toMatchObject({ jobId: ALL[0] });
    await stream.return();
  });
});
