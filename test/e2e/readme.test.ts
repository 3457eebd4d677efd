// The README and the docs are executable: every curl example in them runs, in the order of
// DOCUMENTS, against the built command started on port 0, and gets the status and body shown.
import { execFile } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startCommand } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";

const run = promisify(execFile);

interface Example {
  readonly command: string;
  readonly status: number;
  /** The body shown: one JSON value, or for NDJSON one per line. */
  readonly body?: { readonly format: "json" | "ndjson"; readonly values: unknown[] };
}

/**
 * ```sh blocks that start with curl, each followed by <!-- expect: N --> and maybe the body it
 * answers, as a ```json block (one value) or an ```ndjson block (one value per line).
 */
function examples(markdown: string): Example[] {
  const pattern = /```sh\n(curl[\s\S]*?)```\n<!-- expect: (\d{3}) -->\n(?:```(json|ndjson)\n([\s\S]*?)```\n)?/g;
  return [...markdown.matchAll(pattern)].map((m) => ({
    command: m[1] ?? "",
    status: Number(m[2]),
    ...(m[3] === "json" || m[3] === "ndjson" ? { body: { format: m[3], values: parseBody(m[3], m[4] ?? "") } } : {}),
  }));
}

/** The values of a body: the one JSON value, or each NDJSON line's; `requestId` left out (it varies). */
function parseBody(format: "json" | "ndjson", text: string): unknown[] {
  const texts = format === "json" ? [text] : text.trimEnd().split("\n");
  return texts.map((t) => {
    const value = JSON.parse(t) as unknown;
    if (typeof value === "object" && value !== null && "requestId" in value) delete value.requestId;
    return value;
  });
}

/**
 * The documents whose examples run, in reading order: the guide goes on from the README's tour
 * (it changes, then deletes, the job the tour creates).
 */
const DOCUMENTS = ["README.md", "docs/guide/jobs.md", "docs/guide/nodes.md", "docs/guide/events.md", "docs/operations/exposure.md"];
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

beforeAll(async () => {
  gateway = await startCommand();
});

afterAll(async () => {
  const code = await gateway.stop();
  expect(code).toBe(0);
});

describe("README and docs", () => {
  it("run the examples of every document that has one", () => {
    const withExamples = ["README.md", ...markdownFiles("docs")].filter((file) => readFileSync(file, "utf8").includes("```sh\ncurl"));
    for (const file of withExamples) expect(DOCUMENTS, file).toContain(file);
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
    const command = example.command.replaceAll("http://127.0.0.1:8080", gateway.url).replace(/^curl /, "curl -w '\\n%{http_code}' ");
    const { stdout } = await run("bash", ["-c", command]);
    const at = stdout.lastIndexOf("\n");
    const status = Number(stdout.slice(at + 1));
    const body = stdout.slice(0, at);
    expect(status, body).toBe(example.status);
    if (example.body === undefined) expect(body).toBe("");
    else expect(parseBody(example.body.format, body)).toEqual(example.body.values);
  });
});
