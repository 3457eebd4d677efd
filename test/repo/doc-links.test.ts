// The docs hold together: every relative link in a Markdown file reaches a file of the
// repository (and its #anchor a heading there), every docs/ path named anywhere exists, and
// every citation of a heading by name, as (docs/architecture.md, "Layout"), names a heading the
// document has. Docs move and headings get renamed; a reader following a stale reference finds
// nothing, so the reference fails here instead.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize, resolve } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");

/** Tracked files: what a clone holds. */
function trackedFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)));
}

/** A heading's text as a reader cites it: without its `#`s and code marks. */
function headingText(line: string): string {
  return line.replace(/^#+\s+/, "").replaceAll("`", "").trim();
}

/** The headings of a Markdown text, outside fenced code blocks. */
export function headings(markdown: string): string[] {
  const found: string[] = [];
  let fenced = false;
  for (const line of markdown.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced;
    else if (!fenced && /^#{1,6}\s/.test(line)) found.push(headingText(line));
  }
  return found;
}

/** A heading's name without the command it names in parentheses: "Events" for "Events (`npm run bench:events`)". */
function shortName(heading: string): string {
  return heading.replace(/\s+\([^)]*\)$/, "");
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens. */
export function anchor(heading: string): string {
  return heading.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, "").replaceAll(" ", "-");
}

/** Relative links of a Markdown text, outside fenced code blocks: [text](target). */
export function links(markdown: string): string[] {
  const unfenced = markdown.replace(/^```[\s\S]*?^```/gm, "");
  return [...unfenced.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1] ?? "").filter((target) => !/^[a-z]+:/i.test(target));
}

/**
 * Citations of a heading, as (docs/x.md, "Heading"), with a comment's line breaks (and the
 * `//`, `*` or `#` that begins its next line) read as spaces, and JSON's escaped quotes as quotes.
 */
export function citations(text: string): { path: string; heading: string }[] {
  const joined = text.replace(/\n\s*(?:\/\/|\*|#)?\s*/g, " ").replaceAll('\\"', '"');
  return [...joined.matchAll(/((?:docs\/[\w./-]+|[A-Z]+)\.md),\s*"([^"]+)"/g)].map((m) => ({ path: m[1] ?? "", heading: m[2] ?? "" }));
}

/** Tracked files but this one, whose examples of stale references are stale on purpose. */
const FILES = trackedFiles().filter((file) => file !== "test/repo/doc-links.test.ts");
const MARKDOWN = FILES.filter((file) => file.endsWith(".md") && !file.startsWith("test/mutation/SCORES"));
const text = (file: string): string => readFileSync(join(ROOT, file), "utf8");

describe("the docs hold together", () => {
  it("have the documents to check", () => {
    expect(MARKDOWN).toEqual(expect.arrayContaining(["README.md", "CONTRIBUTING.md", "docs/architecture.md", "docs/guide/jobs.md"]));
  });

  it("link only to files that exist, and to headings those files have", () => {
    const broken: string[] = [];
    for (const file of MARKDOWN) {
      for (const target of links(text(file))) {
        const [path = "", hash] = target.split("#");
        const resolved = path === "" ? file : normalize(join(dirname(file), decodeURIComponent(path)));
        if (!existsSync(join(ROOT, resolved))) {
          broken.push(`${file}: ${target} (no such file)`);
          continue;
        }
        if (hash !== undefined && resolved.endsWith(".md") && !headings(text(resolved)).map(anchor).includes(hash)) {
          broken.push(`${file}: ${target} (no such heading)`);
        }
      }
    }
    expect(broken).toEqual([]);
  });

  it("name only docs/ paths that exist, wherever they are named", () => {
    const missing: string[] = [];
    for (const file of FILES.filter((f) => !f.endsWith("CHANGELOG.md") && !f.endsWith("package-lock.json"))) {
      for (const m of text(file).matchAll(/\bdocs\/[\w/.-]*\w\.md\b/g)) {
        if (!existsSync(join(ROOT, m[0]))) missing.push(`${file}: ${m[0]}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("cite only headings that the cited document has", () => {
    const stale: string[] = [];
    for (const file of FILES.filter((f) => /\.(ts|mjs|js|md|proto|yaml|json)$/.test(f) || f === "Dockerfile")) {
      for (const { path, heading } of citations(text(file))) {
        if (!existsSync(join(ROOT, path))) continue; // the path check above reports it
        if (!headings(text(path)).some((h) => h === heading || shortName(h) === heading)) stale.push(`${file}: (${path}, "${heading}")`);
      }
    }
    expect(stale).toEqual([]);
  });

  it("would catch a stale link, path or citation", () => {
    expect(links("see [the guide](docs/guide/nodes.md#cloud) and [site](https://example.com)")).toEqual(["docs/guide/nodes.md#cloud"]);
    expect(anchor("The contract: proto/")).toBe("the-contract-proto");
    expect(shortName("Events (npm run bench:events)")).toBe("Events");
    expect(headings("# A\n```sh\n# not a heading\n```\n## `npm run b` (c)\n")).toEqual(["A", "npm run b (c)"]);
    expect(citations('// as (docs/architecture.md, "Versions and\n// preconditions") says')).toEqual([
      { path: "docs/architecture.md", heading: "Versions and preconditions" },
    ]);
  });
});
