// What several operations say alike is said once (src/openapi/shared.ts): problem responses,
// parameters, headers and example bodies become components that each use refers to.
import { describe, expect, it } from "vitest";
import type { OpenApiDocument } from "../../src/openapi/document.js";
import { shareAlike } from "../../src/openapi/shared.js";
import { committedDocument, exampleOf, resolveRef } from "./helpers.js";

const PROBLEM = "application/problem+json";
const job = { jobId: "j", tags: { env: "prod" } };
const conflict = { type: "about:blank", title: "Conflict", status: 409, instance: "/v1/jobs" };

function media(ref: string, example: unknown) {
  return { schema: { $ref: `#/components/schemas/${ref}` }, example };
}

function documentOf(): OpenApiDocument {
  return {
    openapi: "3.1.0",
    paths: {
      "/a": {
        get: { responses: { 200: { description: "a", content: { "application/json": media("Job", job) } }, 409: { description: "a 409", content: { [PROBLEM]: media("Problem", conflict) } } } },
        put: { requestBody: { content: { "application/json": media("Job", job) } }, responses: { 200: { description: "b", content: { "application/json": media("Job", { ...job, jobId: "k" }) } } } },
      },
      "/b": { get: { responses: { 409: { description: "b 409", content: { [PROBLEM]: media("Problem", conflict) } } } } },
    },
  };
}

describe("shareAlike: example bodies", () => {
  it("gives an example used in two places once, under its schema's name (a problem under its title), and refers to it", () => {
    const doc = documentOf();
    shareAlike(doc, PROBLEM);
    const examples = (doc.components as { examples?: Record<string, unknown> }).examples;
    expect(examples).toEqual({ Job: { value: job }, Conflict: { value: conflict } });
    const get = doc.paths?.["/a"]?.get;
    const put = doc.paths?.["/a"]?.put;
    expect(get?.responses?.[200]?.content?.["application/json"]).toEqual({ schema: { $ref: "#/components/schemas/Job" }, examples: { Job: { $ref: "#/components/examples/Job" } } });
    expect(exampleOf(doc, put?.requestBody?.content?.["application/json"])).toEqual(job);
    expect(exampleOf(doc, get?.responses?.[409]?.content?.[PROBLEM])).toEqual(conflict);
    // Used once: stays where it is.
    expect(put?.responses?.[200]?.content?.["application/json"]?.example).toEqual({ ...job, jobId: "k" });
  });
});

describe("the committed document's shared examples", () => {
  it("are each referred to from two places or more, and resolve", () => {
    const doc = committedDocument();
    const text = JSON.stringify(doc);
    const names = Object.keys((doc.components as { examples?: Record<string, unknown> }).examples ?? {});
    expect(names).toEqual(expect.arrayContaining(["Job", "JobList"]));
    for (const name of names) {
      const ref = `#/components/examples/${name}`;
      expect(text.split(`"${ref}"`).length - 1, name).toBeGreaterThanOrEqual(2);
      expect(resolveRef(doc, ref), name).toHaveProperty("value");
    }
  });
});
