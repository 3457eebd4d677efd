import { defineConfig } from "vitest/config";
import { WORKSPACE_SOURCES } from "./workspace-sources.js";

export default defineConfig({
  resolve: { alias: WORKSPACE_SOURCES },
  test: {
    include: ["test/**/*.test.ts", "packages/*/test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests start real servers on port 0; two cores, so keep the pool small.
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
  },
});
