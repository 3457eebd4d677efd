import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests start real servers on port 0; two cores, so keep the pool small.
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
  },
});
