// The tests Stryker runs against a group's mutants (stryker.config.mjs; the groups are in
// test/mutation/groups.json): the unit tests of the group's modules, which run in-process so
// that Stryker's per-test coverage sees them. Nothing here needs dist/ (no global setup).
// MUTATION_GROUP names the group; without it, the tests of every group.
import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";
import { WORKSPACE_SOURCES } from "./workspace-sources.js";

interface Group {
  readonly mutate: readonly string[];
  readonly tests: readonly string[];
}

const groups = JSON.parse(readFileSync(new URL("test/mutation/groups.json", import.meta.url), "utf8")) as Record<string, Group>;
const chosen = process.env.MUTATION_GROUP;
// Without a group, every group's tests. A group's exclusion is kept unless another group
// includes that file: json leaves out test/json/body.test.ts, which json-body runs.
function everyGroupsTests(): string[] {
  const patterns = Object.values(groups).flatMap((group) => group.tests);
  const included = new Set(patterns.filter((pattern) => !pattern.startsWith("!")));
  return [...new Set(patterns.filter((pattern) => !pattern.startsWith("!") || !included.has(pattern.slice(1))))];
}
const include = chosen === undefined ? everyGroupsTests() : (groups[chosen]?.tests ?? []);
if (include.length === 0) throw new Error(`MUTATION_GROUP=${chosen ?? ""} is not a group of test/mutation/groups.json`);

export default defineConfig({
  resolve: { alias: WORKSPACE_SOURCES },
  test: {
    include: [...include],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
