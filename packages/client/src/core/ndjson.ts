// A stream of NDJSON values, read as they arrive and never held whole. The gateway ends a
// stream that fails after its start with one {"error": Problem} line (docs/reference/http-api.md,
// "Deadlines"): it is thrown as the ProblemError it is, so that no one takes part of a list for
// the whole. Stopping early (break, return, an abort) cancels the body.
import type { Opened } from "./transport.js";
import { linesOf } from "./lines.js";
import { problemError } from "./problem.js";
import { isProblem } from "./problem-answer.js";

export async function* ndjsonValues(opened: Opened): AsyncGenerator<unknown, void, undefined> {
  const { response, deadline } = opened;
  deadline.endTimeout();
  try {
    if (response.body === null) return;
    for await (const line of linesOf(response.body)) {
      if (line.trim() === "") continue;
      const value = JSON.parse(line) as unknown;
      if (typeof value === "object" && value !== null && "error" in value && isProblem(value.error)) throw problemError(value.error);
      yield value;
    }
  } finally {
    deadline.abort();
    deadline.release();
  }
}
