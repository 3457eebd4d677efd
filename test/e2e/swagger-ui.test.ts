// Swagger UI in a real browser: Debian's chromium, driven by playwright-core (never a browser
// downloaded by Playwright), against the started command with API keys and a real OpenID
// provider (test/helpers/oidc-issuer.ts) configured. The page is the gateway's: its title, its
// logo before the document's title, no top bar; an opened operation lists its own answers and
// one row for the gateway's shared failures (src/openapi/ui-view.ts). A person's path: open /docs, Authorize with
// an API key, create a job with "POST /v1/jobs" → Try it out → Execute, then read it back with
// "GET /v1/jobs/{jobId}", typing nothing else. Then the Authorize button, on the same page (its
// load is the costly part): for each scheme, with no authorization in force, Try it out on "GET
// /v1/jobs" shows the 401 problem; after Authorize with an API key (the apiKey scheme) or an
// access token the provider issued (the bearerToken scheme) it is answered 200. Screenshots go
// to test-results/swagger-ui/, with the time the page took to show its first operation
// (timing.json; measured, not asserted: see `npm run bench:docs` and docs/benchmarks.md).
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
import { AUDIENCE, signingKey, startIssuer } from "../helpers/oidc-issuer.js";
import type { Issuer } from "../helpers/oidc-issuer.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";

const SCREENSHOTS = "test-results/swagger-ui";
const WRITER_KEY = "k-swagger-ui-writer-2c8e41f0b9d3";
const READER_KEY = "k-swagger-ui-reader-7d0c5e91a2b8";

describe.skipIf(skipWithoutChromium("the Swagger UI browser test"))("Swagger UI in chromium", () => {
  let issuer: Issuer;
  let keys: ApiKeysFile;
  let gateway: StartedCommand;
  let browser: Browser;
  let page: Page;
  const external: string[] = [];
  /** The X-Request-Id of each request Swagger UI sent to the API (undefined: none sent). */
  const requestIds: (string | undefined)[] = [];

  beforeAll(async () => {
    issuer = await startIssuer([await signingKey("swagger-ui")]);
    keys = await apiKeysFile([
      { name: "writer", key: WRITER_KEY, scopes: ["jobs:read", "jobs:write"] },
      { name: "reader", key: READER_KEY, scopes: ["jobs:read"] },
    ]);
    gateway = await startCommand(["--api-keys", keys.file, "--auth-issuer", issuer.url, "--auth-audience", AUDIENCE]);
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    // A step that does not happen fails in its own words, not by the test's timeout.
    page.setDefaultTimeout(15_000);
    page.on("request", (request) => {
      if (!request.url().startsWith(gateway.url) && !request.url().startsWith("data:")) external.push(request.url());
      if (request.url().startsWith(`${gateway.url}/v1/`)) requestIds.push(request.headers()["x-request-id"]);
    });
    await mkdir(SCREENSHOTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    expect(await gateway.stop()).toBe(0);
    await issuer.close();
    await keys.remove();
  });

  /** Expands the operation (if needed), sends it as pre-filled, and returns its rendered answer. */
  async function execute(operation: Locator): Promise<{ status: string; body: string; documented: boolean }> {
    if (!(await operation.locator("button.execute").isVisible())) await operation.locator(".opblock-summary").click();
    // Try it out is on from the start (tryItOutEnabled); press it where it is not.
    const tryItOut = operation.locator("button.try-out__btn", { hasText: "Try it out" });
    if (await tryItOut.isVisible()) await tryItOut.click();
    // The answer shown before goes, so that the one read below is the new one.
    const clear = operation.locator("button.btn-clear");
    if (await clear.isVisible()) await clear.click();
    await operation.locator("button.execute").click();
    const answer = operation.locator(".live-responses-table tr.response");
    await answer.waitFor();
    const status = (await answer.locator(".response-col_status").textContent()) ?? "";
    const body = (await answer.locator(".response-col_description pre").first().textContent()) ?? "";
    const documented = (await answer.locator(".response-undocumented").count()) === 0;
    return { status: status.trim(), body, documented };
  }

  /** The dialog of the page's Authorize button, opened. */
  async function authorizations(): Promise<Locator> {
    await page.locator(".scheme-container button.authorize").click();
    return page.locator(".dialog-ux .modal-ux");
  }

  /** Authorize → the scheme's value → Authorize → Close, in the Authorize dialog. */
  async function authorize(scheme: string, value: string): Promise<void> {
    const dialog = await authorizations();
    const container = dialog.locator(".auth-container").filter({ has: page.locator("h4", { hasText: scheme }) });
    await container.locator("input").fill(value);
    await container.locator("button.authorize").click();
    await container.locator("button", { hasText: "Logout" }).waitFor();
    await dialog.locator("button.close-modal").click();
  }

  /** Logout of every scheme authorized, in the Authorize dialog. */
  async function logout(): Promise<void> {
    const dialog = await authorizations();
    const buttons = dialog.locator("button", { hasText: "Logout" });
    while ((await buttons.count()) > 0) await buttons.first().click();
    await dialog.locator("button.close-modal").click();
  }

  /** With no authorization in force "GET /v1/jobs" shows the 401 problem; after Authorize with `credential` for `scheme`, a 200. */
  async function refusedThenAnswered(scheme: string, credential: string): Promise<void> {
    const search = page.locator("#operations-jobs-jobSearch");
    await search.scrollIntoViewIfNeeded();
    await logout();
    const refused = await execute(search);
    expect(refused.status).toBe("401");
    // A shared failure, shown in the view's one row for them: still a documented answer.
    expect(refused.documented).toBe(true);
    expect(JSON.parse(refused.body)).toMatchObject({ status: 401, title: expect.any(String) as unknown });
    await authorize(scheme, credential);
    const answered = await execute(search);
    expect(answered.status).toBe("200");
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

  /** The rows of the operation's documented responses (not of an answer it rendered). */
  function documentedResponses(operation: Locator): Locator {
    return operation.locator(".responses-wrapper table.responses-table:not(.live-responses-table) > tbody > tr.response");
  }

  it(
    "creates a job with POST /v1/jobs and reads it back with GET /v1/jobs/{jobId}",
    async () => {
      const logoUrl = `${gateway.url}/docs/static/theme/logo.svg`;
      const logoFetched = page.waitForResponse((response) => response.url() === logoUrl);
      const started = performance.now();
      await page.goto(`${gateway.url}/docs`);
      await page.locator(".opblock").first().waitFor();
      const firstOperationMs = Math.round(performance.now() - started);
      await writeFile(join(SCREENSHOTS, "timing.json"), `${JSON.stringify({ firstOperationMs })}\n`);
      expect(await page.title()).toBe("Norsk Manager Gateway — API");
      // No top bar: no other logo, no field to explore another document.
      expect(await page.locator(".topbar").count()).toBe(0);
      expect(await page.locator("input.download-url-input").count()).toBe(0);
      // The gateway's logo before the title, fetched from the gateway and drawn.
      // (Page-side code as text: the tests are typed without the DOM's library.)
      const titleLogo = 'getComputedStyle(document.querySelector(".information-container .info .title"), "::before").backgroundImage';
      await expect.poll(() => page.evaluate<string>(titleLogo)).toBe(`url("${logoUrl}")`);
      const logo = await logoFetched;
      expect(logo.status()).toBe(200);
      expect(logo.headers()["content-type"]).toBe("image/svg+xml");
      const drawnWidth = `(async () => { const image = new Image(); image.src = ${JSON.stringify(logoUrl)}; await image.decode(); return image.naturalWidth; })()`;
      expect(await page.evaluate<number>(drawnWidth)).toBeGreaterThan(0);
      // The description is short and links the document itself.
      await expect.poll(() => page.locator(".information-container .info .description a[href='/openapi.yaml']").count()).toBe(1);
      await page.screenshot({ path: join(SCREENSHOTS, "landing.png") });
      const create = page.locator("#operations-jobs-createJob");
      await create.waitFor();
      await authorize("apiKey", WRITER_KEY);

      const created = await execute(create);
      await capture(create, "create-job.png");
      expect(created.status).toBe("201");
      // The operation's own answers, then one row for the gateway's shared failures.
      const rows = documentedResponses(create);
      const codes = await Promise.all((await rows.all()).map((row) => row.getAttribute("data-code")));
      expect(codes).toEqual(["200", "201", "400", "409", "default"]);
      expect(await rows.last().textContent()).toContain("The gateway's own failures");
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

  it("answers Try it out on GET /v1/jobs 401 before Authorize with an API key, and 200 after", async () => {
    await refusedThenAnswered("apiKey", READER_KEY);
  }, 60_000);

  it("answers Try it out on GET /v1/jobs 401 before Authorize with an access token of the issuer, and 200 after", async () => {
    await refusedThenAnswered("bearerToken", await issuer.token("jobs:read"));
  }, 60_000);
});
