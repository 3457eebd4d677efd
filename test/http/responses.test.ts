import { describe, expect, it } from "vitest";
import { STATUS_MEANING, declaredProblems, errorResponses } from "../../src/http/responses.js";
import { describedResponse } from "../../src/openapi/errors.js";

/** Each response's description as the document shows it: with the meaning of its status filled in. */
const descriptions = (responses: Record<string, { description: string }>) =>
  Object.fromEntries(Object.entries(responses).map(([status, response]) => [status, describedResponse(Number(status), response.description)]));

describe("error responses declared by failure", () => {
  it("leaves the meaning of a status it does not word to the document", () => {
    expect(declaredProblems("NOT_FOUND")[404].description).toBe(`Not Found: ${STATUS_MEANING}.`);
  });

  it("computes each status from the failures and describes it as the document does", () => {
    expect(descriptions(errorResponses("NOT_FOUND", "UNSUPPORTED_MEDIA_TYPE"))).toEqual({
      404: "Not Found: the resource does not exist.",
      415: "Unsupported Media Type: the request's Content-Type is not one this operation accepts.",
      500: "Internal Server Error: the gateway or the Manager failed; the detail says nothing about internals, the request id finds it in the log.",
      502: "Bad Gateway: the Manager sent an answer the gateway cannot use (larger than --max-message-size, undecodable, or holding data JSON cannot carry); the request id finds the cause in the log.",
      503: "Service Unavailable: the Manager cannot be reached (UNAVAILABLE), or the gateway is overloaded or shutting down and refuses new requests, or the token issuer's keys cannot be fetched; try again after the Retry-After delay.",
      504: "Gateway Timeout: the Manager did not answer in time: within the request timeout (of a list, its first result), or before the Grpc-Timeout.",
      default: "Any other error (such as 401, 403 or 429 from a Manager that enforces them, or 429 from the gateway's own rate limit), as a problem.",
    });
  });

  it("takes the operation's wording over the document's", () => {
    expect(descriptions(declaredProblems({ NOT_FOUND: "no job has this id" }))).toEqual({ 404: "Not Found: no job has this id." });
  });

  it("merges the failures of one status, naming the code of each wording after the first", () => {
    const merged = declaredProblems({ INVALID_ARGUMENT: "the body is invalid", FAILED_PRECONDITION: "the job is complete" });
    expect(descriptions(merged)).toEqual({ 400: "Bad Request: the body is invalid, the job is complete (FAILED_PRECONDITION)." });
  });

  it("describes a status once however many of its failures are named", () => {
    const meaning = "the request is invalid (each problem located in `errors`), or the Manager refused it (INVALID_ARGUMENT, FAILED_PRECONDITION, OUT_OF_RANGE)";
    expect(descriptions(declaredProblems("INVALID_ARGUMENT", "FAILED_PRECONDITION"))).toEqual({ 400: `Bad Request: ${meaning}.` });
  });

  it("leaves a declared status of the Manager's failures as declared", () => {
    expect(errorResponses({ UNAVAILABLE: "no Manager" })[503].description).toBe("Service Unavailable: no Manager.");
  });

  it("says to read the detail where neither the document nor the operation describes a status", () => {
    expect(descriptions(declaredProblems("RESOURCE_EXHAUSTED"))).toEqual({ 429: "Too Many Requests: see the problem's detail." });
  });
});
