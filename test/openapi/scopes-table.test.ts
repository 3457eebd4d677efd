// The table of scopes in README.md and in docs/operations/authentication.md is the catalogue's
// (src/auth/scopes.ts), as `npm run openapi` writes it: a scope added, dropped or reworded there,
// or a row edited by hand in either file, fails this test until it is rerun.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/auth/scopes.js";
import { SCOPES_BEGIN, SCOPES_END, SCOPES_TABLE_FILES, scopesMarkdown, withScopesTable } from "../../src/openapi/scopes-table.js";

describe.each(SCOPES_TABLE_FILES)("the table of scopes in %s", (file) => {
  const text = readFileSync(file, "utf8");

  it("is the one npm run openapi generates from the catalogue", () => {
    expect(text).toBe(withScopesTable(text, file));
  });

  it("has a row for each scope of the catalogue, with its meaning", () => {
    const table = text.slice(text.indexOf(SCOPES_BEGIN), text.indexOf(SCOPES_END));
    for (const [scope, allows] of Object.entries(SCOPES)) expect(table).toContain(`| \`${scope}\` | ${allows} |`);
  });

  it("is found stale when a row is missing or edited by hand (the check can fail)", () => {
    const missing = text.replace(/^\| `metrics:read` .*\n/m, "");
    expect(missing).not.toBe(text);
    expect(withScopesTable(missing, file)).not.toBe(missing);
    const edited = text.replace(/^(\| `jobs:read` \| ).*$/m, "$1GET/HEAD of jobs |");
    expect(edited).not.toBe(text);
    expect(withScopesTable(edited, file)).not.toBe(edited);
  });

  it("refuses the file without the marks, naming it", () => {
    expect(() => withScopesTable(text.replace(SCOPES_END, ""), file)).toThrow(`${file} lacks the marks`);
  });
});

it("has one row per scope of the catalogue", () => {
  expect(scopesMarkdown().split("\n")).toHaveLength(2 + Object.keys(SCOPES).length);
});
