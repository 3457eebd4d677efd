// The docs' runnable examples, as the tests that run them read them. An example is a ```sh block
// that starts with curl, followed by <!-- expect: N --> (the status the block's first curl
// gets) and maybe the answer shown, as a ```json block (one value), an ```ndjson block (one
// value per line) or a ```text block (anything else: headers, an event stream). The shown answer
// is what the gateway answers, byte for byte but for the values that differ on every run
// (VARYING): key order and every field count.
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { expect } from "vitest";

const run = promisify(execFile);

/** The documents whose examples run, in reading order, by the test that runs them. */
export const RUN_DOCUMENTS = {
  /**
   * test/e2e/readme.test.ts, against one gateway with the embedded Manager: the guide goes on
   * from the README's tour (it changes, then deletes, the job the tour creates).
   */
  gateway: ["README.md", "docs/guide/jobs.md", "docs/guide/nodes.md", "docs/guide/events.md", "docs/operations/exposure.md", "docs/reference/http-api.md"],
  /** test/e2e/tokens-guide.test.ts, against `npm run dev-issuer` and a gateway that trusts it. */
  tokens: ["docs/guide/tokens.md"],
} as const;

export type ShownFormat = "json" | "ndjson" | "text";

export interface Example {
  readonly command: string;
  readonly status: number;
  /** The answer shown, as written; absent: the block's output is empty. */
  readonly shown?: { readonly format: ShownFormat; readonly text: string };
}

const EXAMPLE = /```sh\n(curl[\s\S]*?)```\n<!-- expect: (\d{3}) -->\n(?:```(json|ndjson|text)\n([\s\S]*?)```\n)?/g;

export function examples(markdown: string): Example[] {
  return [...markdown.matchAll(EXAMPLE)].map((m) => ({
    command: m[1] ?? "",
    status: Number(m[2]),
    ...(m[3] === "json" || m[3] === "ndjson" || m[3] === "text" ? { shown: { format: m[3], text: m[4] ?? "" } } : {}),
  }));
}

/**
 * Values that differ on every run, each replaced by a placeholder in the shown and the real
 * answer alike: request ids (UUIDs), tokens (JWS), history timestamps, the Date header.
 */
const VARYING: readonly (readonly [RegExp, string])[] = [
  [/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "<uuid>"],
  [/eyJ[\w-]*\.[\w-]+\.[\w-]+/g, "<jws>"],
  [/"timestamp":"[^"]*"/g, '"timestamp":"<time>"'],
  [/^date: .*$/gim, "date: <date>"],
];

/** `text` as it is compared: line ends as \n, no trailing white space, VARYING replaced. */
export function comparable(text: string): string {
  return VARYING.reduce((t, [pattern, placeholder]) => t.replace(pattern, placeholder), text.replaceAll("\r\n", "\n").trimEnd());
}

/** Each shown JSON value must parse, so that the docs hold valid JSON; throws otherwise. */
export function checkShown(shown: NonNullable<Example["shown"]>): void {
  if (shown.format === "json") JSON.parse(shown.text);
  if (shown.format === "ndjson") for (const line of shown.text.trimEnd().split("\n")) JSON.parse(line);
}

/** How long one example may run, its shell and everything it started included. */
const EXAMPLE_TIMEOUT_MS = 15_000;

/**
 * Runs `example` with bash in `cwd`, with each key of `urls` (http://127.0.0.1:8080) replaced by
 * its value (where that server really listens). The first curl writes its status on standard
 * error, so that the block's standard output, pipes included, is the answer as a reader sees it.
 */
export async function runExample(example: Example, urls: Readonly<Record<string, string>>, cwd: string): Promise<{ status: number; body: string }> {
  let command = example.command.replace(/^curl /, "curl -w '%{stderr}\\n%{http_code}' ");
  for (const [shown, real] of Object.entries(urls)) command = command.replaceAll(shown, real);
  // Bounded, so that an example that waits for what never comes (a stream that never starts)
  // fails instead of outliving its test.
  const { stdout, stderr } = await run("bash", ["-c", command], { cwd, timeout: EXAMPLE_TIMEOUT_MS });
  const status = Number(stderr.trimEnd().split("\n").at(-1));
  return { status, body: stdout };
}

/**
 * Fenced blocks that hold a curl command but are not a runnable example of a document that a
 * test runs: a reader would copy a command nothing checks.
 */
export function unrunCurls(file: string, markdown: string): string[] {
  const found: string[] = [];
  const runs = Object.values(RUN_DOCUMENTS).some((files: readonly string[]) => files.includes(file));
  const runnable = new Set(runs ? [...markdown.matchAll(EXAMPLE)].map((m) => m.index) : []);
  for (const m of markdown.matchAll(/^```([^\n]*)\n([\s\S]*?)^```/gm)) {
    const [, info = "", body = ""] = m;
    if (!/(^|[\s;|&(`$])curl\s/m.test(body) || runnable.has(m.index)) continue;
    const line = markdown.slice(0, m.index).split("\n").length;
    found.push(`${file}:${String(line)}: a \`\`\`${info} block with a curl command that no test runs`);
  }
  return found;
}

/** Runs `example` as runExample does and expects its status, and its answer as the document shows it (none where it shows none). */
export async function expectAnswersAsShown(example: Example, urls: Readonly<Record<string, string>>, cwd: string): Promise<void> {
  const { status, body } = await runExample(example, urls, cwd);
  expect(status, body).toBe(example.status);
  if (example.shown === undefined) {
    expect(body).toBe("");
    return;
  }
  checkShown(example.shown);
  expect(comparable(body)).toBe(comparable(example.shown.text));
}
