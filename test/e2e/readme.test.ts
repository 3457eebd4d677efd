// The README is executable: every curl example in it runs, in order, against the built command
// started on port 0, and gets the status and body that the README shows.
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
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

const README = readFileSync("README.md", "utf8");
const EXAMPLES = examples(README);

let gateway: StartedCommand;

beforeAll(async () => {
  gateway = await startCommand();
});

afterAll(async () => {
  const code = await gateway.stop();
  expect(code).toBe(0);
});

describe("README", () => {
  it("has a curl example for every job route", () => {
    const curls = README.match(/```sh\ncurl/g) ?? [];
    expect(EXAMPLES.length).toBe(curls.length);
    const routes = ["-X POST http://127.0.0.1:8080/v1/jobs ", "/v1/jobs?", "-X PATCH", "-X PUT", "-X DELETE http://127.0.0.1:8080/v1/jobs/encoder-1\n", "/complete", "/instances \\", "/instances\n", "/instances/primary"];
    for (const route of routes) expect(EXAMPLES.some((e) => e.command.includes(route)), route).toBe(true);
  });

  it("starts with the two commands a newcomer needs", () => {
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
