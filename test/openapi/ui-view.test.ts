// Swagger UI's view of the document (src/openapi/ui-view.ts), over every operation of the
// committed openapi.yaml: the gateway's own failures an operation shares become one `default`
// response that names each of them with its description; every other response is as the
// document has it; the document itself keeps each failure as its own typed response.
import { describe, expect, it } from "vitest";
import { operationsOf } from "../../src/openapi/document.js";
import type { Response } from "../../src/openapi/document.js";
import { GROUPED_RESPONSES, uiView } from "../../src/openapi/ui-view.js";
import { committedDocument, resolveRef } from "./helpers.js";

const doc = committedDocument();
const view = uiView(doc);
const viewed = new Map(operationsOf(view).map(({ path, method, operation }) => [`${method.toUpperCase()} ${path}`, operation]));
const OPERATIONS = operationsOf(doc).map((located) => [`${located.method.toUpperCase()} ${located.path}`, located] as const);

/** The responses of an operation that the view groups: shared ($ref) ones of the grouped statuses. */
function groupedOf(responses: Record<string, Response>): string[] {
  return Object.entries(responses)
    .filter(([status, response]) => GROUPED_RESPONSES.has(status) && response.$ref !== undefined)
    .map(([status]) => status);
}

describe("Swagger UI's view of the document", () => {
  it("leaves the document as it was, each shared failure its own typed response", () => {
    expect(doc).toEqual(committedDocument());
    const jobById = doc.paths?.["/v1/jobs/{jobId}"]?.get;
    expect(jobById?.responses?.["401"]).toEqual({ $ref: "#/components/responses/Unauthorized" });
    expect(jobById?.responses?.["503"]).toEqual({ $ref: "#/components/responses/ServiceUnavailable" });
    expect(view.components).toEqual(doc.components);
  });

  it.each(OPERATIONS)("%s: the shared failures as one default response, naming each; the others as they are", (_name, { method, path, operation }) => {
    const responses = operation.responses ?? {};
    const shown = viewed.get(`${method.toUpperCase()} ${path}`)?.responses ?? {};
    const grouped = groupedOf(responses);
    for (const [status, response] of Object.entries(responses)) {
      if (!grouped.includes(status)) expect(shown[status], status).toEqual(response);
    }
    if (grouped.every((status) => status === "default")) {
      expect(shown).toEqual(responses);
      return;
    }
    for (const status of grouped) if (status !== "default") expect(shown, status).not.toHaveProperty(status);
    const summary = shown.default?.description ?? "";
    for (const status of grouped) {
      const { description } = resolveRef(doc, responses[status]?.$ref ?? "") as Response;
      expect(summary).toContain(status === "default" ? `- ${String(description)}` : `- **${status}** ${String(description)}`);
    }
    expect(Object.keys(shown.default?.content ?? {})).toEqual(["application/problem+json"]);
    // Readable at a glance: the operation's own answers and one row for the rest.
    expect(Object.keys(shown).length).toBeLessThanOrEqual(7);
  });

  it("groups the shared failures of an operation that has many, and keeps a failure worded for one operation alone", () => {
    const jobById = viewed.get("GET /v1/jobs/{jobId}")?.responses ?? {};
    expect(Object.keys(jobById)).toEqual(["200", "304", "400", "404", "default"]);
    // readyz's 503 is its own answer (the Manager is not serving), not the shared one.
    const readyz = viewed.get("GET /readyz")?.responses ?? {};
    expect(readyz["503"]).toEqual(doc.paths?.["/readyz"]?.get?.responses?.["503"]);
    expect(readyz["503"]?.$ref).toBeUndefined();
  });
});
