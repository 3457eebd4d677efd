// Every curl command in the docs is run by a test: a reader copies commands from any fenced
// block, so a curl in a ```text block, in an ```sh block without its <!-- expect: N -->, or in a
// document no test runs, is a command nothing checks, and it drifts from what the gateway does.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { RUN_DOCUMENTS, examples, unrunCurls } from "../helpers/doc-examples.js";

const ROOT = resolve(import.meta.dirname, "../..");

/** Tracked Markdown files: what a clone holds and a reader opens. */
function markdownFiles(): string[] {
  return execFileSync("git", ["ls-files", "-z", "*.md"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((file) => file !== "" && existsSync(join(ROOT, file)));
}

describe("the docs' curl commands", () => {
  it("are each a runnable example of a document that a test runs", () => {
    const found = markdownFiles().flatMap((file) => unrunCurls(file, readFileSync(join(ROOT, file), "utf8")));
    expect(found).toEqual([]);
  });

  it("are in documents that exist", () => {
    for (const file of Object.values(RUN_DOCUMENTS).flat()) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it("would catch a curl that no test runs", () => {
    const run = "```sh\ncurl -s http://127.0.0.1:8080/v1/jobs\n```\n<!-- expect: 200 -->\n";
    const asText = "```text\ncurl -s http://127.0.0.1:8080/v1/jobs\n```\n";
    const unchecked = "```sh\ncurl -s http://127.0.0.1:8080/v1/jobs\n```\n";
    const notFirst = "```sh\nTOKEN=$(curl -s http://127.0.0.1:8081/token)\n```\n<!-- expect: 200 -->\n";
    const piped = "```console\n$ echo | curl -s -d @- http://127.0.0.1:8080/v1/jobs\n```\n";
    const userAgent = '```json\n{"userAgent":"curl/8.5.0"}\n```\n';
    expect(examples(run)).toHaveLength(1);
    expect(unrunCurls("README.md", run + userAgent)).toEqual([]);
    expect(unrunCurls("README.md", asText)).toEqual(["README.md:1: a ```text block with a curl command that no test runs"]);
    expect(unrunCurls("README.md", `${run}\n${unchecked}`)).toEqual(["README.md:6: a ```sh block with a curl command that no test runs"]);
    expect(unrunCurls("README.md", notFirst)).toHaveLength(1);
    expect(unrunCurls("README.md", piped)).toHaveLength(1);
    expect(unrunCurls("docs/operations/limits.md", run)).toHaveLength(1);
  });
});
