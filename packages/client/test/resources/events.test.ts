// The event streams against the gateway: typed events, a union by name narrowed by `type`;
// a clean end on abort; an `error` event thrown as its typed ProblemError; a stream that goes
// on across a gateway restart (the client reconnects after the stream's retry:, sending
// Last-Event-ID, and the new connection's picture starts again at id 1).
import { afterEach, describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { gatewayTo } from "../../../../test/helpers/gateway.js";
import type { GatewayUnderTest } from "../../../../test/helpers/gateway.js";
import { UnavailableError, createClient } from "../../src/index.js";
import type { ManagerEvent } from "../../src/index.js";

const JOB = { startDateTime: "2026-12-24T18:00:00Z", tags: { env: "prod" } };

let manager: RunningManager;
const gateways: GatewayUnderTest[] = [];

async function gateway(): Promise<GatewayUnderTest> {
  const started = await gatewayTo(manager.address, { listen: true });
  gateways.push(started);
  return started;
}

afterEach(async () => {
  for (const started of gateways.splice(0)) await started.close();
  await manager.close();
});

/** The next event of `events`; throws if the stream ended instead. */
async function next<E>(events: AsyncIterator<E, void>): Promise<E> {
  const result = await events.next();
  if (result.done === true) throw new Error("the stream ended");
  return result.value;
}

describe("client.events", () => {
  it("gives typed events, by name, narrowed by type, and ends cleanly on abort", async () => {
    manager = await startManager({ port: 0, dataDir: IN_MEMORY });
    const client = createClient({ baseUrl: (await gateway()).url });
    const controller = new AbortController();
    const events = client.events({ type: ["jobUpdated"] }, { signal: controller.signal });
    expect(await next(events)).toMatchObject({ event: "initialDataComplete", id: "1", connection: 1 });
    await client.jobs.create({ ...JOB, jobId: "events-1" });
    const event = await next(events);
    if (event.event !== "jobUpdated") throw new Error(`unexpected ${event.event}`);
    // Narrowed: data is a JobUpdated, its job typed.
    expect(event.data.jobWithHistory?.job?.jobId).toBe("events-1");
    controller.abort();
    expect(await events.next()).toEqual({ done: true, value: undefined });
  });

  it("throws an error event as its ProblemError when it may not reconnect: the Manager went away", async () => {
    manager = await startManager({ port: 0, dataDir: IN_MEMORY });
    const client = createClient({ baseUrl: (await gateway()).url });
    const events = client.events({}, { reconnect: false });
    expect(await next(events)).toMatchObject({ event: "initialDataComplete" });
    await manager.close();
    const error = await events.next().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UnavailableError);
    expect([(error as UnavailableError).code, (error as UnavailableError).response]).toEqual(["UNAVAILABLE", undefined]);
    manager = await startManager({ port: 0, dataDir: IN_MEMORY });
  });

  it("client.status gives the status channel's hello, typed", async () => {
    manager = await startManager({ port: 0, dataDir: IN_MEMORY });
    const client = createClient({ baseUrl: (await gateway()).url });
    const status = client.status();
    const hello = await next(status);
    await status.return();
    expect(hello.event).toBe("hello");
    expect(hello.event === "hello" ? typeof hello.data : undefined).toBe("object");
  });

  it("goes on across a gateway restart: reconnects with Last-Event-ID, and a fresh picture on connection 2", async () => {
    manager = await startManager({ port: 0, dataDir: IN_MEMORY });
    let current = await gateway();
    const lastEventIds: (string | null)[] = [];
    // The gateway's address as the client knows it stays; what answers there is the current gateway.
    const routed: typeof fetch = (input, init) => {
      const url = new URL(input instanceof Request ? input.url : input.toString());
      lastEventIds.push(new Headers(init?.headers).get("last-event-id"));
      return fetch(`${current.url}${url.pathname}${url.search}`, init);
    };
    const client = createClient({ baseUrl: "http://gateway.invalid", fetch: routed });
    const seen: ManagerEvent[] = [];
    const events = client.events({ type: ["jobUpdated"] });
    seen.push(await next(events));
    await client.jobs.create({ ...JOB, jobId: "before-restart" });
    seen.push(await next(events));
    const restarted = gateway();
    const first = current;
    current = await restarted;
    await first.close();
    seen.push(await next(events));
    await client.jobs.create({ ...JOB, jobId: "after-restart" });
    seen.push(await next(events));
    await events.return();
    expect(seen.map((event) => [event.event, event.id, event.connection])).toEqual([
      ["initialDataComplete", "1", 1],
      ["jobUpdated", "2", 1],
      ["initialDataComplete", "1", 2],
      ["jobUpdated", "2", 2],
    ]);
    const jobUpdated = seen[3];
    expect(jobUpdated?.event === "jobUpdated" ? jobUpdated.data.jobWithHistory?.job?.jobId : undefined).toBe("after-restart");
    // The stream's requests: the first without Last-Event-ID, the reconnection with the last id seen.
    expect(lastEventIds.filter((id, i) => i === 0 || id !== null)).toEqual([null, "2"]);
  }, 20_000);
});
