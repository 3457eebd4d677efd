// docs/guide/tokens.md as a reader follows it: `npm run dev-issuer` (the script itself, on port
// 0), the built gateway started with the flags the issuer prints, then every curl example of
// the guide in order, each with the status and answer shown. The issuer's printed commands are
// the guide's, so that what a reader copies from either works.
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SCOPES } from "../../src/auth/scopes.js";
import { startCommand, startProcess } from "../helpers/command.js";
import type { StartedCommand } from "../helpers/command.js";
import { RUN_DOCUMENTS, examples, expectAnswersAsShown } from "../helpers/doc-examples.js";

const [GUIDE] = RUN_DOCUMENTS.tokens;
const TEXT = readFileSync(GUIDE, "utf8");
const EXAMPLES = examples(TEXT);
/** Where the guide says the issuer listens, and the gateway. */
const SHOWN_ISSUER = "http://127.0.0.1:8081";
const SHOWN_GATEWAY = "http://127.0.0.1:8080";

let issuer: StartedCommand;
let gateway: StartedCommand;
let folder: string;
/** The issuer's printed lines with its real URL written as the guide writes it. */
let printed: string[];

beforeAll(async () => {
  issuer = await startProcess([process.execPath, "--import", "tsx", "scripts/dev-issuer.ts", "--port", "0"], {
    listening: /dev-issuer: issuer (http:\/\/127\.0\.0\.1:\d+)/,
  });
  // The lines after the URL's are printed in the same write; wait for the last.
  await new Promise<void>((resolve) => {
    const check = setInterval(() => {
      if (issuer.lines.some((line) => line.includes("/token"))) {
        clearInterval(check);
        resolve();
      }
    }, 20);
  });
  printed = issuer.lines.map((line) => line.replaceAll(issuer.url, SHOWN_ISSUER).trim());
  const start = printed.find((line) => line.startsWith("npm start -- "));
  if (start === undefined) throw new Error(`the issuer printed no start command:\n${printed.join("\n")}`);
  gateway = await startCommand(start.replace("npm start -- ", "").replaceAll(SHOWN_ISSUER, issuer.url).split(" "));
  folder = await mkdtemp(join(tmpdir(), "tokens-guide-"));
});

afterAll(async () => {
  await rm(folder, { recursive: true, force: true });
  expect(await gateway.stop()).toBe(0);
  await issuer.stop();
});

describe("the tokens guide", () => {
  it("says it is for trying, not for production, as the issuer does", () => {
    expect(TEXT).toContain("for trying, not for production");
    expect(printed.find((line) => line.startsWith("dev-issuer: issuer "))).toContain("not for production");
  });

  it("starts the gateway and gets a token with the commands the issuer prints", () => {
    const start = printed.find((line) => line.startsWith("npm start -- "));
    const token = printed.find((line) => line.startsWith("curl "));
    expect(TEXT).toContain(`\`\`\`sh\n${start ?? "no start command"}\n\`\`\``);
    expect(EXAMPLES[0]?.command.startsWith(token ?? "no curl command")).toBe(true);
  });

  it("offers every scope the gateway knows, and only those", () => {
    const scopes = printed.find((line) => line.includes("scopes: "))?.split("scopes: ")[1]?.split(" ");
    expect(scopes).toEqual(Object.keys(SCOPES));
  });

  it("names only scopes the gateway has", () => {
    // Anything written as one of the gateway's resources, a colon and a word: jobs:read, jobs:wrote.
    const resources = [...new Set(Object.keys(SCOPES).map((scope) => scope.split(":")[0] ?? ""))];
    const named = [...TEXT.matchAll(new RegExp(`\\b(?:${resources.join("|")}):[a-z]+\\b`, "g"))].map((m) => m[0]);
    expect(named.length).toBeGreaterThan(0);
    for (const scope of named) expect(Object.keys(SCOPES), scope).toContain(scope);
  });

  it("shows a 403 for a missing scope", () => {
    expect(EXAMPLES.some((e) => e.status === 403)).toBe(true);
  });

  it.each(EXAMPLES.map((example, index) => [index + 1, example] as const))("example %i answers as shown", async (_, example) => {
    await expectAnswersAsShown(example, { [SHOWN_GATEWAY]: gateway.url, [SHOWN_ISSUER]: issuer.url }, folder);
  });
});
