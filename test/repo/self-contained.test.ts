// A clone is the whole project: no file may read, import or cite a path outside the
// repository. A user's clone has no neighbours, so a test that reads a sibling folder passes in
// a workspace that has one and fails for everyone else (as the vectors once did).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

// Spelled in pieces so that this file does not match itself.
const FORBIDDEN = [
  { token: [".", "./shared"].join(""), why: "a folder beside the clone" },
  { token: ["DESIGN", " §"].join(""), why: "a design document that is not in the repository" },
  { token: ["/work", "/"].join(""), why: "an absolute path of one machine" },
];

/** Tracked text files: what a clone holds. */
function trackedFiles(): string[] {
  const listed = execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" }).split("\0");
  return listed.filter((file) => file !== "" && !file.endsWith("package-lock.json") && !/\.(png|jpe?g|ico|woff2?)$/.test(file));
}

/** Relative path literals ("../x", '../../y') that leave the repository when resolved from their file. */
function escapingPaths(file: string, text: string): string[] {
  const found: string[] = [];
  for (const match of text.matchAll(/["'`]((?:\.\.\/)+[^"'`\s]*)["'`]/g)) {
    const literal = match[1] ?? "";
    const target = relative(ROOT, resolve(ROOT, dirname(file), literal));
    if (target === ".." || target.startsWith(`..${sep}`)) found.push(literal);
  }
  return found;
}

describe("the repository is self-contained", () => {
  const files = trackedFiles();

  it("has files to check", () => {
    expect(files.length).toBeGreaterThan(100);
    expect(files).toContain("test/fixtures/vectors.json");
  });

  it("cites no path outside the repository and no document it does not hold", () => {
    const hits: string[] = [];
    for (const file of files) {
      const lines = readFileSync(resolve(ROOT, file), "utf8").split("\n");
      lines.forEach((line, index) => {
        for (const { token, why } of FORBIDDEN) if (line.includes(token)) hits.push(`${file}:${index + 1}: ${token} (${why})`);
      });
    }
    expect(hits).toEqual([]);
  });

  it("reads and imports nothing through a relative path that leaves the repository", () => {
    const hits = files.flatMap((file) => escapingPaths(file, readFileSync(resolve(ROOT, file), "utf8")).map((path) => `${file}: ${path}`));
    expect(hits).toEqual([]);
  });

  it("would catch a path that leaves the repository", () => {
    // Built from pieces, or this very line would be the path it finds.
    const outside = ["..", "..", "..", "elsewhere", "vectors.json"].join("/");
    expect(escapingPaths("test/json/vectors.ts", `resolve(here, "${outside}")`)).toEqual([outside]);
    expect(escapingPaths("test/json/vectors.ts", 'import { x } from "../../src/json/index.js"')).toEqual([]);
  });
});
