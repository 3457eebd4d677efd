// The test set Stryker runs against each mutant (stryker.config.mjs): the unit tests of the
// mutated core modules (src/json, src/lexical, the HTTP mechanics, the SSE stream body, the
// reference Manager's store and filters). Everything here runs in-process, so Stryker's
// per-test coverage sees it; nothing needs dist/ (no global setup), so a mutant's run
// costs milliseconds, not the seconds of a server-starting suite.
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: [
      "test/json/**/*.test.ts",
      "test/lexical/**/*.test.ts",
      "test/http/**/*.test.ts",
      "test/sse/**/*.test.ts",
      "test/schemas/**/*.test.ts",
      "test/manager/store.test.ts",
      "test/manager/filters.test.ts",
    ],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    maxWorkers: 1,
  },
});
