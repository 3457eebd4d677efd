// Mutation testing of the core modules: `npm run test:mutation` (README, "Mutation testing").
// Not part of `npm test` or CI: run it before merging a change to these modules.
//
// Mutants that survive because no test could ever tell them apart (equivalent mutants) are
// listed, each with its reason, in test/mutation/EQUIVALENT.md; every `// Stryker disable`
// comment in src/ must have its entry there too.
// @ts-check

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  mutate: [
    "src/json/**/*.ts",
    "src/lexical/**/*.ts",
    "src/http/preconditions.ts",
    "src/http/problem.ts",
    "src/http/status.ts",
    "src/http/call-options.ts",
    "src/http/validation.ts",
    "src/http/media-type.ts",
    "src/sse/stream-body.ts",
    "src/manager/store.ts",
    "src/manager/filters.ts",
  ],
  testRunner: "vitest",
  // Only the unit tests of these modules (see that file): fast, in-process, covered per test.
  vitest: { configFile: "vitest.stryker.config.ts" },
  coverageAnalysis: "perTest",
  checkers: ["typescript"],
  tsconfigFile: "tsconfig.json",
  // Two cores, shared: one test runner per core at most.
  concurrency: 2,
  incremental: false,
  incrementalFile: "reports/mutation/stryker-incremental.json",
  tempDirName: ".stryker-tmp",
  ignorePatterns: ["dist", "data", "coverage", "test-results", "reports", "bench", "docs"],
  reporters: ["html", "clear-text", "json", "progress"],
  htmlReporter: { fileName: "reports/mutation/mutation.html" },
  jsonReporter: { fileName: "reports/mutation/mutation.json" },
  clearTextReporter: { allowEmojis: false, logTests: false, reportMutants: true, reportScoreTable: true },
  thresholds: { high: 90, low: 85, break: null },
};

export default config;
