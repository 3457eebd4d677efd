// JSON lines that line-splitting readers keep whole: a principal whose name holds U+2028, U+2029
// and U+0085 (an API key's entry) makes a change through the gateway as main.ts starts it; its
// audit line and its log lines, split as Python's str.splitlines would split them, are each one
// record, and parse back to the name as it is. The function itself keeps what holds none as it is.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { lineSafe } from "../../src/http/line-safe.js";
import { JSON_HEADERS, START, startMainGateway } from "../helpers/gateway.js";
import type { MainGateway } from "../helpers/gateway.js";
import { apiKeysFile } from "../helpers/api-keys-file.js";
import type { ApiKeysFile } from "../helpers/api-keys-file.js";
import { eventually } from "../helpers/listening-gateway.js";

const NAME = "odd\u2028{\"forged\":true}\u2029name\u0085end";
const KEY = "k-odd-3e9a1c7f5b2d8046";

/** Lines as a reader splitting by Unicode's line ends sees them (as Python's str.splitlines; the other control characters JSON escapes anyway). */
function splitLines(text: string): string[] {
  return text.split(/\r\n|[\n\r\u0085\u2028\u2029]/).filter((line) => line !== "");
}

describe("line-safe JSON lines", () => {
  let keys: ApiKeysFile;
  let auditFile: string;
  let gateway: MainGateway;

  beforeAll(async () => {
    keys = await apiKeysFile([{ name: NAME, key: KEY, scopes: ["jobs:read", "jobs:write"] }]);
    auditFile = join(keys.dir, "audit.log");
    gateway = await startMainGateway(["--api-keys", keys.file, "--data-dir", join(keys.dir, "data"), "--audit-log", auditFile, "--access-log", "on"]);
  });

  afterAll(async () => {
    await gateway.close();
    await keys.remove();
  });

  it("writes the audit line of a principal named with U+2028, U+2029 and U+0085 as one line, its name intact", async () => {
    const response = await fetch(`${gateway.url}/v1/jobs`, { method: "POST", headers: { ...JSON_HEADERS, "x-api-key": KEY }, body: JSON.stringify({ jobId: "odd", startDateTime: START }) });
    expect(response.status).toBe(201);
    const text = await readFile(auditFile, "utf8");
    const records = splitLines(text);
    expect(records).toHaveLength(1);
    expect(text).toContain("odd\\u2028{\\\"forged\\\":true}\\u2029name\\u0085end");
    expect(JSON.parse(records[0] ?? "")).toMatchObject({ principal: { id: NAME, kind: "api-key" }, operation: "createJob", status: 201 });
  });

  it("writes the log lines that name the principal (the access log's) as one line each", async () => {
    const requestId = "odd-logged";
    const response = await fetch(`${gateway.url}/v1/jobs/odd`, { headers: { "x-api-key": KEY, "x-request-id": requestId } });
    expect(response.status).toBe(200);
    await eventually(() => gateway.written.some((line) => line.includes(requestId)), "the request's log line");
    const written = gateway.written.filter((line) => line.includes(requestId));
    for (const line of written) {
      const records = splitLines(line);
      expect(records).toHaveLength(1);
      expect(JSON.stringify(JSON.parse(records[0] ?? ""))).toContain(JSON.stringify(NAME).slice(1, -1));
    }
    expect(written.some((line) => line.includes("\\u2028"))).toBe(true);
  });

  it("leaves text without those characters as it is, the same string", () => {
    const text = JSON.stringify({ name: "plain\u00e9\u2027\u202a" });
    expect(lineSafe(text)).toBe(text);
    expect(lineSafe("\u0085\u2028\u2029")).toBe("\\u0085\\u2028\\u2029");
    expect(JSON.parse(lineSafe(JSON.stringify(NAME)))).toBe(NAME);
  });
});
