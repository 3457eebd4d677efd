// A browser's own EventSource on GET /v1/events: chromium (Debian's, at /usr/bin/chromium,
// driven by playwright-core) opens a page that the test serves from the gateway's own origin
// and receives a jobUpdated event for a job created through the REST API.
//
// Same origin, not CORS: the gateway sends no CORS headers (whether it should is a product
// decision of its own, not this test's), and a page served next to the API, as a console
// behind the same host or reverse proxy would be, needs none. The page is a route that only
// this test adds to the app before it listens; the product serves no such page.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium } from "playwright-core";
import type { BrowserContext } from "playwright-core";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";

const CHROMIUM = "/usr/bin/chromium";
const available = existsSync(CHROMIUM);
// Skipped where chromium is missing, except in CI, where a missing browser is a failure.
const skip = !available && process.env.CI === undefined;
if (skip) console.warn(`events-browser.test.ts: skipped: no chromium at ${CHROMIUM} (apt-get install -y chromium)`);

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>events</title>
<script>
  window.received = [];
  const source = new EventSource("/v1/events");
  for (const type of ["initialDataComplete", "jobUpdated", "error"]) {
    source.addEventListener(type, (event) => {
      window.received.push({ type, id: event.lastEventId, data: event.data === undefined ? null : JSON.parse(event.data) });
    });
  }
</script>`;

let gw: ListeningGateway;
let context: BrowserContext | undefined;
let profile = "";

describe.skipIf(skip)("a browser's EventSource", () => {
  beforeAll(async () => {
    if (!available) throw new Error(`chromium is required in CI but missing at ${CHROMIUM}`);
    gw = await startListeningGateway({
      beforeListen: (app) => {
        app.get("/__test__/events.html", (_request, reply) => reply.type("text/html; charset=utf-8").send(PAGE));
      },
    });
    profile = await mkdtemp(join(tmpdir(), "events-browser-"));
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
  });

  afterAll(async () => {
    await context?.close();
    await gw.close();
    if (profile !== "") await rm(profile, { recursive: true, force: true });
  });

  it("receives a jobUpdated event for a job created through the REST API", async () => {
    if (context === undefined) throw new Error("no browser");
    const page = await context.newPage();
    await page.goto(`${gw.url}/__test__/events.html`);
    await page.waitForFunction("window.received.some((e) => e.type === 'initialDataComplete')", undefined, { timeout: 10_000 });

    const created = await fetch(`${gw.url}/v1/jobs`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jobId: "from-browser-test", startDateTime: "2026-12-24T18:00:00Z", tags: { seen: "in chromium" } }),
    });
    expect(created.status).toBe(201);
    await page.waitForFunction("window.received.some((e) => e.type === 'jobUpdated')", undefined, { timeout: 10_000 });

    const received = await page.evaluate<{ type: string; id: string; data: unknown }[]>("window.received");
    expect(received.map((e) => e.type)).toEqual(["initialDataComplete", "jobUpdated"]);
    expect(received[1]).toMatchObject({
      id: "2",
      data: { jobWithHistory: { job: { jobId: "from-browser-test", tags: { seen: "in chromium" }, state: "pre" } } },
    });
    expect(gw.manager.stats().openEventStreams).toBe(1);
    await page.close();
  });
});
