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
  readonly body?: unknown;
}

/** ```sh blocks that start with curl, each followed by <!-- expect: N --> and maybe a ```json block. */
function examples(markdown: string): Example[] {
  const pattern = /```sh\n(curl[\s\S]*?)```\n<!-- expect: (\d{3}) -->\n(?:```json\n([\s\S]*?)```\n)?/g;
  return [...markdown.matchAll(pattern)].map((m) => ({
    command: m[1] ?? "",
    status: Number(m[2]),
    ...(m[3] === undefined ? {} : { body: JSON.parse(m[3]) as unknown }),
  }));
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
    if (example.body !== undefined) {
      const actual = JSON.parse(body) as Record<string, unknown>;
      delete actual.requestId;
      expect(actual).toEqual(example.body);
    } else if (body.trim() !== "") {
      for (const line of body.trim().split("\n")) expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
  });
});
