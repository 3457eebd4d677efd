// A browser's own EventSource on GET /v1/events: chromium (Debian's, at /usr/bin/chromium,
// driven by playwright-core) opens a page that the test serves from the gateway's own origin
// and receives a jobUpdated event for a job created through the REST API.
//
// Same origin, not CORS (test/e2e/cors-browser.test.ts covers another origin's page): a page
// served next to the API, as a console behind the same host or reverse proxy would be, needs
// no --cors-origin. The page is a route that only
// this test adds to the app before it listens; the product serves no such page.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "../helpers/browser.js";
import type { Browser } from "../helpers/browser.js";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { OPEN_ACCESS } from "../../src/auth/scopes.js";


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
let browser: Browser | undefined;

describe.skipIf(skipWithoutChromium("the EventSource browser test"))("a browser's EventSource", () => {
  beforeAll(async () => {
    gw = await startListeningGateway({
      beforeListen: (app) => {
        app.get("/__test__/events.html", { config: OPEN_ACCESS }, (_request, reply) => reply.type("text/html; charset=utf-8").send(PAGE));
      },
    });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gw.close();
  });

  it("receives a jobUpdated event for a job created through the REST API", async () => {
    if (browser === undefined) throw new Error("no browser");
    const page = await browser.context.newPage();
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
