// Small helpers shared by the mirror's tests.
import { expect } from "vitest";
import { MirrorError } from "../../src/json/errors.js";
import type { MirrorIssue } from "../../src/json/errors.js";

/** The smallest Job body the schema accepts, plus `extra`. */
export function jobBody(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { jobId: "j-1", startDateTime: "2025-12-02T10:00:00Z", ...extra };
}

/** The issues `run` throws as a MirrorError (fails the test if it throws nothing or else). */
export function issuesOf(run: () => unknown): readonly MirrorIssue[] {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(MirrorError);
    return (error as MirrorError).errors;
  }
  expect.fail("expected a MirrorError");
}

/** The one issue `run` throws, asserting there is exactly one. */
export function issueOf(run: () => unknown): MirrorIssue {
  const issues = issuesOf(run);
  expect(issues).toHaveLength(1);
  const [issue] = issues;
  if (issue === undefined) throw new Error("unreachable");
  return issue;
}
