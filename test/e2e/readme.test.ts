// The README and the docs are executable: every curl example in them runs, in the order of
// DOCUMENTS, against the built command started on port 0, and gets the status and body shown.
import { readFileSync, readdirSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { RUN_DOCUMENTS, examples, expectAnswersAsShown } from "../helpers/doc-examples.js";

const DOCUMENTS: readonly string[] = RUN_DOCUMENTS.gateway;
const TEXT = DOCUMENTS.map((file) => readFileSync(file, "utf8")).join("\n");
const EXAMPLES = examples(TEXT);

/** Every Markdown file under `folder`, at any depth. */
function markdownFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const path = join(folder, entry.name);
    if (entry.isDirectory()) return markdownFiles(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
}

let gateway: StartedCommand;
/** Where the examples run, as a reader's shell would in a folder of theirs: files they write stay there. */
let folder: string;

beforeAll(async () => {
  gateway = await startCommand();
  folder = await mkdtemp(join(tmpdir(), "readme-examples-"));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
  const code = await gateway.stop();
  expect(code).toBe(0);
});

describe("README and docs", () => {
  it("run the examples of every document that has one", () => {
    const withExamples = ["README.md", ...markdownFiles("docs")].filter((file) => readFileSync(file, "utf8").includes("```sh\ncurl"));
    for (const file of withExamples) expect(Object.values(RUN_DOCUMENTS).flat(), file).toContain(file);
  });

  it("have a curl example for every job route", () => {
    const curls = TEXT.match(/```sh\ncurl/g) ?? [];
    expect(EXAMPLES.length).toBe(curls.length);
    const routes = ["-X POST http://127.0.0.1:8080/v1/jobs ", "/v1/jobs?", "-X PATCH", "-X PUT", "-X DELETE http://127.0.0.1:8080/v1/jobs/encoder-1\n", "/complete", "/instances \\", "/instances\n", "/instances/primary"];
    for (const route of routes) expect(EXAMPLES.some((e) => e.command.includes(route)), route).toBe(true);
  });

  it("start with the two commands a newcomer needs", () => {
    const README = readFileSync("README.md", "utf8");
    expect(README).toContain("npm ci && npm start");
    expect(README).toContain("npm ci && npm test");
  });

  it.each(EXAMPLES.map((example, index) => [index + 1, example] as const))("example %i answers as shown", async (_, example) => {
    await expectAnswersAsShown(example, { "http://127.0.0.1:8080": gateway.url }, folder);
  });
});
