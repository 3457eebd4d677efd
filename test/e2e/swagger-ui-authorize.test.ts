// Swagger UI's Authorize button in a real browser (Debian's chromium via playwright-core, as in
// swagger-ui.test.ts), against the built command with API keys and a real OpenID provider
// (test/helpers/oidc-issuer.ts) configured, on one page load (the page is the costly part): for
// each scheme, with no authorization in force, Try it out on "GET /v1/jobs" shows the 401
// problem; after Authorize with an API key (the apiKey scheme, X-API-Key) or with an access
// token the provider issued (the bearerToken scheme), the same Try it out is answered 200.
//
// Without /usr/bin/chromium the test says so and is skipped, except in CI (process.env.CI).
import { createHash } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { launchChromium, skipWithoutChromium } from "../helpers/browser.js";
import type { Browser } from "../helpers/browser.js";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { AUDIENCE, signingKey, startIssuer } from "../helpers/oidc-issuer.js";
import type { Issuer } from "../helpers/oidc-issuer.js";

const API_KEY = "k-swagger-ui-7d0c5e91a2b84f36";

describe.skipIf(skipWithoutChromium("the Swagger UI Authorize browser test"))("Swagger UI's Authorize in chromium", () => {
  let issuer: Issuer;
  let folder: string;
  let gateway: StartedCommand;
  let browser: Browser;
  let page: Page;
  /** "GET /v1/jobs", expanded. */
  let search: Locator;

  beforeAll(async () => {
    issuer = await startIssuer([await signingKey("swagger-ui")]);
    folder = await mkdtemp(join(tmpdir(), "swagger-ui-keys-"));
    const keys = join(folder, "api-keys.json");
    await writeFile(keys, JSON.stringify([{ name: "swagger-ui", sha256: createHash("sha256").update(API_KEY).digest("hex"), scopes: ["jobs:read"] }]));
    gateway = await startCommand(["--api-keys", keys, "--auth-issuer", issuer.url, "--auth-audience", AUDIENCE]);
    browser = await launchChromium();
    page = browser.context.pages()[0] ?? (await browser.context.newPage());
    // A step that does not happen fails in its own words, not by the test's timeout.
    page.setDefaultTimeout(15_000);
    await page.goto(`${gateway.url}/docs`);
    search = page.locator("#operations-jobs-jobSearch");
    await search.locator(".opblock-summary").click();
  }, 60_000);

  afterAll(async () => {
    await browser.close();
    expect(await gateway.stop()).toBe(0);
    await issuer.close();
    await rm(folder, { recursive: true, force: true });
  });

  /** Sends the operation as pre-filled and returns its rendered status and body. */
  async function execute(operation: Locator): Promise<{ status: string; body: string }> {
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
    return { status: status.trim(), body };
  }

  /** The dialog of the page's Authorize button, opened. */
  async function authorizations(): Promise<Locator> {
    await page.locator(".scheme-container button.authorize").click();
    return page.locator(".dialog-ux .modal-ux");
  }

  /** Logout of every scheme authorized, in the Authorize dialog. */
  async function logout(): Promise<void> {
    const dialog = await authorizations();
    const buttons = dialog.locator("button", { hasText: "Logout" });
    while ((await buttons.count()) > 0) await buttons.first().click();
    await dialog.locator("button.close-modal").click();
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

  async function refusedThenAnswered(scheme: string, credential: string): Promise<void> {
    await logout();
    const refused = await execute(search);
    expect(refused.status).toBe("401");
    expect(JSON.parse(refused.body)).toMatchObject({ status: 401, title: expect.any(String) as unknown });
    await authorize(scheme, credential);
    const answered = await execute(search);
    expect(answered.status).toBe("200");
  }

  it("answers Try it out on GET /v1/jobs 401 before Authorize with an API key, and 200 after", async () => {
    await refusedThenAnswered("apiKey", API_KEY);
  }, 60_000);

  it("answers Try it out on GET /v1/jobs 401 before Authorize with an access token of the issuer, and 200 after", async () => {
    await refusedThenAnswered("bearerToken", await issuer.token("jobs:read"));
  }, 60_000);
});
