// CORS in a real browser: Debian's chromium (playwright-core) opens a page served by another
// server on another origin, which calls the gateway with fetch (a JSON POST, so a preflight
// first) and opens an EventSource on it. With the page's origin in --cors-origin both work and
// the page reads the exposed headers; a page of an origin not on the list gets neither, and
// nothing is written.
import { createServer } from "node:http";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "../helpers/browser.js";
import type { Browser } from "../helpers/browser.js";
import { startListeningGateway } from "../helpers/listening-gateway.js";
import type { ListeningGateway } from "../helpers/listening-gateway.js";

let pages: Server;
let allowedOrigin: string;
let otherOrigin: string;
let gw: ListeningGateway;
let browser: Browser | undefined;

interface Created {
  readonly status: number;
  readonly etag: string | null;
  readonly location: string | null;
  readonly requestId: string | null;
}

/** In the page: POST a job to the gateway and read what the answer lets a script see. */
async function createFrom(page: Page, jobId: string): Promise<Created | string> {
  return page.evaluate(
    async ([gateway, id]) => {
      try {
        const res = await fetch(`${gateway}/v1/jobs`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-request-id": `page-${id}` },
          body: JSON.stringify({ jobId: id, startDateTime: "2026-12-24T18:00:00Z" }),
        });
        return { status: res.status, etag: res.headers.get("etag"), location: res.headers.get("location"), requestId: res.headers.get("x-request-id") };
      } catch (error) {
        return String(error);
      }
    },
    [gw.url, jobId] as const,
  );
}

/** In the page: open an EventSource on the gateway; the first event's type, or "error". */
async function firstEvent(page: Page): Promise<string> {
  return page.evaluate(
    (gateway) =>
      new Promise<string>((resolve) => {
        const source = new EventSource(`${gateway}/v1/events`);
        source.addEventListener("initialDataComplete", () => {
          source.close();
          resolve("initialDataComplete");
        });
        source.onerror = () => {
          source.close();
          resolve("error");
        };
      }),
    gw.url,
  );
}

describe.skipIf(skipWithoutChromium("the CORS browser test"))("CORS in chromium", () => {
  beforeAll(async () => {
    pages = createServer((_request, response) => {
      response.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end("<!doctype html><title>console</title>");
    });
    await new Promise<void>((resolve) => pages.listen(0, "127.0.0.1", resolve));
    const { port } = pages.address() as AddressInfo;
    allowedOrigin = `http://127.0.0.1:${port}`;
    otherOrigin = `http://localhost:${port}`;
    gw = await startListeningGateway({ corsOrigins: [allowedOrigin] });
    browser = await launchChromium();
  });

  afterAll(async () => {
    await browser?.close();
    await gw.close();
    await new Promise((resolve) => pages.close(resolve));
  });

  it("lets a page of an allowed origin create a job and read its ETag, Location and X-Request-Id", async () => {
    if (browser === undefined) throw new Error("no browser");
    const page = await browser.context.newPage();
    await page.goto(`${allowedOrigin}/`);
    const created = await createFrom(page, "from-console");
    expect(created).toMatchObject({ status: 201, location: "/v1/jobs/from-console", requestId: "page-from-console" });
    expect(typeof created === "object" ? created.etag : undefined).toMatch(/^"[0-9a-f-]+"$/);
    expect((await gw.jobs()).map((job) => job.jobId?.jobId)).toContain("from-console");
  });

  it("lets a page of an allowed origin receive events with an EventSource", async () => {
    if (browser === undefined) throw new Error("no browser");
    const page = await browser.context.newPage();
    await page.goto(`${allowedOrigin}/`);
    expect(await firstEvent(page)).toBe("initialDataComplete");
  });

  it("refuses a page of another origin both, and writes nothing", async () => {
    if (browser === undefined) throw new Error("no browser");
    const page = await browser.context.newPage();
    await page.goto(`${otherOrigin}/`);
    expect(await createFrom(page, "from-elsewhere")).toMatch(/TypeError: Failed to fetch/);
    expect(await firstEvent(page)).toBe("error");
    expect((await gw.jobs()).map((job) => job.jobId?.jobId)).not.toContain("from-elsewhere");
  });
});
