// Retries that cannot duplicate, against the gateway: a request that a second sending cannot
// change twice (a read, a PUT or DELETE with If-Match, the create the gateway takes as a safe
// retry) is sent again after a 503 (waiting its Retry-After), a 429 or a failed connection; any
// other request is sent once, whatever maxRetries says. Attempts are counted by the fetch the
// client is given, which passes each one to the platform's.
import { afterEach, describe, expect, it } from "vitest";
import { IN_MEMORY, startManager } from "norsk-reference-manager";
import type { RunningManager } from "norsk-reference-manager";
import { gatewayTo } from "../../../../test/helpers/gateway.js";
import type { GatewayUnderTest } from "../../../../test/helpers/gateway.js";
import { ConnectionError, TimeoutError, UnavailableError, createClient } from "../../src/index.js";
import type { ClientOptions } from "../../src/index.js";

const JOB = { jobId: "retried-1", startDateTime: "2026-12-24T18:00:00Z" };

let manager: RunningManager | undefined;
let gateway: GatewayUnderTest | undefined;

afterEach(async () => {
  await gateway?.close();
  await manager?.close();
  gateway = undefined;
  manager = undefined;
});

/** A client whose every attempt is counted in `attempts`, each a request sent with the platform's fetch. */
function counting(options: ClientOptions): { client: ReturnType<typeof createClient>; attempts: string[]; times: number[] } {
  const attempts: string[] = [];
  const times: number[] = [];
  const counted: typeof fetch = (input, init) => {
    attempts.push(`${init?.method ?? "GET"} ${new URL(input instanceof Request ? input.url : input.toString()).pathname}`);
    times.push(Date.now());
    return fetch(input, init);
  };
  return { client: createClient({ ...options, fetch: counted }), attempts, times };
}

async function failure(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error("expected a failure");
    },
    (error: unknown) => error,
  );
}

describe("a 503 from a stopped Manager", () => {
  it("is retried after its Retry-After, and succeeds once the Manager is back", async () => {
    manager = await startManager({ port: 0, dataDir: IN_MEMORY });
    const port = Number(manager.address.split(":").at(-1));
    gateway = await gatewayTo(manager.address, { listen: true, shedRetryAfterS: 1 });
    await manager.close();
    // A backoff of 10 ms: the waits are the Retry-After's, or the test sees them short.
    const { client, attempts, times } = counting({ baseUrl: gateway.url, maxRetries: 10, timeoutMs: 20_000, retryDelayMs: 10 });
    const listing = client.jobs.list().all();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    manager = await startManager({ port, dataDir: IN_MEMORY });
    expect(await listing).toEqual([]);
    expect(attempts.length).toBeGreaterThan(1);
    const gaps = times.slice(1).map((time, i) => time - (times[i] ?? 0));
    expect(gaps.filter((gap) => gap < 950)).toEqual([]);
  }, 30_000);

  it("is not retried for a request that could change twice: a start, a PUT without If-Match; a PUT with If-Match is", async () => {
    manager = await startManager({ port: 0, dataDir: IN_MEMORY });
    gateway = await gatewayTo(manager.address, { listen: true, shedRetryAfterS: 1 });
    await manager.close();
    const { client, attempts } = counting({ baseUrl: gateway.url, maxRetries: 1 });
    expect(await failure(client.jobs.instances.start("retried-1", { role: "primary", nodeId: "node-1" }))).toBeInstanceOf(UnavailableError);
    expect(await failure(client.jobs.replace("retried-1", JOB))).toBeInstanceOf(UnavailableError);
    expect(await failure(client.jobs.patch("retried-1", { description: "x" }, { ifMatch: '"1"' }))).toBeInstanceOf(UnavailableError);
    expect(attempts).toEqual(["POST /v1/jobs/retried-1/instances", "PUT /v1/jobs/retried-1", "PATCH /v1/jobs/retried-1"]);
    attempts.length = 0;
    expect(await failure(client.jobs.replace("retried-1", JOB, { ifMatch: '"1"' }))).toBeInstanceOf(UnavailableError);
    expect(await failure(client.jobs.create(JOB))).toBeInstanceOf(UnavailableError);
    expect(attempts).toEqual(["PUT /v1/jobs/retried-1", "PUT /v1/jobs/retried-1", "POST /v1/jobs", "POST /v1/jobs"]);
  }, 20_000);
});

describe("a failed connection", () => {
  it("is retried with backoff for a read, never for a start, and is a ConnectionError in the end", async () => {
    const { client, attempts } = counting({ baseUrl: "http://127.0.0.1:1", maxRetries: 2, retryDelayMs: 20 });
    expect(await failure(client.jobs.get("any"))).toBeInstanceOf(ConnectionError);
    expect(attempts).toHaveLength(3);
    attempts.length = 0;
    expect(await failure(client.jobs.instances.start("any", { role: "r", nodeId: "n" }))).toBeInstanceOf(ConnectionError);
    expect(attempts).toHaveLength(1);
  });
});

describe("a call's time and signal", () => {
  it("ends a call that gets no answer within timeoutMs with a TimeoutError, and one aborted with its signal's reason", async () => {
    manager = await startManager({ port: 0, dataDir: IN_MEMORY });
    gateway = await gatewayTo(manager.address, {
      listen: true,
      hook: (real) => ({
        createJob: async (request, options) => {
          await new Promise((resolve) => setTimeout(resolve, 1_000));
          return real.createJob(request, options);
        },
      }),
    });
    const client = createClient({ baseUrl: gateway.url, timeoutMs: 200 });
    const started = Date.now();
    expect(await failure(client.jobs.create(JOB))).toBeInstanceOf(TimeoutError);
    expect(Date.now() - started).toBeLessThan(900);
    const controller = new AbortController();
    const aborted = failure(client.jobs.create({ ...JOB, jobId: "retried-2" }, { signal: controller.signal, timeoutMs: 0 }));
    controller.abort();
    expect(await aborted).toMatchObject({ name: "AbortError" });
  });
});
