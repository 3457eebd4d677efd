// The client's generated files (packages/client/src/gen) are current: each equals what
// scripts/client-generate.ts makes from the committed openapi.yaml (run `npm run openapi` and
// commit the result), and the catalogue says of each operation what the document does.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLIENT_GENERATED, clientFiles } from "../../scripts/client-generate.js";
import { OPERATIONS } from "../../packages/client/src/gen/operations.js";
import { DOCUMENT_PATH } from "./helpers.js";

const yamlText = readFileSync(DOCUMENT_PATH, "utf8");

describe("the client's generated files", () => {
  it("equal what openapi.yaml generates (run `npm run openapi` and commit the result)", async () => {
    const files = await clientFiles(yamlText);
    for (const path of Object.values(CLIENT_GENERATED)) expect(readFileSync(path, "utf8"), path).toBe(files[path]);
  });

  it("retry a create only where the document calls it a safe retry, and never another POST or a PATCH", () => {
    const always = Object.entries(OPERATIONS).filter(([, entry]) => entry.method !== "GET" && entry.retry === "always");
    expect(always.map(([id]) => id)).toEqual(["createJob"]);
    const patches = Object.values(OPERATIONS).filter((entry) => entry.method === "PATCH");
    expect(patches.map((entry) => entry.retry)).toEqual(["never"]);
  });

  it("name each operation's parameters by place, as the document does", () => {
    expect(OPERATIONS.stopJob.pathParameters).toEqual(["jobId", "role"]);
    expect(OPERATIONS.stopJob.queryParameters).toEqual(["nodeId"]);
    expect(OPERATIONS.updateJob.headerParameters).toContain("If-Match");
    expect(OPERATIONS.patchJob.requestMediaTypes).toContain("application/json-patch+json");
    expect(OPERATIONS.jobSearch.answerMediaTypes).toEqual(["application/json", "application/x-ndjson"]);
  });
});
