// The error of an answer that is not a success: its problem, or, for a body that is not one
// (a proxy's HTML page, an empty 502), a problem made from its status, so that every failure
// a call throws is a ProblemError of the same shape.
import { problemError } from "./problem.js";
import type { Problem, ProblemError } from "./problem.js";

/** Whether `value` has the fields every problem has. */
export function isProblem(value: unknown): value is Problem {
  if (typeof value !== "object" || value === null) return false;
  const record = value as Record<string, unknown>;
  return typeof record.status === "number" && typeof record.title === "string" && typeof record.detail === "string";
}

export async function problemErrorOf(response: Response): Promise<ProblemError> {
  const type = response.headers.get("content-type") ?? "";
  const text = await response.text().catch(() => "");
  let body: unknown;
  try {
    body = /json/i.test(type) ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (isProblem(body)) return problemError(body, response);
  const made: Problem = {
    type: "about:blank",
    title: response.statusText === "" ? `HTTP ${String(response.status)}` : response.statusText,
    status: response.status,
    detail: `the answer is not a problem (${type === "" ? "no content type" : type})`,
    instance: response.url === "" ? "" : new URL(response.url).pathname,
    requestId: response.headers.get("x-request-id") ?? "",
  };
  return problemError(made, response);
}
