// Mutation testing of the core modules: `npm run test:mutation` (scripts/mutation.ts), which
// runs Stryker once per group of test/mutation/groups.json (MUTATION_GROUP=<group>): each
// group's modules are mutated and only that group's tests run against them, so that a mutant
// of module-level code (a table, a regular expression), which needs every related test, costs
// seconds. Not part of `npm test` or CI: run it before merging a change to these modules.
//
// Surviving mutants that no test can tell apart from the original (equivalent mutants) are
// listed, each with its reason, in test/mutation/EQUIVALENT.md; so is every
// `// Stryker disable` comment in src/.
// @ts-check
import { readFileSync } from "node:fs";
import process from "node:process";
import { URL } from "node:url";

/** @type {Record<string, { mutate: string[], tests: string[] }>} */
const groups = JSON.parse(readFileSync(new URL("test/mutation/groups.json", import.meta.url), "utf8"));
const chosen = process.env.MUTATION_GROUP;
const group = chosen === undefined ? undefined : groups[chosen];
if (chosen !== undefined && group === undefined) throw new Error(`MUTATION_GROUP=${chosen} is not a group of test/mutation/groups.json`);
const out = `reports/mutation/${chosen ?? "all"}`;

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
const config = {
  mutate: group?.mutate ?? Object.values(groups).flatMap((g) => g.mutate),
  testRunner: "vitest",
  // The group already names its tests: no need for vitest to work out which are related.
  vitest: { configFile: "vitest.stryker.config.ts", related: false },
  coverageAnalysis: "perTest",
  checkers: ["typescript"],
  // src and schemas only: a mutant that does not compile is a compile error whatever the tests say.
  tsconfigFile: "tsconfig.stryker.json",
  // One test runner (and one checker): the machine's two cores are shared with other work, and
  // a run must leave a core free. MUTATION_CONCURRENCY=<n> overrides it on a machine of one's own.
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
  // A loaded machine runs slower than the dry run measured; a timeout counts as a kill, so be generous.
  timeoutMS: 10_000,
  incremental: false,
  incrementalFile: `${out}/stryker-incremental.json`,
  tempDirName: ".stryker-tmp",
  cleanTempDir: true,
  // Other runs' sandboxes too (a group run side by side with another, given its own --tempDirName).
  ignorePatterns: ["dist", "data", "coverage", "test-results", "reports", "bench", "docs", ".stryker-tmp*"],
  reporters: ["html", "clear-text", "json", "progress"],
  htmlReporter: { fileName: `${out}/mutation.html` },
  jsonReporter: { fileName: `${out}/mutation.json` },
  clearTextReporter: { allowEmojis: false, logTests: false, reportMutants: true, reportScoreTable: true },
  thresholds: { high: 90, low: 85, break: null },
};

export default config;
