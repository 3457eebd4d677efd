// The tests Stryker runs against a group's mutants (stryker.config.mjs; the groups are in
// test/mutation/groups.json): the unit tests of the group's modules, which run in-process so
// that Stryker's per-test coverage sees them. Nothing here needs dist/ (no global setup).
// MUTATION_GROUP names the group; without it, the tests of every group.
import { readFileSync } from "node:fs";
import { defineConfig } from "vitest/config";

interface Group {
  readonly mutate: readonly string[];
  readonly tests: readonly string[];
}

const groups = JSON.parse(readFileSync(new URL("test/mutation/groups.json", import.meta.url), "utf8")) as Record<string, Group>;
const chosen = process.env.MUTATION_GROUP;
const include = chosen === undefined ? Object.values(groups).flatMap((group) => group.tests) : (groups[chosen]?.tests ?? []);
if (include.length === 0) throw new Error(`MUTATION_GROUP=${chosen ?? ""} is not a group of test/mutation/groups.json`);

export default defineConfig({
  test: {
    include: [...include],
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
