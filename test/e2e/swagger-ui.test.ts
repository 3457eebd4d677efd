// Swagger UI in a real browser: Debian's chromium, driven by playwright-core (never a browser
// downloaded by Playwright), against the started command. A person's path: open /docs, create
// a job with "POST /v1/jobs" → Try it out → Execute, then read it back with "GET
// /v1/jobs/{jobId}", typing nothing. Screenshots go to test-results/swagger-ui/, with the time
// the page took to show its first operation (timing.json; measured, not asserted: see
// `npm run bench:docs` and docs/benchmarks.md).
//
// Without /usr/bin/chromium the test says so and is skipped, except in CI (process.env.CI),
// where .ci/run installs chromium and a missing browser is a failure.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "../helpers/browser.js";
import type { Browser } from "../helpers/browser.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";

const SCREENSHOTS = "test-results/swagger-ui";

describe.skipIf(skipWithoutChromium("the Swagger UI browser test"))("Swagger UI in chromium", () => {
  let gateway: StartedCommand;
  let browser: Browser;
  let page: Page;
  const external: string[] = [];
  /** The X-Request-Id of each request Swagger UI sent to the API (undefined: none sent). */
  const requestIds: (string | undefined)[] = [];

  beforeAll(async () => {
    gateway = await startCommand();
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    page.on("request", (request) => {
      if (!request.url().startsWith(gateway.url) && !request.url().startsWith("data:")) external.push(request.url());
      if (request.url().startsWith(`${gateway.url}/v1/`)) requestIds.push(request.headers()["x-request-id"]);
    });
    await mkdir(SCREENSHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    expect(await gateway.stop()).toBe(0);
  });

  /** Expands the operation (if needed), sends it as pre-filled, and returns its rendered answer. */
  async function execute(operation: Locator): Promise<{ status: string; body: string }> {
    if (!(await operation.locator("button.execute").isVisible())) await operation.locator(".opblock-summary").click();
    // Try it out is on from the start (tryItOutEnabled); press it where it is not.
    const tryItOut = operation.locator("button.try-out__btn", { hasText: "Try it out" });
    if (await tryItOut.isVisible()) await tryItOut.click();
    await operation.locator("button.execute").click();
    const answer = operation.locator(".live-responses-table tr.response");
    await answer.waitFor();
    const status = (await answer.locator(".response-col_status").textContent()) ?? "";
    const body = (await answer.locator(".response-col_description pre").first().textContent()) ?? "";
    return { status: status.trim(), body };
  }

  /** A screenshot of the operation from its title down to the answer it rendered. */
  async function capture(operation: Locator, name: string): Promise<void> {
    const top = await operation.boundingBox();
    const bottom = await operation.locator(".live-responses-table").boundingBox();
    if (top === null || bottom === null) throw new Error(`${name}: nothing rendered to capture`);
    // Boxes are relative to the viewport; a full-page clip is relative to the page.
    const scrollY = await page.evaluate<number>("window.scrollY");
    const clip = { x: top.x, y: top.y + scrollY, width: top.width, height: bottom.y + bottom.height - top.y };
    await page.screenshot({ path: join(SCREENSHOTS, name), fullPage: true, clip });
  }

  it(
    "creates a job with POST /v1/jobs and reads it back with GET /v1/jobs/{jobId}",
    async () => {
      const started = performance.now();
      await page.goto(`${gateway.url}/docs`);
      await page.locator(".opblock").first().waitFor();
      const firstOperationMs = Math.round(performance.now() - started);
      await writeFile(join(SCREENSHOTS, "timing.json"), `${JSON.stringify({ firstOperationMs })}\n`);
      expect(await page.title()).toBe("Norsk Manager gateway");
      const create = page.locator("#operations-jobs-createJob");
      await create.waitFor();

      const created = await execute(create);
      await capture(create, "create-job.png");
      expect(created.status).toBe("201");
      const job = JSON.parse(created.body) as { jobId: string; currentHash: string };
      expect(job.jobId).toBe("encoder-1");
      // Deep linking: the opened operation is in the address.
      expect(page.url()).toContain("#/jobs/createJob");

      const read = page.locator("#operations-jobs-jobById");
      await read.scrollIntoViewIfNeeded();
      const answer = await execute(read);
      await capture(read, "read-job.png");
      expect(answer.status).toBe("200");
      expect(JSON.parse(answer.body)).toMatchObject({ jobId: job.jobId, currentHash: job.currentHash });

      expect(external, "Swagger UI loads nothing from outside the gateway").toEqual([]);
      // No pre-filled request id: each request gets its own, from the gateway.
      expect(requestIds).toEqual([undefined, undefined]);
    },
    60_000,
  );
});
