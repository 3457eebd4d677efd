// A revoked API key keeps nothing open: through the built command and a real SSE client (the
// `eventsource` package), event streams opened with three keys; the --api-keys file is
// rewritten without one key and with another's scopes changed, and the command is sent SIGHUP.
// The streams of those two end with an `error` event whose problem says the credentials were
// revoked, and the client's reconnection is refused; the stream of the key kept as it was goes
// on and receives the next event.
import { EventSource } from "eventsource";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SSE_RETRY_MS } from "../../schemas/events.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile, KeyEntry } from "../helpers/api-keys-file.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";

const GONE: KeyEntry = { name: "gone", key: "k-gone-6d0e2b9a41c7f385", scopes: ["events:read"] };
const NARROWED: KeyEntry = { name: "narrowed", key: "k-narrowed-a73c19e08b4d62f5", scopes: ["events:read", "jobs:read"] };
const STAYS: KeyEntry = { name: "stays", key: "k-stays-29f8c0d7e6b1a453", scopes: ["events:read", "jobs:write"] };

let keys: ApiKeysFile;
let gateway: StartedCommand;

beforeAll(async () => {
  keys = await apiKeysFile([GONE, NARROWED, STAYS]);
  gateway = await startCommand(["--api-keys", keys.file]);
});

afterAll(async () => {
  await gateway.stop();
  await keys.remove();
});

interface Followed {
  readonly source: EventSource;
  /** The names of the events received, in order. */
  readonly types: string[];
  /** The data of each `error` event the server sent. */
  readonly errors: Record<string, unknown>[];
}

/** An EventSource on /v1/events sending `key` as X-API-Key on each connection. */
function follow(key: string): Followed {
  const source = new EventSource(`${gateway.url}/v1/events`, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, "x-api-key": key } }),
  });
  const followed: Followed = { source, types: [], errors: [] };
  for (const type of ["initialDataComplete", "jobUpdated", "error"]) {
    source.addEventListener(type, (event) => {
      // A connection's failure is an "error" too, without data: only the server's are kept.
      if (!(event instanceof MessageEvent)) return;
      followed.types.push(type);
      if (type === "error") followed.errors.push(JSON.parse(String(event.data)) as Record<string, unknown>);
    });
  }
  return followed;
}

describe("API keys revoked while their event streams are open (SIGHUP)", () => {
  it("ends the streams of a removed key and of a key whose scopes changed, and only theirs", async () => {
    const [gone, narrowed, stays] = [GONE, NARROWED, STAYS].map((entry) => follow(entry.key));
    if (gone === undefined || narrowed === undefined || stays === undefined) throw new Error("three streams");
    try {
      for (const followed of [gone, narrowed, stays]) await expect.poll(() => followed.types).toContain("initialDataComplete");

      await keys.write([{ ...NARROWED, scopes: ["jobs:read"] }, STAYS]);
      gateway.child.kill("SIGHUP");

      const revoked = { status: 401, code: "UNAUTHENTICATED", detail: "the credentials were revoked or their scopes changed; reconnect with valid ones" };
      for (const followed of [gone, narrowed]) {
        await expect.poll(() => followed.errors).toEqual([expect.objectContaining(revoked)]);
        // The client reconnects, and is refused (401, 403): it stays closed.
        await expect.poll(() => followed.source.readyState, { timeout: 4 * SSE_RETRY_MS }).toBe(EventSource.CLOSED);
      }

      const created = await fetch(`${gateway.url}/v1/jobs`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-api-key": STAYS.key },
        body: JSON.stringify({ jobId: "after-revocation", startDateTime: "2026-01-01T00:00:00Z" }),
      });
      expect(created.status).toBe(201);
      await expect.poll(() => stays.types).toEqual(["initialDataComplete", "jobUpdated"]);
      expect(stays.source.readyState).toBe(EventSource.OPEN);
      // The revoked streams ended with their error: they saw no event after it.
      expect([gone.types, narrowed.types]).toEqual([["initialDataComplete", "error"], ["initialDataComplete", "error"]]);
    } finally {
      for (const followed of [gone, narrowed, stays]) followed.source.close();
    }
  });

  it("logs the re-read, and refuses the removed key's next request", async () => {
    await expect.poll(() => gateway.lines.some((line) => line.includes('"msg":"API keys re-read"'))).toBe(true);
    const response = await fetch(`${gateway.url}/v1/jobs`, { headers: { "x-api-key": GONE.key } });
    expect(response.status).toBe(401);
  });
});
