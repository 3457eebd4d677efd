// Debian's chromium for browser tests, driven by playwright-core (never a browser that
// Playwright downloads). Where /usr/bin/chromium is missing, browser tests say so and are
// skipped, except in CI (process.env.CI), where .ci/run installs chromium and its absence is a
// failure.
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "playwright-core";
import type { BrowserContext } from "playwright-core";

export const CHROMIUM = "/usr/bin/chromium";

// Without the background-networking flags chromium keeps trying hosts this machine cannot reach.
const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/** True when the browser tests of `name` should be skipped (chromium missing outside CI). */
export function skipWithoutChromium(name: string): boolean {
  if (existsSync(CHROMIUM)) return false;
  const message = `${CHROMIUM} is missing (install it with: apt-get install -y chromium)`;
  if (process.env.CI !== undefined && process.env.CI !== "") throw new Error(`${message}; CI must run ${name}`);
  console.warn(`skipping ${name}: ${message}`);
  return true;
}

export interface Browser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

export interface ChromiumOptions {
  /** Accept any server certificate (one a test made, whose CA the browser does not know). Default: false. */
  readonly ignoreHTTPSErrors?: boolean;
}

/** Chromium with a fresh, empty profile: nothing cached, no state from an earlier run. */
export async function launchChromium(options: ChromiumOptions = {}): Promise<Browser> {
  const profile = await mkdtemp(join(tmpdir(), "chromium-profile-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ARGS,
    ignoreHTTPSErrors: options.ignoreHTTPSErrors ?? false,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
