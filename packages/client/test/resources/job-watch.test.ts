// jobs.watch against the gateway: lists every matching job (all pages), then follows the
// narrowed stream, keeping a map readable at any moment and telling each change; a job whose
// tags stop matching leaves the map; after a gateway restart it lists again, and what changed
// while it was away comes as changes.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { gatewayTo } from "../../../../test/helpers/gateway.js";
import type { GatewayUnderTest } from "../../../../test/helpers/gateway.js";
import { eventually } from "../../../../test/helpers/listening-gateway.js";
import { createClient } from "../../src/index.js";
import type { Client, JobWatchChange } from "../../src/index.js";

let manager: RunningManager;
let current: GatewayUnderTest;
let client: Client;

beforeAll(async () => {
  manager = await startManager({ port: 0, dataDir: IN_MEMORY });
  current = await gatewayTo(manager.address, { listen: true });
  // The address stays; what answers there is the current gateway.
  const routed: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : input.toString());
    return fetch(`${current.url}${url.pathname}${url.search}`, init);
  };
  client = createClient({ baseUrl: "http://gateway.invalid", fetch: routed });
  for (let i = 0; i < 120; i++) await client.jobs.create({ jobId: `watched-${String(i).padStart(3, "0")}`, startDateTime: "2026-12-24T18:00:00Z", tags: { env: i % 2 === 0 ? "prod" : "dev" } });
});

afterAll(async () => {
  await current.close();
  await manager.close();
});

describe("jobs.watch", () => {
  it("lists, follows, drops what stops matching, and lists again after a gateway restart", async () => {
    const watch = client.jobs.watch({ tag: ["env:prod"] });
    const changes: JobWatchChange[] = [];
    watch.onChange((change) => changes.push(change));
    await watch.synced;
    expect(watch.jobs.size).toBe(60);
    expect(changes.filter((change) => change.type === "added")).toHaveLength(60);
    changes.length = 0;

    await client.jobs.create({ jobId: "watched-new", startDateTime: "2026-12-24T18:00:00Z", tags: { env: "prod" } });
    await client.jobs.patch("watched-000", { tags: { env: "dev" } });
    await client.jobs.delete("watched-002");
    await client.jobs.patch("watched-001", { description: "still dev" });
    await eventually(() => changes.length === 3, "three changes");
    expect(changes.map((change) => `${change.type} ${change.job.jobId}`)).toEqual(["added watched-new", "deleted watched-000", "deleted watched-002"]);
    expect(watch.jobs.has("watched-000")).toBe(false);
    changes.length = 0;

    // A restart: the stream drops, and while the watch is away a job is created and one deleted.
    const first = current;
    current = await gatewayTo(manager.address, { listen: true });
    await first.close();
    await client.jobs.create({ jobId: "watched-away", startDateTime: "2026-12-24T18:00:00Z", tags: { env: "prod" } });
    await client.jobs.delete("watched-004");
    await eventually(() => changes.length === 2, "the changes made while away", 10_000);
    expect(changes.map((change) => `${change.type} ${change.job.jobId}`).sort()).toEqual(["added watched-away", "deleted watched-004"]);
    // 60, one created and two deleted before the restart, one of each while away.
    expect(watch.jobs.size).toBe(59);

    watch.close();
    await watch.done;
  }, 30_000);

  it("iterates its changes, and ends when closed", async () => {
    const watch = client.jobs.watch({ tag: ["env:dev"] });
    await watch.synced;
    const iterating = (async () => {
      const seen: string[] = [];
      for await (const change of watch) seen.push(`${change.type} ${change.job.jobId}`);
      return seen;
    })();
    await client.jobs.patch("watched-003", { description: "changed" });
    await eventually(() => watch.jobs.get("watched-003")?.description === "changed", "the change in the map");
    watch.close();
    expect(await iterating).toEqual(["updated watched-003"]);
  });
});
