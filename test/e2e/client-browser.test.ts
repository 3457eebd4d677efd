// The client in a browser: chromium (Debian's, driven by playwright-core) loads the client's
// built ES modules as they are published (packages/client/dist, no bundler), from a page the
// test serves from the gateway's own origin, lists jobs a page at a time, meets a typed
// problem, and follows the event stream until it aborts it. The page and the module route
// exist only in this test's app.
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "../helpers/browser.js";
import type { Browser } from "../helpers/browser.js";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";
import { OPEN_ACCESS } from "../../src/auth/scopes.js";

const DIST = resolve(import.meta.dirname, "../../packages/client/dist");

const PAGE = `<!doctype html>
<meta charset="utf-8">
<title>client</title>
<script type="module">
  import { createClient, NotFoundError } from "/__test__/client/index.js";
  window.log = [];
  const client = createClient({ baseUrl: location.origin });
  (async () => {
    try {
      for await (const job of client.jobs.list({ pageSize: 2 })) window.log.push("listed " + job.jobId);
      const missing = await client.jobs.get("no-such-job").catch((error) => error);
      window.log.push("missing " + (missing instanceof NotFoundError) + " " + missing.code);
      const controller = new AbortController();
      for await (const event of client.events({ type: ["jobUpdated"] }, { signal: controller.signal })) {
        if (event.event === "initialDataComplete") window.log.push("live");
        else {
          window.log.push("event " + event.event + " " + event.data.jobWithHistory.job.jobId);
          controller.abort();
        }
      }
      window.log.push("ended");
    } catch (error) {
      window.log.push("failed " + error);
    }
  })();
</script>`;

let gw: ListeningGateway;
let browser: Browser | undefined;

async function create(jobId: string): Promise<void> {
  const created = await fetch(`${gw.url}/v1/jobs`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jobId, startDateTime: "2026-12-24T18:00:00Z" }),
  });
  expect(created.status).toBe(201);
}

describe.skipIf(skipWithoutChromium("the client's browser test"))("the client in chromium", () => {
  beforeAll(async () => {
    gw = await startListeningGateway({
      beforeListen: (app) => {
        app.get("/__test__/client.html", { config: OPEN_ACCESS }, (_request, reply) => reply.type("text/html; charset=utf-8").send(PAGE));
        app.get<{ Params: { "*": string } }>("/__test__/client/*", { config: OPEN_ACCESS }, (request, reply) => {
          const path = request.params["*"];
          const file = join(DIST, path);
          if (!/^[a-z0-9/_.-]+\.js$/.test(path) || path.includes("..") || !existsSync(file)) return reply.code(404).send();
          return reply.type("text/javascript; charset=utf-8").send(readFileSync(file, "utf8"));
        });
      },
    });
    browser = await launchChromium();
    for (const jobId of ["browser-1", "browser-2", "browser-3"]) await create(jobId);
  });

  afterAll(async () => {
    await browser?.close();
    await gw.close();
  });

  it("lists the jobs page by page, meets a typed problem, follows events and ends on abort", async () => {
    if (browser === undefined) throw new Error("no browser");
    const page = await browser.context.newPage();
    await page.goto(`${gw.url}/__test__/client.html`);
    await page.waitForFunction("window.log.includes('live')", undefined, { timeout: 10_000 });
    await create("browser-4");
    await page.waitForFunction("window.log.includes('ended') || window.log.some((line) => line.startsWith('failed'))", undefined, { timeout: 10_000 });
    expect(await page.evaluate<string[]>("window.log")).toEqual([
      "listed browser-1",
      "listed browser-2",
      "listed browser-3",
      "missing true NOT_FOUND",
      "live",
      "event jobUpdated browser-4",
      "ended",
    ]);
    await page.close();
  });
});
