import { defineConfig } from "vitest/config";
import type { TestProjectInlineConfiguration } from "vitest/config";
import { WORKSPACE_SOURCES } from "./workspace-sources.js";

const ALL_TESTS = ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"];

/**
 * The test files that run each in a fresh worker: those that start processes, hold process-wide
 * state (signals, environment, metrics, module hooks) or judge the event loop's timing, which
 * another file's leftover heap or timers would disturb. Every other file shares its worker's
 * module cache with the files before it, so it must leave nothing process-wide behind (real
 * timers restored, servers closed, no environment changes).
 */
const ISOLATED_TESTS = [
  "test/*.test.ts",
  "test/auth/**/*.test.ts",
  "test/deploy/**/*.test.ts",
  "test/e2e/**/*.test.ts",
  "test/server/**/*.test.ts",
  "test/telemetry/**/*.test.ts",
  "test/coverage/**/*.test.ts",
  "test/routes/hostile-search.test.ts",
  // Starts the gateway as main.ts does (process-wide metrics and handlers).
  "test/http/line-safe.test.ts",
];

function project(name: string, isolate: boolean, include: string[], exclude: string[] = []): TestProjectInlineConfiguration {
  return { extends: true, test: { name, isolate, include, exclude } };
}

export default defineConfig({
  resolve: { alias: WORKSPACE_SOURCES },
  test: {
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests start real servers on port 0; two cores, so keep the pool small.
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
    // Loading the app's modules afresh costs each file about a second; files that can share a
    // worker's modules do.
    projects: [project("isolated", true, ISOLATED_TESTS), project("shared", false, ALL_TESTS, ISOLATED_TESTS)],
  },
});
