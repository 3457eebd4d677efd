// README.md's table of scopes is the catalogue's (src/auth/scopes.ts), as `npm run openapi`
// writes it: a scope added, dropped or reworded there fails this test until it is rerun.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SCOPES } from "../../src/auth/scopes.js";
import { SCOPES_BEGIN, SCOPES_END, scopesMarkdown, withScopesTable } from "../../src/openapi/scopes-table.js";

const README = readFileSync("README.md", "utf8");

describe("README's table of scopes", () => {
  it("is the one npm run openapi generates from the catalogue", () => {
    expect(README).toBe(withScopesTable(README));
  });

  it("has a row for each scope of the catalogue, with its meaning", () => {
    const table = README.slice(README.indexOf(SCOPES_BEGIN), README.indexOf(SCOPES_END));
    for (const [scope, allows] of Object.entries(SCOPES)) expect(table).toContain(`| \`${scope}\` | ${allows} |`);
  });

  it("is found stale when a row is missing (the check can fail)", () => {
    const stale = README.replace(/^\| `metrics:read` .*\n/m, "");
    expect(stale).not.toBe(README);
    expect(withScopesTable(stale)).not.toBe(stale);
  });

  it("refuses a README without the marks", () => {
    expect(() => withScopesTable(README.replace(SCOPES_END, ""))).toThrow(/lacks the marks/);
    expect(scopesMarkdown().split("\n")).toHaveLength(2 + Object.keys(SCOPES).length);
  });
});
